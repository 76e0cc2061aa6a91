"""``s2s transfers`` on host code whose facts used to come from statement text (issue 19,
item 1): a member ``block.x`` next to a host array ``x``, and device pointers declared
``= NULL`` several to a declaration, are followed now that the mentions come from the AST."""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

SOURCE = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void scale(float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = 2.0f * y[i] + x[i];
}
int main()
{
    int n = 1 << 16;
    size_t bytes = n * sizeof(float);
    float *x = (float *)malloc(bytes);
    float *y = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        y[i] = (float)i;
        x[i] = 1.0f;
    }
    dim3 block(256), grid((n + 255) / 256);
    block.x = 128;
    float *d_x = NULL, *d_y = NULL;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_y, bytes);
    cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
    scale<<<grid, block>>>(d_x, d_y, n);
    cudaMemcpy(x, d_x, bytes, cudaMemcpyDeviceToHost);
    if (!x)
        return 1;
    printf("%f\\n", x[n - 1]);
    cudaFree(d_x);
    cudaFree(d_y);
    free(x);
    free(y);
    return 0;
}
"""


def test_member_and_null_declarators_do_not_stop_fusion(load_source):
    loaded = load_source(SOURCE, "prog.cu")
    output = run_transfers(loaded)
    warnings = [d.headline() for d in output.diagnostics if d.severity.name == "WARNING"]
    assert warnings == []
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    assert SOURCE.count("cudaMemcpy(") == 3 and after.count("cudaMemcpy(") == 2
    assert SOURCE.count("cudaMalloc(") == 2 and after.count("cudaMalloc(") == 1
    assert "block.x = 128;" in after


def test_a_pointer_copy_of_a_buffer_is_still_refused(load_source):
    aliased = SOURCE.replace("    block.x = 128;\n", "    float *alias = x;\n    alias[0] = 0;\n")
    output = run_transfers(load_source(aliased, "prog.cu"))
    assert [d.id for d in output.diagnostics if d.severity.name == "WARNING"] == ["transfers-escape"]
    assert output.edits == ()


POINTER_ARRAY = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void scale(float *y, const float *x, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }
int main()
{
    int n = 1024;
    size_t bytes = n * sizeof(float);
    float *h[2];
    h[0] = (float *)malloc(bytes);
    h[1] = (float *)malloc(bytes);
    for (int i = 0; i < n; ++i)
        h[0][i] = 1.0f;
    float *d_x, *d_y;
    cudaMalloc((void **)&d_x, bytes);
    cudaMalloc((void **)&d_y, bytes);
    cudaMemcpy(d_x, h[0], bytes, cudaMemcpyHostToDevice);
    scale<<<(n + 255) / 256, 256>>>(d_y, d_x, n);
    cudaMemcpy(h[1], d_y, bytes, cudaMemcpyDeviceToHost);
    printf("%f\\n", h[1][0]);
    cudaFree(d_x);
    cudaFree(d_y);
    free(h[0]);
    free(h[1]);
    return 0;
}
"""


def test_copies_from_elements_of_a_pointer_array_stay_and_fill_the_buffer(load_source):
    """``cudaMemcpy(d_x, h[0], ...)``: the host side is no buffer the rewrite follows; the
    copy used to be dropped from the model, and reading ``d_x`` was refused as reading
    nothing. Now the copy stays as written and writes ``d_x``; the allocations still merge."""
    loaded = load_source(POINTER_ARRAY, "prog.cu")
    output = run_transfers(loaded)
    assert [d.id for d in output.diagnostics if d.severity.name == "WARNING"] == []
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    assert "cudaMemcpy(d_x, h[0], bytes, cudaMemcpyHostToDevice);" in after
    assert "cudaMemcpy(h[1], d_y, bytes, cudaMemcpyDeviceToHost);" in after
    assert after.count("cudaMalloc(") == 1
    notes = [d.message for d in output.diagnostics if d.id == "transfers-explain"]
    assert any("the 2 cudaMemcpy calls stay as written (merging would leave 2), 2 cudaMalloc "
               "calls 1" in m for m in notes)


CHECKED_MALLOC = POINTER_ARRAY.replace("""    float *h[2];
    h[0] = (float *)malloc(bytes);
    h[1] = (float *)malloc(bytes);
""", """    float *h0, *h1;
    if ((h0 = (float *)malloc(bytes)) == NULL)
        return 1;
    if ((h1 = (float *)malloc(bytes)) == NULL)
        return 1;
""").replace("h[0]", "h0").replace("h[1]", "h1")


def test_allocation_inside_a_condition_is_no_alias(load_source):
    """``if ((h0 = (float *)malloc(bytes)) == NULL)`` gives ``h0`` its first storage: it was
    refused as 'aliased or reassigned'; a second assignment still is."""
    loaded = load_source(CHECKED_MALLOC, "prog.cu")
    output = run_transfers(loaded)
    assert [d.id for d in output.diagnostics if d.severity.name == "WARNING"] == []
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    assert after.count("cudaMalloc(") == 1 and "if ((h0 = (float *)malloc(bytes)) == NULL)" in after
    again = CHECKED_MALLOC.replace("    float *d_x, *d_y;\n", "    h0 = h1;\n    float *d_x, *d_y;\n")
    output = run_transfers(load_source(again, "prog.cu"))
    assert [d.id for d in output.diagnostics if d.severity.name == "WARNING"] == ["transfers-escape"]
