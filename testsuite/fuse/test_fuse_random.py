"""Fused code always compiles and is right (issue 19, item 5): random launch sequences.

Each program of :mod:`s2s.verify.fuse_gen` holds 20 independent sequences (maps, updates,
stencils, atomic reductions, 2-D maps, ``__device__`` helpers taking references, templates;
``const`` / ``__restrict__`` / ``volatile`` mixtures; float and double). ``s2s fuse`` must
rewrite it without dropping anything, the rewrite must compile with ``nvcc -c -arch=sm_90``,
and the original and fused programs must copy back the same bits on the cpu devices. The
``__half`` programs are checked with nvcc only (the cpu devices do not emulate half).
160 + 40 sequences here; ``scripts/bench_fuse_random.py`` runs more.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from runtime.api import Runtime
from s2s.cli.main import main as cli_main
from s2s.driver import RunOptions, Success, process_file
from s2s.transform import fuse_codegen
from s2s.transform.fuse import INVALID_ID, run_fuse
from s2s.verify.fuse_gen import generate
from s2s.verify.fuse_replay import compare, replay

SEQUENCES = 20
RUNNABLE = list(range(8))          # float / double programs: nvcc and cpu devices
HALF = [100, 101]                  # __half programs: nvcc only


def nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found is None and Path("/usr/local/cuda/bin/nvcc").is_file():
        found = "/usr/local/cuda/bin/nvcc"
    return found


@pytest.fixture(scope="module")
def runtime():
    return Runtime("cpu", 1, threads=2)


def _fuse(program, tmp_path: Path) -> tuple[Path, Success]:
    path = tmp_path / f"random_{program.seed}.cu"
    path.write_text(program.source)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success), [d.headline() for d in result.diagnostics]
    assert not result.incomplete, [d.headline() for d in result.diagnostics
                                   if d.id == INVALID_ID]
    return path, result


def _start_nvcc(source: bytes, tmp_path: Path):
    """nvcc on the fused file, in the background while the cpu devices run."""
    compiler = nvcc()
    if compiler is None:
        return None
    fused = tmp_path / "fused.cu"
    fused.write_bytes(source)
    return subprocess.Popen([compiler, "-c", "-arch=sm_90", str(fused), "-o",
                             str(tmp_path / "fused.o")], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _finish_nvcc(proc) -> None:
    if proc is None:
        pytest.skip("nvcc not found: the fused file was not compiled (the outputs were compared)")
    out, _ = proc.communicate()
    assert proc.returncode == 0, out[-4000:]


@pytest.mark.parametrize("seed", RUNNABLE)
def test_random_sequences_fuse_compile_and_match(seed, tmp_path, runtime):
    program = generate(seed, SEQUENCES)
    path, result = _fuse(program, tmp_path)
    fused = result.change.after
    proc = _start_nvcc(fused, tmp_path)
    before = replay(str(path), runtime=runtime, module_source=fused, traffic=False)
    after = replay(str(path), source=fused, runtime=runtime, traffic=False)
    assert len(before.launches) == program.launches
    assert len(after.launches) < len(before.launches), "nothing was fused"
    assert len(before.outputs) >= SEQUENCES
    assert compare(before, after) == []
    _finish_nvcc(proc)


@pytest.mark.parametrize("seed", HALF)
def test_random_half_sequences_compile(seed, tmp_path):
    program = generate(seed, SEQUENCES, dtype="__half")
    assert not program.runnable
    _path, result = _fuse(program, tmp_path)
    assert result.change.after.count(b"s2s_fused_") > 0, "nothing was fused"
    _finish_nvcc(_start_nvcc(result.change.after, tmp_path))


def test_generator_is_reproducible_and_varied():
    one, again = generate(3, 4), generate(3, 4)
    assert one.source == again.source
    kinds = "".join(generate(s, SEQUENCES).source for s in RUNNABLE)
    for word in ("__restrict__", "__restrict ", "volatile", "const &", "template <typename T>",
                 "atomicAdd", "double", "dim3(16, 8)", "return;", "[i - 1]"):
        assert word in kinds, word


def test_fused_run_that_does_not_compile_is_not_emitted(tmp_path, monkeypatch, capsys):
    """The pass checks its own output: a fused kernel that does not compile (here a stage
    called with an argument too few) drops that run with a warning, and the file exits 1."""
    program = generate(5, 2)
    path = tmp_path / "random.cu"
    path.write_text(program.source)
    good = process_file(str(path), RunOptions(), run_fuse)
    assert good.change.changed and not good.incomplete
    real = fuse_codegen._call

    def broken(*args):
        return real(*args).replace("(", "(1, ", 1)

    monkeypatch.setattr(fuse_codegen, "_call", broken)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert result.incomplete
    warnings = [d for d in result.diagnostics if d.id == INVALID_ID]
    assert warnings and "does not compile" in warnings[0].message
    assert result.change.after.count(b"s2s_fused_") < good.change.after.count(b"s2s_fused_")
    assert cli_main(["fuse", str(path)]) == 1
    assert f"[{INVALID_ID}]" in capsys.readouterr().err
