"""Every pass's compile check compares with the original (issue 29, item 1): only errors the
rewrite introduces count, the calls CUDA 13 removed are mapped as every pass maps them, and a
user's ``-D`` of one is honoured."""

from __future__ import annotations

from dataclasses import replace

import pytest

from s2s.diagnostics import Diagnostic, Location
from s2s.driver import RunOptions, process_file
from s2s.edits import Edit, EditSet, original_lines
from s2s.frontend.core.parse import ParseOptions
from s2s.model.cuda_legacy import LEGACY_CALLS, legacy_defines
from s2s.transform import nvcc_check
from s2s.transform.check import introduced
from s2s.transform.fuse import run_fuse
from s2s.transform.transfers import run_transfers

NVCC = nvcc_check.find_nvcc("/usr/local/cuda")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed: the compile "
                                "check is the libclang parse alone")

SOURCE = b"a\nb\nc\nd\ne\n"


def test_lines_map_through_insertions_and_replacements():
    edits = (Edit("f", 2, 0, "x\ny\n"),            # two lines before line 2
             Edit("f", 6, 3, "z"))                 # lines 4-5 ("d\ne") become one line
    rewritten = EditSet(edits).apply("f", SOURCE).split(b"\n")
    assert rewritten[:6] == [b"a", b"x", b"y", b"b", b"c", b"z"]
    assert original_lines(SOURCE, edits, 1) == (1, 1, False)
    assert original_lines(SOURCE, edits, 2) == (2, 2, True)      # inserted text
    assert original_lines(SOURCE, edits, 4) == (2, 2, True)      # the line it was inserted into
    assert original_lines(SOURCE, edits, 5) == (3, 3, False)     # c, shifted by two
    assert original_lines(SOURCE, edits, 6) == (4, 5, True)      # replaced d..e


def _error(line: int | None, text: str) -> Diagnostic:
    where = Location("f", line, 1, 0) if line else None
    return Diagnostic.error(f"nvcc: {text}", "nvcc-error", where)


def test_only_errors_the_rewrite_introduces_count():
    edits = (Edit("f", 2, 0, "x\ny\n"),)
    original = [_error(3, 'identifier "old" is undefined'), _error(None, "link")]
    rewrite = [_error(5, 'identifier "old" is undefined'),    # line 3, moved down by two
               _error(1, 'identifier "old" is undefined'),    # line 1: not the original's
               _error(2, 'identifier "old" is undefined'),    # copied by the edit's text
               _error(2, 'identifier "new" is undefined'),    # the rewrite's own
               _error(None, "link")]
    kept = introduced(rewrite, original, SOURCE, edits)
    assert [(d.location.line, d.message) for d in kept] == [
        (1, 'nvcc: identifier "old" is undefined'), (2, 'nvcc: identifier "new" is undefined')]


def test_legacy_table_is_what_every_user_maps():
    from s2s.analysis.fuse.graph import SYNC
    from s2s.analysis.mgpu.plan import SUPPORTED_API
    assert SUPPORTED_API["cudaThreadSynchronize"] == SUPPORTED_API["cudaDeviceSynchronize"]
    assert SUPPORTED_API["cudaThreadExit"] == SUPPORTED_API["cudaDeviceReset"]
    assert "cudaThreadSynchronize" in SYNC
    lines = legacy_defines(["cudaThreadExit"])
    assert "#define cudaThreadSynchronize cudaDeviceSynchronize\n" in lines
    assert "cudaThreadExit" not in lines           # the user's -D/-U names it: theirs
    assert all(old in legacy_defines() for old in LEGACY_CALLS)


LEGACY = """\
#include <cstdio>

__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}

__global__ void shift(float *x, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] + b;
}

int main()
{
    const int n = 1000;
    float h[1000], *d, *e;
    for (int i = 0; i < n; i++) h[i] = i;
    cudaMalloc((void **)&d, n * sizeof(float));
    cudaMalloc((void **)&e, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(n + 127) / 128, 128>>>(d, 2.0f, n);
    shift<<<(n + 127) / 128, 128>>>(d, 1.0f, n);
    cudaThreadSynchronize();
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
    cudaFree(e);
    printf("%f\\n", h[7]);
    cudaThreadExit();
    return 0;
}
"""


@pytest.fixture
def nvcc_on(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("S2S_NVCC_CHECK", "1")     # the suite's conftest turns it off


def _run(tmp_path, text: str, run_pass, flags: tuple[str, ...] = ()):
    path = tmp_path / "prog.cu"
    path.write_text(text)
    options = RunOptions(parse=replace(ParseOptions(), user_flags=flags, nvcc_check=True))
    return process_file(str(path), options, run_pass)


def _said(result) -> list[str]:
    """The warnings and errors of a result (its notes explain the rewrite)."""
    return [d.headline() for d in result.diagnostics if d.severity.name != "NOTE"]


@needs_nvcc
@pytest.mark.parametrize("flags", [(), ("-DcudaThreadSynchronize=cudaDeviceSynchronize",)])
def test_fuse_and_transfers_rewrite_a_program_with_removed_calls(tmp_path, nvcc_on, flags):
    """nvcc 13 rejects cudaThreadSynchronize: mapped as fuse maps it, the fused rewrite is
    checked and emitted; the user's own -D of it is honoured, not a conflict."""
    fused = _run(tmp_path, LEGACY, run_fuse, flags)
    assert not fused.incomplete and not _said(fused), _said(fused)
    after = fused.change.after.decode()
    assert after.count("<<<") == 1 and "cudaThreadSynchronize();" in after
    merged = _run(tmp_path, LEGACY, run_transfers, flags)
    assert not merged.incomplete and not _said(merged), _said(merged)
    assert merged.change.after.count(b"cudaMalloc(") == 1


@needs_nvcc
def test_the_originals_own_error_is_not_the_rewrites(tmp_path, nvcc_on):
    """A call nvcc rejects in the original too (a constexpr host function in a kernel) stays
    an error in the fused kernel that repeats it: the rewrite is emitted, with a warning."""
    text = LEGACY.replace("#include <cstdio>\n", "#include <cstdio>\nconstexpr float two() "
                          "{ return 2.0f; }\n").replace("x[i] = a * x[i]", "x[i] = two() * a * x[i]")
    fused = _run(tmp_path, text, run_fuse)
    assert not fused.incomplete and fused.change.after.count(b"<<<") == 1
    (said,) = [d for d in fused.diagnostics if d.severity.name != "NOTE"]
    assert said.id == "nvcc-original-error" and "constexpr __host__" in said.message
    assert said.location.line == 7


ALL_REMOVED = """\
int main()
{
    size_t value;
    enum cudaFuncCache config;
    cudaThreadSetLimit(cudaLimitStackSize, 4096);
    cudaThreadGetLimit(&value, cudaLimitStackSize);
    cudaThreadSetCacheConfig(cudaFuncCachePreferL1);
    cudaThreadGetCacheConfig(&config);
    cudaThreadSynchronize();
    cudaThreadExit();
    return (int)value + (int)config;
}
"""


@needs_nvcc
def test_every_removed_call_parses_and_its_replacement_compiles(tmp_path, nvcc_on):
    """The parse declares each call of the table (the stub s2s_cuda_legacy.h) and nvcc 13
    compiles each as the table maps it."""
    from s2s.frontend.extract import load
    path = tmp_path / "legacy.cu"
    path.write_text(ALL_REMOVED)
    loaded = load(str(path), ParseOptions())
    assert loaded.model is not None, [d.headline() for d in loaded.diagnostics]
    assert {c.name for c in loaded.model.api_calls} == set(LEGACY_CALLS)
    assert nvcc_check.nvcc_errors(ALL_REMOVED.encode(), str(path), [], "sm_90", NVCC) == []
