"""The pytest front end's parts (grader/pytest/), unit by unit; end to end they are tests/grader/test_plugin.py's."""
