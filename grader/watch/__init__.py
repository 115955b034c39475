"""``python -m grader watch``: the student's loop at the speed of saving.

The folder is graded once, then each exercise file again as it is saved, only that file's checks, by a warm
process (:mod:`grader.watch.runs`: pytest, hypothesis, numpy and torch imported once, each regrade forked
from it) through the same pytest plugin and signed cache as ``pytest exercises/``, so the next run of that
reuses what the watch decided. :mod:`grader.watch.saves` turns watchdog's file events into one regrade per
save; :mod:`grader.watch.cli` is the command and its screen.

May import: the pytest front end (a regrade is its run, and reads its record of the outcomes) and every room
below it; never ``grader.__main__`` or the plugin module, which start it.
"""
