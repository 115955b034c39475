"""The text layer, at the bottom of the grader: every student-facing word and how values are shown.

- :mod:`grader.text.catalogue`: ``LANGS``, ``render``, ``Text``: the one catalogue every front end renders from;
- :mod:`grader.text.grading`, :mod:`grader.text.batch`, :mod:`grader.text.report`: its tables, as data;
- :mod:`grader.text.show`: values as students read them (``show``, ``show_inputs``, ``kind_of``);
- :mod:`grader.text.lang`: the language when none is asked for (the course's setting, else the locale).

May import: the standard library and numpy; nothing else of the grader.
"""
