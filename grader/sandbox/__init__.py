"""The sandbox: the process boundary between the judge and the student's code.

- :mod:`.worker`: the student's side, run as a script in a confined process; it imports nothing of the
  grader (only its own copy of :mod:`.wire`), so a student who rewrites it changes only their own replies;
- :mod:`.wire`: the only thing both sides share: typed messages, plain data, the typed failure;
- :mod:`.confinement`: how a worker is started, limited (rlimits, bubblewrap by allowlist) and reaped;
- :mod:`.cputime`: the CPU time a worker's tree used, read by the judge from outside it;
- :mod:`.process`: the judge's handle on one worker: start, ask, watch, kill.

May import: the standard library (and numpy where an array crosses the wire; perfcore's one reader of
``/proc/stat``, :mod:`perfcore.measure.procstat`, in :mod:`.load`); nothing else of the grader, so that the
worker's side stays as small as it can be.
"""
