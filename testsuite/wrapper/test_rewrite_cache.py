"""The launcher's cache of whole rewrites (s2s.run_cache.cached_chain) and the checked parse a
chain hands to its next pass (issue 30: ``s2s nvcc --s2s-passes=...`` on an unchanged file runs
no pass).

A two-launch CUDA program whose kernel is in a project header; fuse rewrites it, transfers
then loads fuse's output. Whether a run was a hit is told by counting the calls of the real
passes; parses are counted at libclang's door (``parse._parse``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from s2s import run_cache
from s2s.frontend.core import parse, parse_reuse
from s2s.frontend.core.parse import ParseOptions
from s2s.transform import registry
from s2s.wrapper.args import Source
from s2s.wrapper.rewrite import chain_passes, rewrite_source

HEADER = (b"#define N 1024\n__global__ void scale(float *a, float s) {\n"
          b"  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) a[i] *= s; }\n")
MAIN = b"""#include "scale.h"
int main() {
  float *d_a, *d_b;
  cudaMalloc(&d_a, N * sizeof(float));
  cudaMalloc(&d_b, N * sizeof(float));
  scale<<<N / 256, 256>>>(d_a, 2.0f);
  scale<<<N / 256, 256>>>(d_b, 3.0f);
  cudaFree(d_a); cudaFree(d_b);
  return 0;
}
"""


@pytest.fixture
def program(tmp_path, fact_cache_on, monkeypatch):
    """main.cu and scale.h in the working directory; the list of pass runs made."""
    (tmp_path / "main.cu").write_bytes(MAIN)
    (tmp_path / "scale.h").write_bytes(HEADER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("S2S_FUSE_NVCC", "0")     # (no register counts: no nvcc needed)
    runs: list[str] = []

    def counted(name):
        real = registry.get(name)

        def run(loaded):
            runs.append(name)
            return real(loaded)
        run.__module__, run.__qualname__ = real.__module__, real.__qualname__
        return name, run

    return runs, [counted("fuse"), counted("transfers")]


def _rewrite(passes):
    source = Source(index=0, path="main.cu", language="cuda")
    return rewrite_source(source, ParseOptions(language="cuda"), passes)


def test_a_second_rewrite_of_an_unchanged_file_runs_no_pass(program):
    runs, passes = program
    first = _rewrite(passes)
    assert runs == ["fuse", "transfers"] and first.changed and b"s2s_fused_0" in first.after
    second = _rewrite(passes)
    assert runs == ["fuse", "transfers"]          # replayed
    assert (second.before, second.after, second.diagnostics, second.generated) == \
        (first.before, first.after, first.diagnostics, first.generated)


def test_an_edited_header_another_pass_list_or_switch_misses(program, monkeypatch):
    runs, passes = program
    _rewrite(passes)
    stamp = os.stat("scale.h")
    Path("scale.h").write_bytes(HEADER.replace(b"1024", b"2048"))   # same size and time
    os.utime("scale.h", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    edited = _rewrite(passes)
    assert runs == ["fuse", "transfers"] * 2 and edited.changed
    _rewrite(passes[:1])
    assert runs[-1] == "fuse" and len(runs) == 5
    monkeypatch.setenv("S2S_SOME_SWITCH", "1")        # (any S2S_ variable is in the key)
    _rewrite(passes)
    assert len(runs) == 7


def test_no_cache_keeps_nothing(program, monkeypatch):
    runs, passes = program
    monkeypatch.setenv("S2S_NO_CACHE", "1")
    _rewrite(passes)
    _rewrite(passes)
    assert runs == ["fuse", "transfers"] * 2


def test_the_checked_parse_of_a_rewrite_is_the_next_pass_s_load(program, monkeypatch):
    """fuse's rewrite is parsed once: its check's parse is transfers' input, with the
    same result as two parses."""
    _, passes = program
    monkeypatch.setenv("S2S_NO_CACHE", "1")
    parses: list[bytes] = []
    real = parse._parse

    def counted(path, args, source, *rest, **kwargs):
        parses.append(source)
        return real(path, args, source, *rest, **kwargs)

    monkeypatch.setattr(parse, "_parse", counted)
    from s2s.driver import RunOptions

    options = RunOptions(parse=ParseOptions(language="cuda"))
    reused = chain_passes("main.cu", options, passes)
    # the original (fuse's load), fuse's rewrite (its check; transfers' load takes that
    # parse), transfers' rewrite (its check)
    assert len(parses) == 3 and parses[0] == MAIN and parses[2] == reused.after
    fused = parses[1]
    assert b"s2s_fused_0" in fused and fused != reused.after
    parses.clear()
    monkeypatch.setattr(parse_reuse, "keep_checked", lambda parsed, options: None)
    fresh = chain_passes("main.cu", options, passes)
    assert parses == [MAIN, fused, fused, reused.after]
    assert (fresh.after, fresh.diagnostics) == (reused.after, reused.diagnostics)


def test_the_key_holds_the_passes_and_the_switches(monkeypatch):
    options = ParseOptions(language="cuda")
    first = run_cache.chain_kind([("fuse", registry.get("fuse"))], options)
    assert first != run_cache.chain_kind([("transfers", registry.get("transfers"))], options)
    monkeypatch.setenv("S2S_FUSE_NVCC", "0")
    assert first != run_cache.chain_kind([("fuse", registry.get("fuse"))], options)
    monkeypatch.setenv("S2S_JOBS", "4")                 # how many run: not a result
    assert run_cache.chain_kind([("fuse", registry.get("fuse"))], options) == \
        run_cache.chain_kind([("fuse", registry.get("fuse"))], options)


def test_a_deferred_pass_is_the_pass_once_resolved(program):
    """The launcher names the built-in passes without importing them (a replayed rewrite
    needs none); a rewrite that runs resolves each to the registered pass itself."""
    deferred = registry.Deferred("fuse")
    assert registry.resolved(deferred) is registry.get("fuse")
    assert registry.resolved(registry.get("fuse")) is registry.get("fuse")
    runs, passes = program
    first = _rewrite([("fuse", deferred)])
    assert first.changed and runs == []          # (the real pass ran, not the counted one)
    assert _rewrite([("fuse", deferred)]) == first


_REPLAY_IN_A_FRESH_PROCESS = """
import sys
from s2s.frontend.core.parse import ParseOptions
from s2s.transform import registry
from s2s.wrapper.args import Source
from s2s.wrapper.rewrite import rewrite_source

passes = [(name, registry.deferred(name)) for name in ("fuse", "transfers")]
result = rewrite_source(Source(index=0, path="main.cu", language="cuda"),
                        ParseOptions(language="cuda"), passes)
assert b"s2s_fused_0" in result.after
print(" ".join(sorted(m for m in ("s2s.driver", "s2s.frontend.extract", "islpy",
                                  "s2s.model.cuda", "s2s.transform.fuse") if m in sys.modules)))
"""


def test_a_replayed_rewrite_imports_neither_the_driver_nor_the_extractor(program):
    """Start-up of a warm compile (issue 30): a process that replays its rewrite from the
    cache loads no pass, no extractor, no driver and none of the model's fact classes (the
    first process computes the rewrite and does load them)."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    ran = [subprocess.run([sys.executable, "-c", _REPLAY_IN_A_FRESH_PROCESS], env=env,
                          capture_output=True, text=True, timeout=300) for _ in range(2)]
    assert [r.returncode for r in ran] == [0, 0], ran[0].stderr + ran[1].stderr
    assert ran[0].stdout.split() == ["islpy", "s2s.driver", "s2s.frontend.extract",
                                     "s2s.model.cuda", "s2s.transform.fuse"]
    assert ran[1].stdout.split() == []
