"""Declarations the pools need move up to where the pools are made (``host_hoist``), only
when they commute with the statements they pass; otherwise the buffer stays out of the pools."""

from __future__ import annotations

import pytest

from s2s.driver import RunOptions, Success, process_file
from s2s.transform.transfers import run_transfers

PROGRAM = """\
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void fill(float *a, float *b, int n, int m)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = 1.0f;
    if (i < m) b[i] = 2.0f;
}}

int main()
{{
    int n = 1000;
    float *h_a = (float *)malloc(n * sizeof(float));
    float *d_a;
    cudaMalloc((void **)&d_a, n * sizeof(float));
    {between}
    const int m = n / 2 + 1;
    float *h_b = (float *)malloc(m * sizeof(float));
    float *d_b;
    cudaMalloc((void **)&d_b, m * sizeof(float));
    fill<<<(n + 255) / 256, 256>>>(d_a, d_b, n, m);
    cudaMemcpy(h_a, d_a, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_b, d_b, m * sizeof(float), cudaMemcpyDeviceToHost);
    float s = h_a[0] + h_b[m - 1];
    cudaFree(d_a);
    cudaFree(d_b);
    free(h_a);
    free(h_b);
    return s > 0.0f ? 0 : 1;
}}
"""


def run(tmp_path, between: str) -> Success:
    path = tmp_path / "late.cu"
    path.write_text(PROGRAM.format(between=between))
    result = process_file(str(path), RunOptions(), run_transfers)
    assert isinstance(result, Success)
    return result


def test_a_declaration_that_commutes_moves_up_and_every_buffer_is_pooled(tmp_path):
    result = run(tmp_path, "for (int i = 0; i < n; i++) h_a[i] = 0.0f;")
    after = result.change.after.decode()
    assert after.count("cudaMalloc(") == 1 and after.count("malloc(") == 1   # one pool each
    assert after.index("const int m = n / 2 + 1;") < after.index("s2s_off_h_a")
    assert after.count("const int m = n / 2 + 1;") == 1
    assert any("declaration moved up" in d.message for d in result.diagnostics)


@pytest.mark.parametrize("between", [
    "n = n + 1;",             # the size's input changes on the way
    "int &r = n; r++;",       # ... through a reference
    "int *p = &n; *p = 7;",   # ... through a pointer
    "int m2 = 3; { int m = 4; (void)m; }",   # a passed statement mentions the declared name
])
def test_a_declaration_that_does_not_commute_stays_and_its_buffers_stay_out(tmp_path, between):
    result = run(tmp_path, between)
    after = result.change.after.decode()
    assert after.index("const int m = n / 2 + 1;") > after.index(between.split(";")[0])
    assert "cudaMalloc((void **)&d_b, m * sizeof(float));" in after   # d_b not pooled
    messages = [d.message for d in result.diagnostics]
    assert not any("declaration moved up" in m for m in messages)
    # (the function itself is followed: nothing but the late size keeps d_b out)
    assert any("nothing merges" in m or "'d_b' stays out" in m for m in messages), messages
    assert not [d for d in result.diagnostics if d.severity.name == "WARNING"]
