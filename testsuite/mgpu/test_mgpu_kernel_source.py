"""A rewritten program compiles its kernels at run time (issue 18, item 5): with the user's
-D/-I/-std, whatever precedes the first kernel, and a kernel that does not compile stops the
program with a non-zero exit and the compiler's message (never exit 0 having run no kernel)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace

import pytest
from mgpu_support import NVCC, build, run

from s2s.driver import RunOptions, process_file
from s2s.frontend.parse import ParseOptions
from s2s.transform.mgpu import run_mgpu

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
    out.write_bytes(result.change.after)
    return out, flags


def test_flags_and_host_code_first_reach_the_kernels_and_a_failed_compile_stops(tmp_path):
    out, flags = _rewritten(tmp_path)
    assert f'"-I{tmp_path}/inc\\n" "-DBIAS=2.0f\\n" "-std=c++17"' in out.read_text()
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
