"""What a course is given, written from ``solutions/``: the student stubs (:mod:`.stubs`), the nbgrader course
folder (:mod:`.notebooks`), the Gradescope autograder bundle (:mod:`.gradescope`) and the student's kit
(:mod:`.release`).

May import: the registry, specs, results and text layers (and nbformat, the nbgrader extra, deferred);
never the batch engine or a front end.
"""
