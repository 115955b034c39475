"""The pytest front end's parts (grader/pytest/), one test module per module: end to end in pytester sessions
of the fake exercises (test_feedback, test_items, test_live, test_session, test_summary), and part by part
(test_quiet_parts)."""
