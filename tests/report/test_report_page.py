"""page.py: the page from hand-made summaries (report_frames.py): a plain message for every section
without data, escaped text, byte-identical output and nothing fetched from anywhere."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

from report_frames import HOSTILE, summaries

from pipelines.report.page import PLOTS, cell, prose, render_report, wording
from pipelines.report.summaries import SUMMARIES, report_summaries
from pipelines.warehouse import Warehouse

ROOT = Path(__file__).resolve().parents[2]


def test_a_warehouse_without_tables_gives_every_sections_plain_message(tmp_path):
    assert report_summaries(Warehouse(tmp_path)) == {}
    page = render_report({})
    sections = wording().sections
    assert all(prose(s.missing) in page for s in sections)
    assert "no stress test in this warehouse: run <code>clinverse stress-test</code>" in page
    assert f"0 of {len(sections)} sections have data." in page and "<svg" not in page


def test_sections_with_data_draw_their_plots_and_tables_the_rest_say_what_is_missing():
    page = render_report(summaries())
    assert re.findall(r'<figure class="plot" data-plot="([a-z]+)">', page) == list(PLOTS)
    assert "no paired statistics in this warehouse: run <code>clinverse evaluate</code>" in page
    assert "0.500 [0.400, 0.600]" in page  # a condition's mean and interval
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # every plot's ids are its own


def test_hostile_text_is_escaped_in_tables_and_plots():
    page = render_report(summaries())
    assert "<script" not in page and 'alert("x")</script>' not in page
    assert html.escape(HOSTILE) in page  # a table cell
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; $x$" in page
    assert '&lt;script&gt;alert("x")&lt;/script&gt; &amp; $x$' in page  # SVG text: literal, no mathtext


def test_nothing_is_fetched_from_anywhere():
    page = render_report(summaries())
    assert "http://" not in page and "https://" not in page
    assert not re.search(r"<(script|link|iframe|img|image)\b|@import|url\((?!#)", page)  # url(#clip) is internal
    assert all(ref.startswith(("#", "data:")) for ref in re.findall(r'(?:src|href)="([^"]*)"', page))


def test_the_same_summaries_give_the_same_bytes_in_another_process():
    page = render_report(summaries())
    assert render_report(summaries()) == page
    script = "import sys; from report_frames import summaries; from pipelines.report.page import render_report; " \
             "sys.stdout.buffer.write(render_report(summaries()).encode())"
    env = os.environ | {"PYTHONHASHSEED": "12345", "PYTHONPATH": os.pathsep.join([str(ROOT), str(Path(__file__).parent)])}
    other = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, check=True).stdout
    assert other == page.encode()


def test_every_summary_has_a_section_and_cells_read_plainly():
    shown = {t.summary for s in wording().sections for t in s.tables}
    assert shown == set(SUMMARIES)
    assert [cell(v) for v in (None, True, 0.12345, 0.0, 0.00001234, 3, ["a", "b"])] == [
        "", "true", "0.123", "0.000", "1.23e-05", "3", "a, b"]
