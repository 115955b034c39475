"""Reports: what the outcomes become for their readers.

- :mod:`.table`: the terminal score table;
- :mod:`.gradescope`: Gradescope's results.json;
- :mod:`.files`: writing reports to disk safely, and CSV text a spreadsheet reads as text;
- :mod:`.html`: the self-contained HTML pages and their plots.

May import: the text, specs, checks/registry and results layers; never the judge, batch, course or a front
end (batch hands its results to :mod:`.html` as plain outcomes).
"""
