"""``s2s inspect`` extracts only what it prints (issue 30: on a 1 MB CUDA file the facts only
the passes read were most of its time and peak memory), and the nvcc identity of a compiler
launcher's chain is asked once per nvcc, not once per process.

One small CUDA program, loaded in memory; the nvcc is a fake one in a temporary folder.
"""

from __future__ import annotations

import subprocess
from dataclasses import fields

import pytest

from s2s import run_cache
from s2s.cli.inspect_cmd import TABLE_FIELDS, shown_fields
from s2s.frontend import fact_cache
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.core.toolchain import default_toolchain
from s2s.frontend.extract import ANALYSIS_FIELDS, load
from s2s.model.unit import CALL_ARGUMENTS, TranslationUnit

SOURCE = b"""#include <cuda_runtime.h>
__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i];
}
static void run(float *h, int n) {
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    for (int k = 0; k < 3; ++k)
        scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}
int main() { float h[64] = {0}; run(h, 64); return 0; }
"""
#: s2s's own CUDA headers (a third of the toolkit's parse time)
SHIM = ParseOptions(toolchain=default_toolchain(None))
OPTIONS = ParseOptions(toolchain=SHIM.toolchain, cache=False)


@pytest.fixture(scope="module")
def whole():
    return load("prog.cu", OPTIONS, SOURCE)


@pytest.mark.parametrize("form, access", [("text", False), ("json", False), ("text", True)])
def test_the_printed_fields_are_those_of_the_whole_model_and_the_rest_is_left_out(
        whole, form, access):
    shown = shown_fields(form, access)
    partial = load("prog.cu", OPTIONS, SOURCE, shown=shown)
    assert partial.diagnostics == whole.diagnostics
    for field in fields(TranslationUnit):
        value = getattr(partial.model, field.name)
        if field.name == "functions" and CALL_ARGUMENTS not in shown:
            # the tables print each function's callees, not the calls' arguments
            assert _outline(value) == _outline(whole.model.functions)
            assert not any(c.args for f in value for c in f.calls)
            assert any(c.args for f in whole.model.functions for c in f.calls)
        elif field.name in shown or field.name in ("path", "language", "sides",
                                                   "project_headers"):
            assert value == getattr(whole.model, field.name), field.name
        else:
            assert value == (), field.name
    # the facts left out are really there in the whole model (the check above can fail)
    assert whole.model.var_uses and whole.model.host_args and whole.model.kernel_bodies
    assert all(whole.model.launches and whole.model.functions for _ in (form,))
    assert ("kernel_bodies" in shown) == access
    assert ("array_refs" in shown) == (form == "json") == (CALL_ARGUMENTS in shown)
    assert TABLE_FIELDS <= shown and shown.isdisjoint(ANALYSIS_FIELDS)


def _outline(functions) -> list:
    """What the functions table prints of each function (and every call's place)."""
    return [(f.name, f.span, f.params, len(f.loops), len(f.branches),
             [(c.name, c.span, c.targets) for c in f.calls]) for f in functions]


def test_a_model_of_some_fields_is_never_served_to_a_run_that_needs_them_all(
        tmp_path, fact_cache_on, monkeypatch):
    (tmp_path / "prog.cu").write_bytes(SOURCE)
    monkeypatch.chdir(tmp_path)
    partial = fact_cache.cached_load("prog.cu", SHIM, shown=shown_fields("text", False))
    full = fact_cache.cached_load("prog.cu", SHIM)
    assert not partial.model.var_uses and full.model.var_uses
    again = fact_cache.cached_load("prog.cu", SHIM, shown=shown_fields("text", False))
    assert again.model == partial.model


def _fake_nvcc(folder, script: str):
    real = folder / "nvcc-real"
    real.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 99.1'\n")
    real.chmod(0o755)
    wrapper = folder / "nvcc"
    wrapper.write_text(script.replace("REAL", str(real)))
    wrapper.chmod(0o755)
    return wrapper, real


def test_nvcc_files_follow_a_wrapper_script_and_refuse_one_that_reads_variables(tmp_path):
    wrapper, real = _fake_nvcc(tmp_path, '#!/bin/sh\nexec REAL "$@"\n')
    assert run_cache.nvcc_files(str(wrapper)) == (str(wrapper), str(real))
    assert run_cache.nvcc_files(str(real)) == (str(real),)
    wrapper.write_text('#!/bin/sh\nexec "$CUDA_HOME/bin/nvcc" "$@"\n')
    assert run_cache.nvcc_files(str(wrapper)) == ()


def test_the_nvcc_identity_is_asked_once_and_again_when_its_program_changes(
        tmp_path, fact_cache_on, monkeypatch):
    wrapper, real = _fake_nvcc(tmp_path, '#!/bin/sh\nexec REAL "$@"\n')
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    asked = []
    original = subprocess.run

    def counted(argv, *args, **kwargs):
        asked.append(argv)
        return original(argv, *args, **kwargs)

    monkeypatch.setattr(run_cache.subprocess, "run", counted)
    identities = []
    for edit in (False, False, True):
        if edit:        # a new toolkit behind the same wrapper: a miss
            real.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 99.2'\n")
        monkeypatch.setattr(run_cache, "_MEMO", {})      # a new process
        identities.append(run_cache.nvcc_identity())
    assert len(asked) == 2
    assert "99.1" in identities[0] and identities[1] == identities[0] and "99.2" in identities[2]
