"""What ``s2s transfers`` and ``s2s fuse`` do to each program of testsuite/corpus/cuda, as
shipped (nvcc check on where nvcc exists): the cudaMemcpy/cudaMalloc calls and the launches
in the source before and after (counted on the model of each text, not on its characters),
whether the file changed, and the ids of the warnings with their count. The rows of the table
"CUDA corpus: legacy calls, host math, wrappers" in docs/benchmarks.md.

``python scripts/bench_cuda_corpus_passes.py [NAME...]``
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from s2s.driver import RunOptions, process_file  # noqa: E402
from s2s.frontend.core.parse import ParseOptions  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.transform.fuse import run_fuse  # noqa: E402
from s2s.transform.transfers import run_transfers  # noqa: E402

CORPUS = REPO / "testsuite" / "corpus" / "cuda"
COPIES = {"cudaMemcpy", "cudaMalloc"}


def _counts(path: str, options: ParseOptions, source: bytes) -> tuple[int, int]:
    model = load(path, options, source=source).model
    return sum(c.name in COPIES for c in model.api_calls), len(model.launches)


def measure(name: str) -> dict:
    with open(CORPUS / name / "sample.toml", "rb") as handle:
        info = tomllib.load(handle)
    os.chdir(CORPUS / name)
    path = info["sources"][0]
    options = replace(ParseOptions(), user_flags=tuple(info.get("flags", ())), nvcc_check=True)
    row = {}
    for label, run_pass in (("transfers", run_transfers), ("fuse", run_fuse)):
        result = process_file(path, RunOptions(parse=options), run_pass)
        before = _counts(path, options, result.loaded.source)
        after = _counts(path, options, result.change.after) if result.change else before
        warned = Counter(d.id for d in result.diagnostics if d.severity.name == "WARNING")
        row[label] = (before, after, bool(result.change and result.change.changed),
                      getattr(result, "incomplete", False), dict(warned))
    return row


def main(names: list[str]) -> None:
    print("| program | transfers: copy+malloc calls | warnings | fuse: launches | warnings |")
    print("| --- | --- | --- | --- | --- |")
    for name in names or sorted(p.parent.name for p in CORPUS.glob("*/sample.toml")):
        row = measure(name)
        cells = []
        for label, index in (("transfers", 0), ("fuse", 1)):
            before, after, changed, incomplete, warned = row[label]
            said = ", ".join(f"{k} x{v}" for k, v in sorted(warned.items())) or "none"
            cells += [f"{before[index]} -> {after[index]}" + ("" if changed else " (unchanged)")
                      + (" INCOMPLETE" if incomplete else ""), said]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
