"""``s2s transfers`` on device buffers ``main`` never frees (the OLCF CUDA training programs
free none: the buffers live until the program exits). Such a buffer joins the pool, and the
pool is not freed either, as the buffers were not; before, it stayed out of the pools and the
program was left as written (``0 would change``, a note only under ``--explain``). A function
other than ``main`` may hand its unfreed buffer on: its buffers stay as written."""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

PROGRAM = """#include <cstdio>
__global__ void vadd(const float *a, const float *b, float *c, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }
int main()
{
    const int n = 4096;
    float *h_a = new float[n], *h_b = new float[n], *h_c = new float[n];
    for (int i = 0; i < n; i++) { h_a[i] = i; h_b[i] = 2 * i; }
    float *d_a, *d_b, *d_c;
    cudaMalloc(&d_a, n * sizeof(float));
    cudaMalloc(&d_b, n * sizeof(float));
    cudaMalloc(&d_c, n * sizeof(float));
    cudaMemcpy(d_a, h_a, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, h_b, n * sizeof(float), cudaMemcpyHostToDevice);
    vadd<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
    cudaMemcpy(h_c, d_c, n * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f\\n", h_c[n - 1]);
    FREE_LAST
    return 0;
}
"""


def _rewrite(load_source, text: str) -> str:
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    return EditSet(output.edits).apply("prog.cu", loaded.source).decode()


def test_buffers_main_never_frees_are_pooled_and_the_pool_is_not_freed(load_source):
    after = _rewrite(load_source, PROGRAM.replace("FREE_LAST", ""))
    assert after.count("cudaMalloc(") == 1
    assert "cudaMalloc((void **)&s2s_device_pool, s2s_device_bytes);" in after
    assert "cudaFree" not in after
    assert after.count("cudaMemcpy(") == 3                 # the copies stay as they were
    for name in ("d_a", "d_b", "d_c"):
        assert f"{name} = reinterpret_cast<decltype({name})>(s2s_device_pool + s2s_off_{name});" \
            in after


def test_one_freed_buffer_with_unfreed_ones_leaves_the_pool_to_the_exit(load_source):
    after = _rewrite(load_source, PROGRAM.replace("FREE_LAST", "cudaFree(d_c);"))
    assert after.count("cudaMalloc(") == 1 and "cudaFree" not in after


def test_a_function_other_than_main_keeps_its_unfreed_buffers(load_source):
    text = PROGRAM.replace("int main()", "float *run()").replace("FREE_LAST", "") \
        .replace("return 0;", "return d_c;") + "int main() { run(); return 0; }\n"
    after = _rewrite(load_source, text)
    assert after.count("cudaMalloc(") == 3
