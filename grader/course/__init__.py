"""What a course is given, written from ``solutions/``: the student stubs (:mod:`.stubs`), the nbgrader course
folder (:mod:`.notebooks`) and the steps its autograde adds (:mod:`.judgecells`, :mod:`.deferredgrades`), the
Gradescope autograder bundle (:mod:`.gradescope`) and the student's kit (:mod:`.release`). Their command
lines are :mod:`.cli`'s, the only modules here that read arguments.

May import: the registry, specs, results, text, sandbox and judge layers (and nbformat and nbgrader, the
nbgrader extra, in the modules of the nbgrader course only, which no other module imports but deferred);
never the batch engine or a front end.
"""
