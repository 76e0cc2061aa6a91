"""A ``__constant__``/``__device__`` table read in a kernel (here inside a guarded ``__device__``
helper, as corpus constant_conv1d) is the table's own storage: the parameters' access maps stay
bounded by the guard (issue 18: the read of ``in`` was unbounded, and ``out`` was read whole)."""

from __future__ import annotations

import json

from runtime.access import KernelAccess
from runtime.partition import Box, Launch
from s2s.analysis.kernel.access import analyze_unit
from s2s.frontend.extract import load

SOURCE = """\
#define RADIUS 2
__constant__ float taps[2 * RADIUS + 1];
__constant__ int length;
__device__ float *scratch;

__device__ float tap(const float *in, int i, int k)
{
    int j = i + k - RADIUS;
    return (j >= 0 && j < length) ? in[j] * taps[k] : 0.0f;
}

__global__ void convolve(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < 2 * RADIUS + 1; ++k)
            acc += tap(in, i, k);
        out[i] = acc;
    }
}

__global__ void through_pointer(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + scratch[i];
}
"""


def _models(tmp_path) -> dict[str, KernelAccess]:
    path = tmp_path / "conv.cu"
    path.write_text(SOURCE)
    loaded = load(str(path))
    return {m.kernel: KernelAccess.from_dict(json.loads(json.dumps(m.to_dict())))
            for m in analyze_unit(loaded.model.kernel_bodies)}


def test_table_read_keeps_parameter_maps_bounded(tmp_path):
    access = _models(tmp_path)["convolve"]
    launch = Launch((4, 1, 1), (64, 1, 1), {"n": 256})
    assert access.partitionable
    assert access.read_ranges("in", Box((1, 0, 0), (2, 1, 1)), launch) == [(62, 130)]  # block 1 +- 2
    assert not access.reads("out")
    assert access.write_ranges("out", Box((1, 0, 0), (2, 1, 1)), launch) == [(64, 128)]


def test_a_global_pointer_is_still_unknown(tmp_path):
    """``scratch`` points anywhere (maybe into a parameter's buffer): not a table of its own."""
    access = _models(tmp_path)["through_pointer"]
    launch = Launch((4, 1, 1), (64, 1, 1), {"n": 256})
    whole = access.read_ranges("out", Box((1, 0, 0), (2, 1, 1)), launch)
    assert whole and whole[0][0] <= 0     # every array may be read through it
