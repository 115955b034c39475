"""What a check is, before anything is graded.

- :mod:`.check`: the kinds of check (value, choice, property, measurement, curve), ``Exercise``, ``Work``
  and the measurement bands;
- :mod:`.tolerance`: a spec's tolerances, validated where the spec is written;
- :mod:`.requirements`: what a check needs from the machine, and why it is skipped without it;
- :mod:`.sizes`: the working sets a measurement takes on the machine that grades;
- :mod:`.strategies`: the hypothesis strategies the checks draw inputs from.

May import: the text layer, perfcore, hypothesis and packaging; nothing else of the grader.
"""
