"""The CUDA passes in each order over the samples and the corpus (issue 31, item 2).

    python scripts/compare_pass_orders.py [NAME ...]    # all CUDA samples and corpus programs

Prints, per source file, the kernel launches and cudaMemcpy calls written in the original and
after transfers, fuse, transfers then fuse, fuse then transfers (s2s/verify/pass_orders.py),
and flags a row where the default pipeline's order reaches fewer of either than the best
single pass. The nvcc check of each rewrite is off (S2S_NVCC_CHECK=0): the counts come from
the rewritten text, which the libclang check still parses; files are parsed against the bundled
CUDA headers (S2S_CUDA_PATH=shim) unless the environment says otherwise.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import tomllib

os.environ.setdefault("S2S_NVCC_CHECK", "0")
os.environ.setdefault("S2S_CUDA_PATH", "shim")     # the bundled CUDA headers: about 3x faster

from s2s.cli import main as _registers_the_passes  # noqa: E402,F401
from s2s.driver import RunOptions  # noqa: E402
from s2s.frontend.core.parse import ParseOptions  # noqa: E402
from s2s.verify.differential import DEFAULT_PASSES  # noqa: E402
from s2s.verify.pass_orders import order_counts  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ROOTS = (REPO / "samples" / "cuda", REPO / "testsuite" / "corpus" / "cuda")


def programs() -> list[Path]:
    """The folders with a sample.toml under the two roots."""
    return sorted(p.parent for root in ROOTS for p in root.glob("*/sample.toml"))


def sources(folder: Path) -> tuple[list[Path], tuple[str, ...]]:
    """The program's .cu files and its -D/-I/-std flags (-I made absolute)."""
    meta = tomllib.loads((folder / "sample.toml").read_text())
    flags = []
    for flag in meta.get("flags", []) + meta.get("nvcc_flags", []):
        if flag.startswith("-I") and not os.path.isabs(flag[2:]):
            flag = "-I" + str(folder / flag[2:])
        if flag.startswith(("-D", "-I", "-std=")):
            flags.append(flag)
    files = [folder / s for s in meta.get("sources", [])] or sorted(folder.rglob("*.cu"))
    return [f for f in files if f.suffix == ".cu"], tuple(flags)


def pipeline_order() -> str:
    return ",".join(n for n in DEFAULT_PASSES["cuda"] if n in ("transfers", "fuse"))


def main(names: list[str]) -> int:
    chosen = [p for p in programs() if not names or p.name in names]
    pipeline = pipeline_order()
    print(f"| file | original | transfers | fuse | transfers,fuse | fuse,transfers | "
          f"pipeline ({pipeline}) loses |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    losses = 0
    for folder in chosen:
        files, flags = sources(folder)
        options = RunOptions(parse=ParseOptions(user_flags=flags))
        for path in files:
            start = time.perf_counter()
            found = order_counts(str(path), options)
            best_launches = min(c.launches for c in found.values())
            best_copies = min(c.copies for c in found.values())
            lost = found[pipeline].launches > best_launches or found[pipeline].copies > best_copies
            losses += lost
            cells = " | ".join(f"{c.launches} L, {c.copies} C" for c in found.values())
            print(f"| {path.relative_to(REPO)} | {cells} | {'YES' if lost else 'no'} |"
                  f"  <!-- {time.perf_counter() - start:.1f} s -->", flush=True)
    print(f"\n{losses} file(s) where {pipeline} reaches less than the best order "
          "(L: launches, C: cudaMemcpy calls, as written)")
    return 1 if losses else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
