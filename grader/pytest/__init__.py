"""The pytest front end's parts, which :mod:`grader.plugin` (the options and the hooks) registers and calls.

- :mod:`.session`: one config's state: its judge and registry, the outcomes, the verdicts pytest's cache
  keeps, the graded folders and their untrusted files;
- :mod:`.items`: the student's files and their checks as pytest collects and runs them;
- :mod:`.feedback`: a failed check's report, the feedback alone;
- :mod:`.live`: the live line of a measuring check in progress, on a terminal;
- :mod:`.summary`: the score table, Gradescope's JSON and the HTML page at the end;
- :mod:`.untrusted`: the files of an exercise folder that would run in pytest's own process, and taking the
  folder off pytest's import path.

May import: every room below the front ends (the judge, results, reports, registry and the layers below
them); never :mod:`grader.plugin`, another front end, batch or the course tools. Named after the front end it serves; ``import pytest`` inside it is still pytest's own (imports are
absolute).
"""
