"""The report in headless Chromium: every plot lays out with a size and draws its paths and text, and
a screenshot of the page is not blank. Skipped where no Chromium is installed (`.ci/run` installs it)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from pipelines.report.page import PLOTS, write_report

pytestmark = pytest.mark.slow
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")
# Run once the page is parsed: measure each plot's box and its drawn paths, leave the result on <body>.
MEASURE = """<script>
document.body.dataset.plots = JSON.stringify([...document.querySelectorAll("figure.plot")].map(figure => {
  const svg = figure.querySelector("svg"), box = svg.getBoundingClientRect();
  const drawn = [...svg.querySelectorAll("path")].filter(p => { const b = p.getBBox(); return b.width > 0 || b.height > 0; });
  return {plot: figure.dataset.plot, width: box.width, height: box.height, paths: drawn.length,
          texts: svg.querySelectorAll("text").length};
}));
</script>
"""


def chromium(tmp_path: Path, *args: str) -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def page(report_home, tmp_path_factory) -> Path:
    if CHROMIUM is None:
        pytest.skip("no chromium binary on PATH (apt-get install chromium): the report is not rendered in a browser")
    out = tmp_path_factory.mktemp("browser") / "report.html"
    write_report(report_home, out)
    return out


def test_every_plot_draws_in_the_browser(page, tmp_path):
    measured = page.with_name("measured.html")
    measured.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    dom = chromium(tmp_path, "--dump-dom", measured.as_uri())
    found = re.search(r'<body[^>]*\sdata-plots="([^"]*)"', dom)
    assert found, dom[:2000]
    plots = json.loads(html.unescape(found.group(1)))
    assert [p["plot"] for p in plots] == list(PLOTS)
    for plot in plots:
        assert plot["width"] > 200 and plot["height"] > 100, plot
        assert plot["paths"] >= 10 and plot["texts"] >= 5, plot


def test_a_screenshot_of_the_page_is_not_blank(page, tmp_path):
    shot = tmp_path / "report.png"
    chromium(tmp_path, "--window-size=1280,2400", f"--screenshot={shot}", page.as_uri())
    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 2400)
    inked = sum(count for count, rgb in image.getcolors(maxcolors=1 << 24) if rgb != (255, 255, 255))
    assert inked / (image.width * image.height) > 0.02
    assert len(image.getcolors(maxcolors=1 << 24)) > 50  # text and coloured plot marks, not one flat fill
