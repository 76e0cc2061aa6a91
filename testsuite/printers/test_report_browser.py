"""The review page in a real browser (issue 20, item 3): Debian's chromium, headless.

The page must load without a single console message (it has no script; any message is an
error of the page), and the screenshot must show the code (the red and green backgrounds of
changed lines) and the pictures (the fill colours of the transfer schedule, the fusion graph
and the two devices of the grid partition). ``S2S_UPDATE_SCREENSHOT=1`` also stores the
full-size screenshot as docs/img/report.png for the README. Skipped, with the reason printed,
where no chromium is installed (scripts/setup.sh installs it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from s2s.cli.main import main
from testsuite.printers.png_pixels import count_near, pixels

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples" / "cuda"
BROWSER = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(n)), None)

pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium on this machine "
                                "(apt-get install chromium; scripts/setup.sh does)")

#: colours over white: (fill colour, opacity) as the page draws them
CHANGED_OLD, CHANGED_NEW = (0xFD, 0xEC, 0xEA), (0xE6, 0xF4, 0xEA)


def over_white(hex_colour: str, opacity: float) -> tuple[int, int, int]:
    rgb = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
    return tuple(round(255 - opacity * (255 - c)) for c in rgb)


def chromium(url: str, png: Path, scale: float, height: int, profile: Path
             ) -> subprocess.CompletedProcess:
    return subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
                           f"--user-data-dir={profile}", f"--force-device-scale-factor={scale}",
                           f"--window-size=1400,{height}", f"--screenshot={png}", url],
                          capture_output=True, text=True, timeout=120)


def console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    shutil.copy(SAMPLES / "elementwise_chain" / "elementwise_chain.cu", directory / "chain.cu")
    shutil.copy(SAMPLES / "hotspot" / "hotspot.cu", directory / "hotspot.cu")
    # a program transfers leaves as written (hotspot's rotation is pooled since issue 29)
    shutil.copy(SAMPLES / "nbody" / "nbody.cu", directory / "nbody.cu")
    here = os.getcwd()
    os.chdir(directory)
    try:
        assert main(["report", "-q", "--passes", "transfers,fuse,mgpu", "--title",
                     "s2s review: hotspot.cu, chain.cu and nbody.cu", "hotspot.cu", "chain.cu",
                     "nbody.cu",
                     "-o", "review.html"]) == 0
    finally:
        os.chdir(here)
    return directory / "review.html"


def test_console_detector_sees_an_error(tmp_path):
    """The check below can fail: a page with a failing script is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>undefinedFunction();</script></body></html>")
    proc = chromium(bad.as_uri(), tmp_path / "bad.png", 1, 300, tmp_path / "profile")
    assert any("undefinedFunction" in line for line in console_lines(proc.stderr))


def test_page_loads_cleanly_and_shows_code_and_pictures(page, tmp_path):
    png = tmp_path / "half.png"
    proc = chromium(page.as_uri(), png, 0.5, 5200, tmp_path / "profile")
    assert png.is_file(), proc.stderr[-2000:]
    assert console_lines(proc.stderr) == []
    width, height, rows = pixels(png.read_bytes())
    assert (width, height) == (700, 2600)
    seen = {
        "changed line, original": count_near(rows, CHANGED_OLD, 2),
        "changed line, rewritten": count_near(rows, CHANGED_NEW, 2),
        "transfer schedule kernels": count_near(rows, over_white("#4477aa", 0.25), 3),
        "fused group": count_near(rows, over_white("#4477aa", 0.35), 3),
        "device 0 box": count_near(rows, over_white("#4477aa", 0.3), 3),
        "device 1 box": count_near(rows, over_white("#ee6677", 0.3), 3),
        "text": count_near(rows, (0x22, 0x22, 0x22), 40),
    }
    assert all(n >= 200 for n in seen.values()), str(seen)
    # what the CUDA passes left alone is in the open, above the folded unchanged code
    html = page.read_text()
    refusals = html.index("<h3>left as written, and why</h3>")
    assert html.index("<details><summary>no change: the code</summary>", refusals) > refusals
    assert html.count("<details>", 0, refusals) == html.count("</details>", 0, refusals)
    assert "[transfers-escape]" in html[refusals:html.index("</table>", refusals)]
    if os.environ.get("S2S_UPDATE_SCREENSHOT"):
        target = REPO / "docs" / "img" / "report.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        full = tmp_path / "full.png"
        proc = chromium(page.as_uri(), full, 1, 3200, tmp_path / "profile")
        assert console_lines(proc.stderr) == []
        shutil.copy(full, target)


@pytest.fixture(scope="module")
def omp_page(tmp_path_factory):
    """An OpenMP program's page: its copies before and after, counted, and measured where
    the offload toolchain is installed (--run)."""
    from s2s.verify import omp_harness

    run = ["--run"] if omp_harness.toolchain_problem() is None else []
    directory = tmp_path_factory.mktemp("omp_report")
    sample = REPO / "samples" / "openmp" / "saxpy_time_loop" / "saxpy_time_loop.c"
    shutil.copy(sample, directory / "saxpy_time_loop.c")
    here = os.getcwd()
    os.chdir(directory)
    try:
        assert main(["report", "-q", *run, "--title", "s2s review: saxpy_time_loop.c",
                     "saxpy_time_loop.c", "-o", "review.html"]) == 0
    finally:
        os.chdir(here)
    return directory / "review.html"


def test_omp_page_loads_cleanly_and_shows_the_copies(omp_page, tmp_path):
    html = omp_page.read_text()
    assert "transfer sites 14 -&gt; 6; bytes per pass over every site 917,504 B -&gt; " \
        "196,632 B" in html
    assert "copies per array over the file, before and after</b>: 14 copy sites before, 6 " \
        "after" in html
    png = tmp_path / "omp.png"
    proc = chromium(omp_page.as_uri(), png, 1, 1800, tmp_path / "profile")
    assert png.is_file(), proc.stderr[-2000:]
    assert console_lines(proc.stderr) == []
    _width, _height, rows = pixels(png.read_bytes())
    seen = {"changed line, original": count_near(rows, CHANGED_OLD, 2),
            "changed line, rewritten": count_near(rows, CHANGED_NEW, 2),
            "text": count_near(rows, (0x22, 0x22, 0x22), 40),
            # the copy timeline: copies to the device (blue) and back (red), per array
            "copies to the device": count_near(rows, (0x44, 0x77, 0xAA), 3),
            "copies back to the host": count_near(rows, (0xEE, 0x66, 0x77), 3)}
    assert all(n >= 200 for n in seen.values()), str(seen)
    if os.environ.get("S2S_UPDATE_SCREENSHOT"):
        shutil.copy(png, REPO / "docs" / "img" / "report-omp.png")
