"""Access models of template kernel instantiations (s2s/analysis/mgpu_templates.py)."""

from __future__ import annotations

from s2s.analysis.mgpu_plan import plan_file
from s2s.analysis.mgpu_templates import instantiation_access, split_arguments
from s2s.frontend.extract import load

SOURCE = """\
template <typename T, int BLOCK>
__global__ void scale(T *x, T factor, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) x[i] = x[i] * factor;
}
struct Pair {
    float a, b;
    __host__ __device__ Pair operator*(Pair o) const { return {a * o.a, b * o.b}; }
};
int main()
{
    float *f; double *d; Pair *p;
    scale<float, 128><<<8, 128>>>(f, 2.0f, 1000);
    scale<double, 0x40><<<16, 64>>>(d, 0.5, 1000);
    scale<Pair, 32><<<1, 32>>>(p, Pair(), 1);
    return 0;
}
"""


def _model(tmp_path):
    path = tmp_path / "t.cu"
    path.write_bytes(SOURCE.encode())
    loaded = load(str(path))
    assert loaded.model is not None, loaded.diagnostics
    return loaded


def test_split_arguments_respects_brackets():
    assert split_arguments("float, 256") == ["float", "256"]
    assert split_arguments("Pair<int, 2>, (4, 5)") == ["Pair<int, 2>", "(4, 5)"]


def test_literal_and_arithmetic_arguments_give_a_partitionable_model(tmp_path):
    model = _model(tmp_path).model
    kernel, body = model.kernel("scale"), model.kernel_body("scale")
    generic = instantiation_access(kernel, body, "T, BLOCK", {})
    assert generic is None                             # not arguments it can put in
    for arguments, size in (("float, 128", 4), ("double, 0x40", 8)):
        data = instantiation_access(kernel, body, arguments, {})
        assert data["partitionable"], data["reason"]
        assert data["kernel"] == f"scale<{arguments}>"
        assert data["arrays"]["x"]["elem_size"] == size
        block = 128 if size == 4 else 64
        assert f"i = {block}bx + tx" in data["arrays"]["x"]["write"].replace("*", "")


def test_plan_table_has_one_entry_per_instantiation(tmp_path):
    loaded = _model(tmp_path)
    plan = plan_file(loaded.model, loaded.source)
    assert not plan.refusals
    table = {k.name: k for k in plan.kernels}
    assert plan.instantiations == ("scale<float, 128>", "scale<double, 0x40>", "scale<Pair, 32>")
    assert table["scale<float, 128>"].access["partitionable"]
    assert table["scale<Pair, 32>"].access is None         # a struct argument: no model
    warned = [w.message for w in plan.warnings]
    assert warned == ["kernel 'scale<Pair, 32>' runs on one device (not partitioned): template "
                      "kernel: its template arguments are not integer literals or arithmetic "
                      "types, so its instantiation has no access model"]
