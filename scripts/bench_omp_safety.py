"""The safety net of ``s2s omp`` on programs without any mapping (issue 28, items 1-2).

For every OpenMP corpus program and sample: strip its data mapping (every ``target data``,
``enter``/``exit data`` and ``target update`` directive and every ``map`` clause of the target
constructs that maps arrays only: the input the issue tried, "data directives removed"), rewrite that with ``s2s
omp``, build both with clang-16 host offload and run them with LIBOMPTARGET_INFO. Prints per
program: the constructs s2s maps optimally / per construct / leaves, whether the rewrite
prints the program's expected output, the constructs the run shows using an unmapped pointer
(which must equal s2s's "left unmapped"), and the bytes moved.

    python scripts/bench_omp_safety.py [--markdown] [NAME ...]

The stripping works from the model's directive and clause spans (s2s's own front end); a
data directive that maps a scalar stays (the program's result depends on it), so do the scalar
items a construct's map clause copies back (its array sections and ``to`` clauses go), and
directives in project headers are left as they are.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from s2s.edits import Edit, EditSet  # noqa: E402
from s2s.frontend.core.parse import ParseOptions  # noqa: E402
from s2s.frontend.extract import load  # noqa: E402
from s2s.verify import omp_harness as harness  # noqa: E402

DIRS = sorted([*(REPO / "testsuite" / "corpus" / "omp").glob("*/sample.toml"),
               *(REPO / "samples" / "openmp").glob("*/sample.toml")])
_COUNT_RE = re.compile(r"(\d+) (target regions mapped|mapped per construct|left unmapped)")
DATA = (("target", "data"), ("target", "enter"), ("target", "exit"), ("target", "update"))


def stripped(path: Path, directory: Path) -> bytes:
    """The file without its data mapping (module doc)."""
    loaded = load(str(path), ParseOptions(user_flags=(f"-I{directory}", "-fopenmp")))
    source = loaded.source
    if loaded.model is None:
        return source
    edits = []
    for directive in loaded.model.directives:
        span = directive.span
        if span.file != str(path) and Path(span.file).resolve() != path.resolve():
            continue
        # only the mapping of arrays goes: a mapped scalar (a flag the kernels set, a
        # reduction result) is part of what the program computes
        arrays_only = all(item.sections for m in directive.maps for item in m.items)
        if directive.words[:2] in DATA and arrays_only:
            start = source.rfind(b"\n", 0, span.start) + 1
            end = source.find(b"\n", span.end - 1)
            edits.append(Edit(str(path), start, (len(source) if end < 0 else end + 1) - start,
                              ""))
        elif directive.is_target_region:
            edits += [_without_sections(path, source, m) for m in directive.maps
                      if any(item.sections for item in m.items) or m.map_type == "to"]
    return EditSet(edits).apply(str(path), source)


def _without_sections(path: Path, source: bytes, clause) -> Edit:
    """The edit removing a construct's map clause, or only its array sections where it maps
    scalars back too (``map(tofrom: count, u[0:n])`` -> ``map(tofrom: count)``): the input
    with its data mapping removed, not one that copies an array in and never back. A ``to``
    clause goes whole: a scalar copied in is what the construct does without it, except a
    struct member (``map(to: m.nnode)``), which maps the struct member by member, so that
    its member pointers reach the kernel as garbage once the sections beside them are gone
    (mesh_struct_byvalue's stripped input crashed)."""
    start, end = clause.span.start, clause.span.end
    kept = [source[i.span.start:i.span.end].decode() for i in clause.items
            if not i.sections and clause.map_type != "to"]
    if not kept:
        return Edit(str(path), start, end - start, "")
    prefix = ":".join(source[start:end].decode().split(":")[:1]) + ": " \
        if ":" in source[start:clause.items[0].span.start].decode() else "map("
    return Edit(str(path), start, end - start, f"{prefix}{', '.join(kept)})")


def measure(toml: Path, work: Path) -> dict:
    directory = toml.parent
    meta = tomllib.loads(toml.read_text())
    sources = [str(s) for s in meta["sources"]]
    plain = work / "plain"
    plain.mkdir(parents=True)
    for name in sources:
        (plain / name).parent.mkdir(parents=True, exist_ok=True)
        (plain / name).write_bytes(stripped(directory / name, directory))
    proc = subprocess.run([sys.executable, "-m", "s2s", "omp", "-o", str(work / "out"),
                           *sources, "--", f"-I{directory}"], cwd=plain, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(REPO)))
    last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
    counts = {what: int(n) for n, what in _COUNT_RE.findall(last)}
    row = {"name": directory.name, "s2s_exit": proc.returncode,
           "kinds": tuple(counts.get(k, 0) for k in
                          ("target regions mapped", "mapped per construct", "left unmapped"))}
    args = [str(a) for a in meta.get("args", [])]
    expected = (directory / "expected_output.txt").read_text() \
        if (directory / "expected_output.txt").is_file() else None
    for label, files in (("plain", [plain / s for s in sources]),
                         ("s2s", [work / "out" / s if (work / "out" / s).is_file()
                                  else plain / s for s in sources])):
        try:
            harness.build(files, work / f"{label}.exe", meta.get("lang"), extra_flags=[f"-I{directory}"])
            run = harness.run(work / f"{label}.exe", args, timeout=300, cwd=directory)
        except Exception as error:  # noqa: BLE001 - reported in the row
            row[label] = f"error: {type(error).__name__}: {getattr(error, 'stderr', error)}"[:300]
            continue
        same = expected is None or harness.compare_outputs(
            expected, run.stdout, float(meta.get("tolerance", 0.0))) is None
        row[label] = (run.returncode == 0 and same, harness.unmapped_constructs(run),
                      run.copies.total_bytes)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="s2s_safety_") as tmp:
        for toml in DIRS:
            if args.names and toml.parent.name not in args.names:
                continue
            rows.append(measure(toml, Path(tmp) / toml.parent.name))
            if not args.markdown:
                print(rows[-1], flush=True)
    if args.markdown:
        print("| program | s2s: optimal / per construct / left | stripped: correct, unmapped |"
              " s2s: correct, unmapped (run) | s2s bytes |")
        print("| --- | --- | --- | --- | ---: |")
        for r in rows:
            def cell(value):
                return value if isinstance(value, str) else \
                    f"{'yes' if value[0] else 'NO'}, {value[1]}"
            kinds = " / ".join(map(str, r["kinds"]))
            nbytes = f"{r['s2s'][2]:,}" if not isinstance(r.get("s2s"), str) else "-"
            print(f"| {r['name']} | {kinds} | {cell(r['plain'])} | {cell(r['s2s'])} | "
                  f"{nbytes} |")


if __name__ == "__main__":
    main()
