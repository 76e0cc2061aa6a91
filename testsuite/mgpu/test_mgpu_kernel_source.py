"""A rewritten program compiles its kernels at run time (issue 18, item 5): with the user's
-D/-I/-std, whatever precedes the first kernel, and a kernel that does not compile stops the
program with a non-zero exit and the compiler's message (never exit 0 having run no kernel)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace

import pytest
from mgpu_support import NVCC, build, run, write_rewrite

from s2s.driver import RunOptions, process_file
from s2s.frontend.core.parse import ParseOptions
from s2s.transform.mgpu import run_mgpu
from s2s.wrapper.runtime_flags import mgpu_runtime_flags

pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")

PROGRAM = """\
#include <cstdio>
#include "weights.h"
static float host_weight(int i) { return WEIGHT * i; }
#ifdef BREAK_KERNELS
#error the runtime's kernel compiler saw BREAK_KERNELS
#endif
__global__ void weigh(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = WEIGHT * i + BIAS;
}
__global__ void unguarded(float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] += 1.0f;
}
int main()
{
    const int n = 300;
    float h[n], *d;
    cudaMalloc(&d, sizeof(h));
    weigh<<<(n + 63) / 64, 64>>>(d, n);
    unguarded<<<n / 60, 60>>>(d);
    cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    double s = 0;
    for (int i = 0; i < n; ++i) s += h[i] - host_weight(i);
    printf("bias sum %.1f\\n", s);
    return 0;
}
"""


def _rewritten(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "weights.h").write_text("#define WEIGHT 0.5f\n")
    path = tmp_path / "weigh.cu"
    path.write_text(PROGRAM)
    flags = ("-I", str(tmp_path / "inc"), "-DBIAS=2.0f", "-std=c++17")
    options = RunOptions(parse=replace(ParseOptions(), user_flags=flags))
    result = process_file(str(path), options, run_mgpu)
    assert result.change.changed, [d.headline() for d in result.diagnostics]
    out = tmp_path / "out" / "weigh.cu"
    out.parent.mkdir()
    write_rewrite(result, out)
    return out, flags


def test_flags_and_host_code_first_reach_the_kernels_and_a_failed_compile_stops(tmp_path):
    out, flags = _rewritten(tmp_path)
    assert f'"-I{tmp_path}/inc\\n" "-DBIAS=2.0f\\n" "-std=c++17"' in \
        (out.parent / "weigh.cu.s2s_mgpu.h").read_text()
    exe = build(out, tmp_path / "weigh", extra=list(flags))
    for devices in (1, 2):
        stdout, stats = run(exe, devices, stats=tmp_path / "stats.json")
        assert stdout == "bias sum 900.0\n"
    # an unguarded kernel launched with an exact grid is split like a guarded one
    assert [launch["partitioned"] for launch in stats["launches"]] == [True, True]
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES="2",
               S2S_CPU_CXXFLAGS="-DBREAK_KERNELS")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode != 0 and "bias sum" not in proc.stdout
    assert "the runtime's kernel compiler saw BREAK_KERNELS" in proc.stderr
    assert "weigh.cu:5:" in proc.stderr


def test_a_launch_finds_its_kernel_in_another_rewritten_file(tmp_path):
    """samples/cuda/two_files: main.cu launches scale_add_kernel, defined in kernels.cu (no
    -rdc). Both rewritten: the launch finds the kernel in kernels.cu's table and splits it;
    only main.cu rewritten: the program stops at that launch instead of running nothing."""
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "samples" / "cuda" / "two_files"
    out = tmp_path / "out"
    out.mkdir()
    (out / "kernels.cuh").write_bytes((sample / "kernels.cuh").read_bytes())
    rewritten = {}
    for name in ("main.cu", "kernels.cu"):
        result = process_file(str(sample / name), RunOptions(), run_mgpu)
        assert result.change.changed, [d.headline() for d in result.diagnostics]
        rewritten[name] = result
        if name == "main.cu":
            assert [d.id for d in result.diagnostics if d.id != "mgpu-explain"] == ["mgpu-other-file"]
    for name, result in rewritten.items():
        write_rewrite(result, out / name)
    flags = mgpu_runtime_flags()
    command = [NVCC, "-std=c++17", "-arch=sm_90", "-w", *flags.compile, str(out / "main.cu"),
               str(out / "kernels.cu"), *flags.link, "-o", str(tmp_path / "both")]
    assert subprocess.run(command, capture_output=True, text=True).returncode == 0
    stdout, stats = run(tmp_path / "both", 2, stats=tmp_path / "stats.json")
    assert stdout == (sample / "expected_output.txt").read_text()
    assert [la["partitioned"] for la in stats["launches"] if la["kernel"] == "scale_add_kernel"] == [True]
    (out / "kernels.cu").write_bytes((sample / "kernels.cu").read_bytes())     # not rewritten
    command[command.index("-o") + 1] = str(tmp_path / "half")
    assert subprocess.run(command, capture_output=True, text=True).returncode == 0
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES="2")
    proc = subprocess.run([str(tmp_path / "half")], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode != 0 and "no file rewritten by s2s mgpu defines" in proc.stderr
