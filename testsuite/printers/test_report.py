"""``s2s report`` (issue 20, item 3): the page's content, without a browser.

The page shows, per file and pass, the same edit set ``--diff`` prints, the explanations and
the warnings; it holds the pictures as inline SVG and loads nothing; text from the sources is
escaped (a source that contains markup cannot inject any)."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from s2s.cli.main import main
from testsuite.printers.program import write_program

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples" / "cuda"


class Page(HTMLParser):
    """Tags, attributes and text of a page; fails on an end tag that closes nothing open."""

    VOID = {"meta", "br", "img", "col", "input", "link", "hr"}

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.open: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        assert tag in self.open, f"</{tag}> closes nothing"
        while self.open.pop() != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)


def make_report(tmp_path, monkeypatch, *args) -> tuple[int, str, Page]:
    monkeypatch.chdir(tmp_path)
    code = main(["report", *map(str, args), "-o", "out/review.html"])
    html = (tmp_path / "out" / "review.html").read_text()
    return code, html, Page(html)


def test_page_of_a_cuda_file_has_code_reasons_and_pictures(tmp_path, monkeypatch, capsys):
    shutil.copy(SAMPLES / "elementwise_chain" / "elementwise_chain.cu", tmp_path / "chain.cu")
    shutil.copy(SAMPLES / "hotspot" / "hotspot.cu", tmp_path / "hotspot.cu")
    code, html, page = make_report(tmp_path, monkeypatch, "chain.cu", "hotspot.cu")
    err = capsys.readouterr().err
    assert code == 0, err
    assert "out/review.html: 6 sections of 2 files" in err
    assert "[fuse-explain]" not in err               # explanations are in the page
    text = "".join(page.text)
    svgs = [a for t, a in page.tags if t == "svg"]
    labels = {a["aria-label"] for a in svgs}
    assert "transfer schedule of main" in labels and "fusion graph of main" in labels
    assert "grid partition of hotspot_step (line 103)" in labels
    # the halo of the 2-D stencil: one row of 500 columns each way
    assert "device 1 -> device 0: temp_src, 500 elements" in text
    assert "device 0 -> device 1: temp_src, 500 elements" in text
    # numbers from the plans
    assert "cudaMemcpy calls 4 -> 2, cudaMalloc calls 6 -> 1" in text
    assert "kernel launches in the source 6 -> 1" in text
    # each change with its reason, each warning at its line
    assert "upload h_a, h_b, h_c in one cudaMemcpy" in text
    # hotspot's pointer pair d_src/d_dst rotated in the time loop holds d_temp_a or d_temp_b
    # (issue 29 item 5): its transfers are rewritten, no longer refused at line 100
    assert "upload h_temp, h_power in one cudaMemcpy" in text
    # the rewritten code is the --diff's: the first added lines of each hunk are on the page
    # (a changed stretch longer than the page shows whole is folded after its first lines)
    main(["fuse", "chain.cu"])
    hunks = capsys.readouterr().out.split("\n@@")[1:]
    assert hunks
    for hunk in hunks:
        added = [line[1:] for line in hunk.splitlines() if line.startswith("+")]
        assert all(line in text for line in added[:10] if line.strip()), added[:10]
    assert "more changed lines" in text


def test_page_is_self_contained_and_escapes_the_sources(tmp_path, monkeypatch, capsys):
    write_program(tmp_path)
    main_c = tmp_path / "main.c"
    main_c.write_text(main_c.read_text().replace(
        "    clock_t start", "    /* </td><script>alert('x')</script> & more */\n    clock_t start"))
    code, html, page = make_report(tmp_path, monkeypatch, "main.c", "solver.c")
    assert code == 0, capsys.readouterr().err
    assert not [t for t, _ in page.tags if t in ("script", "link", "iframe", "img", "object")]
    for _tag, attrs in page.tags:
        for name, value in attrs.items():
            assert name not in ("src", "href") or (value or "").startswith("#"), (name, value)
    assert "&lt;/td&gt;&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; more" in html
    assert "<script" not in html
    text = "".join(page.text)
    assert "#pragma omp target enter data map(to: u[0:(size_t)n], w[0:(size_t)n])" in text
    assert "target enter/exit data region in 'main' maps u[0:(size_t)n] (to/release)" in text
    assert "unchanged lines" in text                       # long equal stretches are folded


def test_report_does_not_touch_the_sources(tmp_path, monkeypatch, capsys):
    write_program(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    code, _, _ = make_report(tmp_path, monkeypatch, "main.c", "solver.c")
    assert code == 0
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


def test_a_file_that_fails_is_on_the_page_with_its_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "bad.c").write_text("int main(void) { int x = ; }\n")
    code, html, page = make_report(tmp_path, monkeypatch, "bad.c")
    assert code == 1
    assert "error: expected expression [clang-error]" in "".join(page.text)


@pytest.mark.parametrize("args, message", [
    (["--passes", "bogus"], "s2s report shows omp, transfers, fuse and mgpu"),
    (["--devices", "0"], "--devices must be at least 1"),
])
def test_usage_errors(tmp_path, monkeypatch, capsys, args, message):
    write_program(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = main(["report", "main.c", "-o", "r.html", *args])
    assert code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_report_json_is_not_a_format(capsys):
    with pytest.raises(SystemExit):
        main(["report", "x.c", "-o", "r.html", "--format", "json"])
    assert re.search(r"invalid choice: 'json'", capsys.readouterr().err)
