"""grader.reports.table: the score table of the terminal, its totals and its deferred points."""

from __future__ import annotations

import re

from grader.reports.table import score_table
from tests.grader.results.outcomes import OUTCOMES


def test_score_table_lists_totals_and_deferred() -> None:
    zh = "\n".join(score_table(OUTCOMES, "zh"))
    assert "通过" in zh and "答案错误" in zh and "暂缓计分*" in zh  # the footnote's word (issue 30)
    assert re.search(r"总分\s+2 / 3", zh) and "暂缓计分（不计入满分）: 3" in zh and "ex02::c3 (3)" in zh
    en = "\n".join(score_table(OUTCOMES, "en", "zero"))
    assert re.search(r"total\s+2 / 6", en) and "deferred (counted as zero): 3" in en
