"""The interactive views in a real browser: headless Chromium (Debian's package, `make chromium`)
opens the HTML that `rexmit plot --format html` writes, without any network, and the plot must
have rendered with data: plotly's SVG in the DOM with line paths drawn through many points, and
a screenshot showing the traces' colours. Skipped without chromium unless
REXMIT_REQUIRE_BROWSER=1 (set by `make test`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_plot import TCP, traced_run

from rexmit.plot import plot_flow

# Headless Chromium as root needs --no-sandbox; no GPU here; virtual time lets plotly finish.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--virtual-time-budget=15000",
    "--window-size=1400,900",
]


def chromium_or_skip() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("REXMIT_REQUIRE_BROWSER") == "1":
        pytest.fail("chromium is required (REXMIT_REQUIRE_BROWSER=1) but not installed: make chromium")
    pytest.skip("chromium not installed (make chromium)")


def browse(chromium: str, page: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium, *FLAGS, *args, page.resolve().as_uri()], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plot_flow(traced_run(tmp_path_factory, TCP, "bulk"), "bulk", "tsg", format="html")


def test_the_page_renders_plotly_svg_with_data_paths(page: Path) -> None:
    chromium = chromium_or_skip()
    r = browse(chromium, page, "--dump-dom")
    dom = r.stdout
    assert 'class="main-svg"' in dom, f"plotly did not render (stderr: {r.stderr[-500:]})"
    # Every scatter line is a path; the data lines have many drawing commands (the cumulative
    # ACK is a step line through every ACK), not just a move-to.
    paths = re.findall(r'<path class="js-line" d="([^"]+)"', dom)
    assert paths, "no line traces drawn"
    longest = max(len(re.findall(r"[LHV]", d)) for d in paths)
    assert longest > 100, f"the longest line has only {longest} segments"
    assert "retransmitted: fast retransmit" in dom, "the legend names the retransmission"


def test_the_screenshot_shows_the_plot(page: Path, tmp_path: Path) -> None:
    chromium = chromium_or_skip()
    shot = tmp_path / "tsg.png"
    r = browse(chromium, page, f"--screenshot={shot}")
    assert shot.is_file(), r.stderr[-500:]
    import matplotlib.image

    img = (matplotlib.image.imread(str(shot))[:, :, :3] * 255).round().astype(int)
    # Not blank: a good share of the pixels is drawn, among them the new-data blue (#0072B2)
    # and the cumulative ACK's black.
    drawn = np.any(img < 230, axis=2).mean()
    assert drawn > 0.01, f"only {drawn:.2%} of the screenshot is drawn"
    blue = np.all(np.abs(img - [0, 114, 178]) < 30, axis=2).sum()
    black = np.all(img < 40, axis=2).sum()
    assert blue > 200 and black > 200, f"{blue} blue and {black} black pixels"
