"""Golden tests of the front end on every bundled sample.

Each sample source is loaded (as ``s2s inspect`` does) and summarised: what was found and
where (line numbers), without byte offsets so that goldens stay reviewable. The summary must
equal ``testsuite/golden/<language>/<sample>__<file>.json``; regenerate after an intended
change with ``pytest testsuite/test_samples_inspect.py --update-goldens`` and review the diff.
Independently of the goldens, the hand-written ``[expect]`` table of each sample.toml names
the entities that must be found, and no sample may produce a libclang error or warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, sample_dirs, sample_meta

from s2s.edits import EditSet
from s2s.frontend.extract import load

GOLDEN = Path(__file__).parent / "golden"


def sample_sources():
    for language in ("cuda", "openmp"):
        for directory in sample_dirs(language):
            meta = sample_meta(directory)
            for source in meta["sources"]:
                yield pytest.param(language, directory, source,
                                   id=f"{language}/{directory.name}/{source}")


def summarize(model) -> dict:
    """What a reader of ``s2s inspect`` sees, as plain data with line numbers."""

    def at(span):
        where = f"{span.line}:{span.column}"
        if span.macro:
            where += f" macro {span.macro}"
        if span.template:
            where += f" template {span.template}"
        return where

    return {
        "kernels": [{
            "name": k.name, "global": k.is_global, "at": at(k.span),
            "params": [f"{p.type} {p.name}" + "".join(
                f" [{flag}]" for flag, on in (("pointer", p.is_pointer), ("pointee-const",
                p.pointee_const), ("restrict", p.restrict)) if on) for p in k.params],
            "template_params": list(k.template_params),
            "builtins": sorted({f"{b.var}.{b.component}" for b in k.builtins}),
            "shared": [f"{'extern ' if s.extern else ''}{s.element_type} {s.name}"
                       + "".join(f"[{d}]" for d in s.dims) for s in k.shared_arrays],
            "calls": [f"{c.category}:{c.name}" for c in k.calls],
        } for k in model.kernels + model.device_functions],
        "launches": [{
            "kernel": launch.kernel, "at": at(launch.span), "function": launch.function,
            "config": [launch.grid.text, launch.block.text,
                       launch.shared_bytes.text if launch.shared_bytes else None,
                       launch.stream.text if launch.stream else None],
            "args": [a.text for a in launch.args],
        } for launch in model.launches],
        "api_calls": [f"{at(c.span)}: {c.name}({', '.join(a.text for a in c.args)}) [{c.category}]"
                      for c in model.api_calls],
        "allocations": [f"{at(a.span)}: {a.name} {a.kind} {a.element_type} "
                        f"count={a.count.text if a.count else None} "
                        f"dims={[d.text for d in a.dims]} in {a.function}"
                        for a in model.allocations],
        "directives": [{
            "at": at(d.span), "directive": d.name, "function": d.function, "parent": d.parent,
            "clauses": [c.name for c in d.clauses],
            "maps": [f"{m.clause}(" + ", ".join(m.modifiers) + (", " if m.modifiers else "")
                     + (f"{m.map_type}: " if m.clause == "map" else "")
                     + ", ".join(i.text for i in m.items) + ")" for m in d.maps],
            "statement": [d.stmt_span.line, d.stmt_span.end_line] if d.stmt_span else None,
        } for d in model.directives],
        "functions": [{
            "name": f.name, "at": at(f.span), "params": len(f.params),
            "loops": [f"{s.kind}@{s.span.line}" for s in f.loops],
            "branches": [f"{s.kind}@{s.span.line}" for s in f.branches],
            "calls": [c.name for c in f.calls],
            "directive_statements": [s.directive for s in (f.body.walk() if f.body else ())
                                     if s.directive is not None],
        } for f in model.functions],
    }


@pytest.fixture(scope="module")
def loaded_samples():
    cache = {}

    def get(directory: Path, source: str):
        key = (directory, source)
        if key not in cache:
            cache[key] = load(str((directory / source).relative_to(REPO)))
        return cache[key]

    return get


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch):
    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("language, directory, source", list(sample_sources()))
def test_inspect_matches_golden(language, directory, source, loaded_samples, request):
    loaded = loaded_samples(directory, source)
    problems = [d.headline() for d in loaded.diagnostics if d.id.startswith("clang")]
    assert problems == [], "libclang reported problems on a sample"
    assert loaded.model is not None
    summary = summarize(loaded.model)
    golden = GOLDEN / language / f"{directory.name}__{source}.json"
    if request.config.getoption("--update-goldens"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(summary, indent=1) + "\n")
    assert golden.exists(), f"no golden file {golden}; run with --update-goldens"
    assert summary == json.loads(golden.read_text())


@pytest.mark.parametrize("language, directory, source", list(sample_sources()))
def test_expected_entities(language, directory, source, loaded_samples):
    """The hand-written [expect] table of sample.toml: names a person checked in the source."""
    expect = sample_meta(directory).get("expect", {}).get(source.replace(".", "_"))
    if expect is None:
        pytest.skip(f"{directory.name}/sample.toml has no [expect.{source.replace('.', '_')}]")
    model = loaded_samples(directory, source).model
    if "kernels" in expect:
        assert sorted(k.name for k in model.kernels) == sorted(expect["kernels"])
    if "device_functions" in expect:
        assert sorted(k.name for k in model.device_functions) == sorted(expect["device_functions"])
    if "launches" in expect:
        assert [launch.kernel for launch in model.launches] == expect["launches"]
    if "api_calls" in expect:
        assert len(model.api_calls) == expect["api_calls"]
    if "target_regions" in expect:
        assert len(model.target_regions) == expect["target_regions"]
    if "directives" in expect:
        assert [d.name for d in model.directives] == expect["directives"]
    if "allocations" in expect:
        assert sorted(a.name for a in model.allocations) == sorted(expect["allocations"])
    if "functions" in expect:
        assert [f.name for f in model.functions] == expect["functions"]


@pytest.mark.parametrize("language, directory, source", list(sample_sources()))
def test_empty_edit_set_round_trips_byte_for_byte(language, directory, source):
    path = directory / source
    data = path.read_bytes()
    assert EditSet().apply(str(path), data) == data
