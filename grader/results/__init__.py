"""Results: what one check gave (:mod:`.outcome`: its state, points and message, and an exercise's totals)
what a measuring check's rounds gave (:mod:`.measured`), and what it was measured on (:mod:`.environment`).

May import: the text and specs layers; nothing that grades or reports.
"""
