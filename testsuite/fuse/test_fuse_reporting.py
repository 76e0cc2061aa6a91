"""``s2s fuse`` past status checks through a reporting function (issue 29, fuse on real
programs): vendor samples wrap every runtime call in a macro that hands its status to a
reporting function template (``CALL(cudaDeviceSynchronize())`` is
``report_status((cudaDeviceSynchronize()), "...", __FILE__, __LINE__)``). Such a statement
between two launches touches no device data and must not end their run; one that reports a
copy, or a function that could change the caller's data, still does."""

from __future__ import annotations

import pytest

from runtime.api import Runtime
from s2s.analysis.fuse.graph import REPORTING
from s2s.analysis.fuse.reporting import reporting_helpers
from s2s.driver import RunOptions, Success, process_file
from s2s.transform.fuse import run_fuse
from s2s.transform.fuse_through import helper_models
from s2s.verify.fuse_replay import compare, replay
from testsuite.fuse.fuse_support import SCALE_SHIFT

HEADER = """\
#pragma once
#include <cstdio>
#include <cstdlib>
static const char *status_name(cudaError_t code) { return cudaGetErrorName(code); }
template <typename Status>
void report_status(Status code, const char *expr, const char *file, int line)
{
    if (code) {
        fprintf(stderr, "%s:%d: '%s' returned %d (%s)\\n", file, line, expr,
                static_cast<int>(code), status_name(code));
        exit(EXIT_FAILURE);
    }
}
static void count_status(cudaError_t code, int *failures) { if (code) ++*failures; }
#define CALL(expr) report_status((expr), #expr, __FILE__, __LINE__)
"""
SOURCE = """\
#include <cstdio>
#include "gpu_status.h"
""" + SCALE_SHIFT + """\
int main()
{
    int n = 1000, failures = 0;
    float h[1000];
    for (int i = 0; i < n; i++) h[i] = 0.25f * i;
    float *x, *y, *z;
    CALL(cudaMalloc((void **)&x, n * sizeof(float)));
    CALL(cudaMalloc((void **)&y, n * sizeof(float)));
    CALL(cudaMalloc((void **)&z, n * sizeof(float)));
    CALL(cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice));
    scale_k<<<(n + 127) / 128, 128>>>(y, x, 2.0f, n);
    BETWEEN;
    shift_k<<<(n + 127) / 128, 128>>>(z, y, 1.0f, n);
    CALL(cudaGetLastError());
    CALL(cudaMemcpy(h, z, n * sizeof(float), cudaMemcpyDeviceToHost));
    printf("%f %f %d\\n", h[1], h[n - 1], failures);
    return 0;
}
"""


def _fuse(tmp_path, between: str):
    (tmp_path / "gpu_status.h").write_text(HEADER)
    path = tmp_path / "blend.cu"
    path.write_text(SOURCE.replace("BETWEEN", between))
    return path, process_file(str(path), RunOptions(), run_fuse)


def test_a_reported_synchronization_goes_between_fused_launches(tmp_path):
    path, result = _fuse(tmp_path, "CALL(cudaDeviceSynchronize())")
    assert isinstance(result, Success) and result.change.changed
    after = result.change.after.decode()
    assert "    CALL(cudaDeviceSynchronize());\n    s2s_fused_0<<<(n + 127) / 128, 128>>>(" \
        in after
    assert "scale_k<<<" not in after.split("int main")[1]
    runtime = Runtime("cpu", 1, threads=2)
    before = replay(str(path), runtime=runtime, module_source=result.change.after,
                    traffic=False)
    fused = replay(str(path), source=result.change.after, runtime=runtime, traffic=False)
    assert len(before.launches) == 2 and len(fused.launches) == 1
    assert compare(before, fused) == []


@pytest.mark.parametrize("between, ends", [
    ("CALL(cudaMemcpy(x, y, sizeof(float), cudaMemcpyDeviceToDevice))", "cudaMemcpy"),
    ("count_status(cudaDeviceSynchronize(), &failures)", "count_status"),
])
def test_a_reported_copy_or_a_writing_helper_still_ends_the_run(tmp_path, between, ends):
    """A reporting helper is read-only and loop-free: ``count_status`` writes through its
    pointer parameter, ``spin`` loops, ``remember`` assigns a global."""
    (tmp_path / "gpu_status.h").write_text(
        HEADER + "static void spin(int code) { while (code) fprintf(stderr, \"x\"); }\n"
        "static int last;\nstatic void remember(int code) { last = code; }\n")
    path = tmp_path / "blend.cu"
    path.write_text(SOURCE.replace("BETWEEN", between).replace(
        "    return 0;", "    spin(0);\n    remember(0);\n    return 0;"))
    seen = set()

    def collect(loaded):
        for model in helper_models(loaded):
            seen.update(reporting_helpers(model, REPORTING))
        return run_fuse(loaded)

    result = process_file(str(path), RunOptions(), collect)
    assert isinstance(result, Success) and not result.change.changed
    said = [d.message for d in result.diagnostics if d.id == "fuse-unfused"]
    assert said and all(f"a call to {ends}" in m or f", {ends} at line 24" in m
                        for m in said), said
    assert {"report_status", "status_name"} <= seen
    assert not {"count_status", "spin", "remember"} & seen
