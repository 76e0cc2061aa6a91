"""``s2s transfers`` on what issue 29 item 5 listed as refusals where a merge is legal: pointer
choices ``(s % 2) ? d_b : d_a`` (as arguments and through local pointers), rotations through a
temporary declared before the loop, arrays of device pointers allocated, copied and freed in
loops, ``d + k * n`` slices and ``&h[i]`` partial copies. Each is a rewrite (pools made, the
copies that can merge merged, the others left as written) or a precise warning; the corpus
programs rotate_species and packed_fields run before and after through ``s2s verify``."""

from __future__ import annotations

from conftest import REPO

from s2s.analysis.transfers.host_code import find_regions
from s2s.analysis.transfers.region import HostCode, Launch
from s2s.cli.main import main
from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

KERNELS = """#include <cstdio>
#include <cstdlib>
__global__ void step(const float *in, float *out, const float *w, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 0.5f * in[i] + w[i]; }
__global__ void add(float *u, const float *t, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) u[i] += t[i]; }
"""

CHOICE = KERNELS + """int main()
{
    int n = 256, steps = 5;
    size_t bytes = n * sizeof(float);
    float *h = (float *)malloc(bytes);
    float *h_w = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) { h[i] = i; h_w[i] = 1; }
    float *d_a, *d_b, *d_w;
    float *d_t[2];
    cudaMalloc((void **)&d_a, bytes);
    cudaMalloc((void **)&d_b, bytes);
    cudaMalloc((void **)&d_w, bytes);
    for (int k = 0; k < 2; k++) {
        cudaMalloc((void **)&d_t[k], bytes);
        cudaMemcpy(d_t[k], h_w, bytes, cudaMemcpyHostToDevice);
    }
    cudaMemcpy(d_a, h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, h_w, bytes, cudaMemcpyHostToDevice);
    for (int s = 0; s < steps; s++) {
        float *src = (s % 2) ? d_b : d_a;
        float *dst = (s % 2) ? d_a : d_b;
        step<<<n / 64, 64>>>(src, dst, d_w, n);
        add<<<n / 64, 64>>>(dst, d_t[s % 2], n);
    }
    cudaMemcpy(h, (steps % 2) ? d_b : d_a, bytes, cudaMemcpyDeviceToHost);
    printf("%f\\n", h[3]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_w);
    for (int k = 0; k < 2; k++)
        cudaFree(d_t[k]);
    free(h);
    free(h_w);
    return 0;
}
"""


def _rewrite(load_source, text: str):
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    return after, [d for d in output.diagnostics if d.severity.name == "WARNING"]


def test_choices_and_an_element_loop_are_pooled(load_source):
    after, warnings = _rewrite(load_source, CHOICE)
    assert not warnings
    assert after.count("cudaMalloc(") == 1 and "cudaFree(d_t[k])" not in after
    assert "const size_t s2s_off_d_t[2] = {s2s_off_d_t_0, s2s_off_d_t_1};" in after
    assert "d_t[k] = reinterpret_cast<decltype(+d_t[k])>(s2s_device_pool + s2s_off_d_t[k]);" in after
    assert "cudaMemcpy(d_t[k], h_w, bytes, cudaMemcpyHostToDevice);" in after     # stays in the loop
    assert "cudaMemcpy(h, (steps % 2) ? d_b : d_a, bytes, cudaMemcpyDeviceToHost);" in after
    # the uploads of h and h_w into d_a and d_w merge into one
    assert after.count("cudaMemcpyHostToDevice") == 2


def test_what_a_choice_does_to_its_candidates(load_source):
    loaded = load_source(CHOICE, "prog.cu")
    (region,), refusals = find_regions(loaded.model, loaded.source)
    assert not refusals
    ops = {getattr(op, "name", None): op for op in region.ops}
    loop = next(op for name, op in ops.items() if name and name.startswith("loop at line"))
    # src reads d_a (d_b holds nothing before the loop); dst may be either: both written
    assert set(loop.writes) == {"d_a", "d_b"} and {"d_a", "d_t[0]", "d_t[1]", "d_w"} <= set(loop.reads)
    back = [op for op in region.ops if getattr(op, "name", "") == "cudaMemcpy at line 31"]
    assert [type(op) for op in back] == [Launch, HostCode]
    assert set(back[0].reads) == {"d_a", "d_b"} and back[1].writes == ("h",)
    upload = [op for op in region.ops if "'d_t[...]'" in getattr(op, "name", "")]
    assert [type(op) for op in upload] == [HostCode, Launch] and set(upload[1].writes) == {"d_t[0]", "d_t[1]"}


def test_an_alias_used_after_a_rotation_is_refused_at_its_use(load_source):
    text = CHOICE.replace("    cudaMemcpy(h, (steps % 2) ? d_b : d_a, bytes, cudaMemcpyDeviceToHost);\n",
                          "    float *res = d_a;\n    for (int r = 0; r < 2; r++) {\n"
                          "        step<<<n / 64, 64>>>(d_a, d_b, d_w, n);\n"
                          "        float *t = d_a; d_a = d_b; d_b = t;\n    }\n"
                          "    cudaMemcpy(h, res, bytes, cudaMemcpyDeviceToHost);\n")
    after, warnings = _rewrite(load_source, text)
    assert after == text
    assert [w.id for w in warnings] == ["transfers-escape"] and "the pointer assignment at line" in warnings[0].message


def test_rotation_temporary_declared_before_the_loop(load_source):
    text = CHOICE.replace("    for (int s = 0; s < steps; s++) {\n        float *src",
                          "    float *tmp;\n    for (int s = 0; s < steps; s++) {\n"
                          "        tmp = d_a; d_a = d_b; d_b = tmp;\n        float *src")
    after, warnings = _rewrite(load_source, text)
    assert not warnings and after.count("cudaMalloc(") == 1


def test_slices_and_partial_copies(load_source):
    text = KERNELS + """int main()
{
    int n = 128;
    float *h = (float *)malloc(3 * n * sizeof(float));
    float *h_w = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < 3 * n; i++) h[i] = i;
    for (int i = 0; i < n; i++) h_w[i] = 2;
    float *d, *d_w;
    cudaMalloc((void **)&d, 3 * n * sizeof(float));
    cudaMalloc((void **)&d_w, n * sizeof(float));
    cudaMemcpy(d, h, 3 * n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_w, h_w, n * sizeof(float), cudaMemcpyHostToDevice);
    step<<<2, 64>>>(d, d + n, d_w, n);
    add<<<2, 64>>>(d + 2 * n, d + n, n);
    cudaMemcpy(&h[2 * n], d + 2 * n, n / 2 * sizeof(float), cudaMemcpyDeviceToHost);
    printf("%f %f\\n", h[2 * n + 1], h[0]);
    cudaFree(d);
    cudaFree(d_w);
    free(h);
    free(h_w);
    return 0;
}
"""
    after, warnings = _rewrite(load_source, text)
    assert not warnings
    assert "cudaMemcpy(&h[2 * n], d + 2 * n, n / 2 * sizeof(float), cudaMemcpyDeviceToHost);" in after
    assert after.count("cudaMemcpy(") == 2 and after.count("cudaMalloc(") == 1   # the uploads merged
    loaded = load_source(text, "prog.cu")
    (region,), _ = find_regions(loaded.model, loaded.source)
    back = [op for op in region.ops if "of a part" in getattr(op, "name", "")]
    # the partial copy back updates h (its first 2n elements keep their values)
    assert [type(op) for op in back] == [Launch, HostCode] and back[1].reads == ("h",)


def test_corpus_programs_verify(capsys):
    for name, source, args, ignore in (("rotate_species", "species.cu", "300 3", "^Time"),
                                       ("packed_fields", "chain.cu", "192 3", "^Elapsed")):
        path = REPO / "testsuite" / "corpus" / "cuda" / name / source
        assert main(["verify", "-q", "--passes", "transfers", "--ignore-lines", ignore, "--args", args,
                     str(path)]) == 0, name
        assert "verdict: OK" in capsys.readouterr().out
