"""One module per exercise of the lecture's §9, each defining ``EXERCISE = Exercise(...)``.

``grader.registry`` finds them all; a module here is named for its exercise (``ex01.py`` grades the
student file ``ex01_ridge_point.py``). Reference values come from perfcore, never from hard-coded numbers.
"""
