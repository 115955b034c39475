"""The course's command lines, kept apart from their logic as nbgrader keeps its ``apps/`` apart from its
converters: each reads its arguments with argparse, calls one logic module of :mod:`grader.course` and says
what it did; ``python -m grader`` dispatches to them.

- :mod:`.kit`: ``python -m grader stubs``, ``release`` and ``gradescope``, which need no extra (a student kit
  runs ``python -m grader`` too), and what the instructor's commands say in a kit without ``solutions/``;
- :mod:`.nbcourse`: ``python -m grader notebooks`` and ``gradebook``, the nbgrader course's, which import
  nbformat and nbgrader (the nbgrader extra): ``python -m grader`` imports this module only when one of them
  is asked for.

May import: the logic modules of :mod:`grader.course` and what they may import; nothing imports these but
``grader.__main__``.
"""
