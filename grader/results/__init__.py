"""Results: what one check gave (:mod:`.outcome`: its state, points and message, and an exercise's totals)
and what it was measured on (:mod:`.environment`).

May import: the text and specs layers; nothing that grades or reports.
"""
