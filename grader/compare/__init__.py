"""Comparing a student's answer with the expected one, on plain decoded values.

- :mod:`.values`: numbers, arrays and structures against their tolerances, with a message saying where
  and by how much they differ;
- :mod:`.curves`: whether a measured curve has the shape the lecture says (a roofline, an overhead curve);
- :mod:`.ratios`: paired-round statistics: is a measured ratio inside its band, outside it, or not yet known.

May import: the text layer, numpy and perfcore's timing statistics; nothing above it.
"""
