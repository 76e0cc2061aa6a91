"""Fused code always compiles and is right (issue 19, item 5): random launch sequences.

Each program of :mod:`s2s.verify.fuse_gen` holds 20 independent sequences (maps, updates,
stencils, atomic reductions, 2-D maps, ``__device__`` helpers taking references, templates;
``const`` / ``__restrict__`` / ``volatile`` mixtures; float and double). ``s2s fuse`` must
rewrite it without dropping anything and the rewrite must compile with ``nvcc -c
-arch=sm_90``: 200 sequences here (8 float/double programs and 2 ``__half`` ones), all fused
files compiled by one nvcc call (its start-up cost paid once). The original and fused
programs of the first 4 float/double programs (80 sequences) must also copy back the same
bits on the cpu devices; replaying is the expensive part (the cpu devices compile every
kernel), so ``scripts/bench_fuse_random.py`` replays many more. The cpu devices do not
emulate ``__half``.
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
REPLAYED = list(range(4))          # float / double programs: nvcc and cpu devices
COMPILED = list(range(4, 8))       # float / double programs: nvcc
HALF = [100, 101]                  # __half programs: nvcc


def nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found is None and Path("/usr/local/cuda/bin/nvcc").is_file():
        found = "/usr/local/cuda/bin/nvcc"
    return found


@pytest.fixture(scope="module")
def runtime():
    return Runtime("cpu", 1, threads=2)


def _fuse(program, directory: Path) -> tuple[Path, Success]:
    path = directory / f"random_{program.seed}.cu"
    path.write_text(program.source)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert isinstance(result, Success), [d.headline() for d in result.diagnostics]
    assert not result.incomplete, [d.headline() for d in result.diagnostics
                                   if d.id == INVALID_ID]
    return path, result


@pytest.fixture(scope="module")
def fused(tmp_path_factory):
    """seed -> (program, original path, fused bytes) of every program, fused once."""
    directory = tmp_path_factory.mktemp("random")
    found = {}
    for seed in REPLAYED + COMPILED + HALF:
        program = generate(seed, SEQUENCES, dtype="__half" if seed in HALF else None)
        path, result = _fuse(program, directory)
        found[seed] = (program, path, result.change.after)
    return found


@pytest.mark.parametrize("seed", REPLAYED + COMPILED + HALF)
def test_random_sequences_fuse(seed, fused):
    program, _path, after = fused[seed]
    assert program.runnable == (seed not in HALF)
    assert after.count(b"s2s_fused_") > 0, "nothing was fused"


def test_template_instantiations_are_fused(fused):
    """The template kernels (``k<float, 128>``, ``k<double>``) are stages of fused kernels,
    instantiated at the call with the launch's arguments."""
    calls = sum(after.count(b"_template<") for _program, _path, after in fused.values())
    launched = sum(program.source.count("_template<") for program, _path, _a in fused.values())
    assert launched > 0 and calls >= launched // 2, (calls, launched)


def test_every_fused_file_compiles_in_one_nvcc_call(fused, tmp_path):
    compiler = nvcc()
    if compiler is None:
        pytest.skip("nvcc not found: the fused files were not compiled")
    files = []
    for seed, (_program, _path, after) in sorted(fused.items()):
        files.append(tmp_path / f"fused_{seed}.cu")
        files[-1].write_bytes(after)
    assert sum(program.sequences for program, _p, _a in fused.values()) >= 200
    proc = subprocess.run([compiler, "-c", "-arch=sm_90", "-odir", str(tmp_path), *map(str, files)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert all(f.with_suffix(".o").is_file() for f in files)


@pytest.mark.parametrize("seed", REPLAYED)
def test_random_sequences_match_on_cpu_devices(seed, fused, runtime):
    program, path, after = fused[seed]
    before = replay(str(path), runtime=runtime, module_source=after, traffic=False)
    result = replay(str(path), source=after, runtime=runtime, traffic=False,
                    instantiate=before.instantiated)
    assert len(before.launches) == program.launches
    assert len(result.launches) < len(before.launches), "nothing was fused"
    assert len(before.outputs) >= SEQUENCES
    assert compare(before, result) == []


def test_generator_is_reproducible_and_varied():
    one, again = generate(3, 4), generate(3, 4)
    assert one.source == again.source
    kinds = "".join(generate(s, SEQUENCES).source for s in REPLAYED + COMPILED)
    for word in ("__restrict__", "__restrict ", "volatile", "const &", "template <typename T",
                 "int B>",
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
