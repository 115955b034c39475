"""Batch grading: every student's folder, each in its own confined worker, against checks prepared once.

- :mod:`.engine`: a run as named phases, and its result; :mod:`.config`: its settings;
  :mod:`.planning`: the intake and the plan; :mod:`.lanes`: grading them (a pool of jobs, the
  measurement lanes); :mod:`.submissions`: finding students, copying their folders within limits;
- :mod:`.shard`: which shard a student belongs to; :mod:`.merging`: merging shards' outputs into one;
- :mod:`.output`: grades.csv, grades.json, per-student Gradescope results and the HTML pages;
- :mod:`.journal`: each graded exercise in ``OUT/journal.jsonl`` at once, which a rerun resumes from and
  ``--retry-deferred`` retries the deferred checks of; :mod:`.keep`: which of a check's grades is kept (a
  decided verdict over a deferral);
- :mod:`.progress`: how far a run is, on stderr (students done and in flight, an ETA);
- :mod:`.cli`: ``python -m grader grade`` and ``python -m grader merge``;
- :mod:`.errors`: ``BatchError``, a bad argument or folder, raised by any of them.

May import: the judge, results, reports, registry and the layers below them; never a front end or the
course tools.
"""
