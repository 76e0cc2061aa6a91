"""``s2s mgpu`` on kernels in project headers and on the CUDA API real programs use (issue 18):
source-level checks, no build."""

from __future__ import annotations

from dataclasses import replace

from mgpu_support import table_text, write_rewrite

from s2s.driver import RunOptions, process_file
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.transform.mgpu import run_mgpu

MAIN = """\
#include <cstdio>
#include "kernels.cuh"
int main()
{
    float *x;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    cudaMalloc(&x, 400);
    cudaMemcpyToSymbol(coef, &prop.warpSize, sizeof(int));
    bump<<<1, 100>>>(x);
    cudaThreadSynchronize();
    return 0;
}
"""
KERNELS = """\
#pragma once
__constant__ int coef;
__device__ float twice(float v) { return COEF_SCALE * v; }
__global__ void bump(float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = twice(x[i]) + coef;
}
"""


def _rewrite(tmp_path, header: str = KERNELS):
    (tmp_path / "inc").mkdir(exist_ok=True)
    (tmp_path / "inc" / "kernels.cuh").write_text(header)
    path = tmp_path / "main.cu"
    path.write_text(MAIN)
    parse = replace(ParseOptions(), user_flags=("-Iinc", "-DCOEF_SCALE=2"))
    return process_file(str(path), RunOptions(parse=parse), run_mgpu), path


def test_header_kernels_join_the_table_and_the_api_is_redirected(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result, _ = _rewrite(tmp_path)
    said = [d for d in result.diagnostics if d.id != "mgpu-explain"]   # only the edits' reasons
    assert result.change.changed and not said, [d.headline() for d in said]
    after = result.change.after.decode()
    for name, target in (("cudaGetDeviceProperties", "GetDeviceProperties"),
                         ("cudaMemcpyToSymbol", "MemcpyToSymbol"),
                         ("cudaThreadSynchronize", "DeviceSynchronize")):
        assert f"#define {name} s2s_mgpu::{target}\n" in after
    assert "cudaDeviceProp s2s" not in after and "#define cudaDeviceProp" not in after
    table = table_text(result)                  # the kernel table, generated beside the file
    assert '{reinterpret_cast<const void *>(bump), "bump",' in table
    assert '\\"partitionable\\":true' in table                  # twice() inlined from the header
    assert '{static_cast<const void *>(&coef), "coef"},' in table
    assert f'"-I{tmp_path}/inc\\n" "-DCOEF_SCALE=2", "bump",' in table   # flags, exported by name


def test_output_reparses_without_extra_flags_and_a_second_run_changes_nothing(tmp_path,
                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    result, path = _rewrite(tmp_path)
    write_rewrite(result, path)
    again = process_file(str(path), RunOptions(parse=replace(
        ParseOptions(), user_flags=("-Iinc", "-DCOEF_SCALE=2"))), run_mgpu)
    assert again.loaded.ok and not again.changed and again.generated == ()


def test_host_cuda_code_in_a_header_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    header = KERNELS + "inline void helper(float *x) { bump<<<1, 1>>>(x); cudaFree(x); }\n"
    result, _ = _rewrite(tmp_path, header)
    assert result.status == "failed"
    said = [result.diagnostics[0], *result.diagnostics[0].notes]
    assert said[0].id == "mgpu-launch" and "in a project header" in said[0].message
    assert said[0].location.file.endswith("kernels.cuh")
    # the header's cudaFree is redirected by the prologue as in every project header (issue
    # 29): only the launch, which the rewrite cannot edit there, refuses the file
    assert not any(d.id == "mgpu-api" for d in said), [d.message for d in said]


def test_device_properties_construction_is_not_an_api_call(tmp_path):
    path = tmp_path / "p.cu"
    path.write_text("int main() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0); "
                    "cudaThreadSynchronize(); return 0; }\n")
    loaded = load(str(path))
    assert loaded.model is not None, loaded.diagnostics
    assert [c.name for c in loaded.model.api_calls] == ["cudaGetDeviceProperties",
                                                        "cudaThreadSynchronize"]


def test_a_rewrite_that_does_not_parse_is_not_emitted(tmp_path, monkeypatch):
    from s2s.transform import mgpu

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(mgpu, "prologue", lambda plan, legacy=False: "#include <s2s_mgpu.h>\nnot C++ at all\n")
    result, _ = _rewrite(tmp_path)
    assert not result.change.changed and result.incomplete
    [said] = [d for d in result.diagnostics if d.id == "mgpu-rewrite-invalid"]
    assert said.message.startswith("the rewrite of the file for the s2s runtime does not compile")


def test_a_header_that_needs_its_includer_is_read_in_its_context(tmp_path, monkeypatch):
    """A header using a macro and a struct the .cu file defines before including it does not
    parse alone (issue 29 item 3): its kernel is read from the .cu file's own parse, planned
    and partitioned like the file's own, and the helper it calls is known."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helpers.cuh").write_text(
        "__device__ float halve(float v) { return v / DIVISOR; }\n"
        "__global__ void shrink(span_t s) { int i = blockIdx.x * BLOCK + threadIdx.x;\n"
        "    if (i < s.n) s.p[i] = halve(s.p[i]); }\n")
    path = tmp_path / "own.cu"
    path.write_text("#define DIVISOR 2\n#define BLOCK 32\nstruct span_t { float *p; int n; };\n"
                    "#include \"helpers.cuh\"\n"
                    "int main() { float *x; cudaMalloc(&x, 256); span_t s = {x, 64};\n"
                    "    shrink<<<2, BLOCK>>>(s); return 0; }\n")
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "ok", result.diagnostics
    text = result.change.after.decode()
    assert "s2s_mgpu_launch(shrink, 2, BLOCK)(s);" in text
    assert '{reinterpret_cast<const void *>(shrink), "shrink",' in table_text(result)
    assert not [d for d in result.diagnostics if d.id in ("cuda-header", "mgpu-launch")]


def test_the_corpus_project_through_its_compilation_database(capsys):
    """``s2s mgpu -p DIR``: flags from compile_commands.json (a relative directory), kernels from
    src/kernels/*.cuh, -I made absolute for the runtime."""
    from pathlib import Path

    from s2s.cli.main import main

    project = Path(__file__).resolve().parents[1] / "corpus" / "cuda" / "particles_project"
    assert main(["mgpu", "-p", str(project), "--diff"]) == 0
    out = capsys.readouterr().out
    assert f'"-I{project}/include\\n" "-DPARTICLE_COUNT=3000"' in out
    assert '{reinterpret_cast<const void *>(accelerate), "accelerate",' in out
    assert '"accelerate;advance"' in out                     # exported by name


def test_a_kernel_declared_behind_a_header_macro_is_found(tmp_path, monkeypatch):
    """Declared through a macro of a header that does not parse alone: read in the file's
    context, the declaration is seen (defined in another .cu file, as for the file's own
    declarations), where it used to be "not defined in this file or a project header"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "decl.cuh").write_text("#define SCALE_KERNEL(name) __global__ void name(REAL *x)\n"
                                       "SCALE_KERNEL(elsewhere);\n")
    path = tmp_path / "use.cu"
    path.write_text("#define REAL float\n#include \"decl.cuh\"\n"
                    "int main() { float *x; cudaMalloc(&x, 4); elsewhere<<<1, 1>>>(x); return 0; }\n")
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "ok", result.diagnostics
    assert "s2s_mgpu_launch(elsewhere, 1, 1)(x)" in result.change.after.decode()


def test_a_header_kernel_under_cuda_arch_is_read_on_the_device_side(tmp_path, monkeypatch):
    """The .cu file never names ``__CUDA_ARCH__``, its header does: the file is parsed on both
    sides, so the header's kernel is the device code (partitioned), not the host branch
    (which writes x[0] from every block: one device)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cuh").write_text("__global__ void fill(float *x) {\n#ifdef __CUDA_ARCH__\n"
                                    "    x[blockIdx.x * BLOCK + threadIdx.x] = 1.0f;\n#else\n"
                                    "    x[0] = -1.0f;\n#endif\n}\n")
    path = tmp_path / "a.cu"
    path.write_text("#define BLOCK 32\n#include \"k.cuh\"\n"
                    "int main() { float *x; cudaMalloc(&x, 256); fill<<<2, BLOCK>>>(x); return 0; }\n")
    assert load(str(path)).model.sides == ("host", "device")
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "ok" and result.change.changed
    assert not [d for d in result.diagnostics if d.id == "mgpu-one-device"], result.diagnostics


WRAPPERS = """\
#ifndef DEVICE_IO_H
#define DEVICE_IO_H
static float *device_alloc(int n) { float *p = 0; cudaMalloc((void **)&p, n * 4); return p; }
static void copy_to_device(float *d, const float *h, int n)
{ cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice); }
/* cudaFooBar(x) in a comment is no call */
#endif
"""
USES_WRAPPERS = """\
#include <cstdio>
#include "device_io.h"
__global__ void bump(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] += 1; }
int main()
{
    float h[32] = {0};
    float *d = device_alloc(32);
    copy_to_device(d, h, 32);
    bump<<<1, 32>>>(d, 32);
    cudaFree(d);
    return 0;
}
"""


def test_runtime_calls_in_a_host_header_are_redirected_before_its_include(tmp_path,
                                                                           monkeypatch):
    """device_io.h's wrappers call cudaMalloc/cudaMemcpy (issue 29 item 4): the prologue goes
    before the header's #include and redirects its calls too, not only the file's cudaFree."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "device_io.h").write_text(WRAPPERS)
    (tmp_path / "main.cu").write_text(USES_WRAPPERS)
    result = process_file(str(tmp_path / "main.cu"), RunOptions(), run_mgpu)
    assert result.change.changed, [d.headline() for d in result.diagnostics]
    after = result.change.after.decode()
    prologue = after.index("#include <s2s_mgpu.h>")
    assert after.index("#include <cstdio>") < prologue < after.index('#include "device_io.h"')
    for name in ("cudaMalloc", "cudaMemcpy", "cudaFree"):
        assert f"#define {name} s2s_mgpu::" in after
    assert "cudaFooBar" not in after
