"""``s2s transfers`` on arrays of device pointers (issue 19): ``float *d[2]`` whose elements
are allocated, copied and freed by constant index are buffers of their own; a launch or copy
choosing ``d[i]`` by a variable index uses every element as a candidate; any other use of
the array is refused with its place. The program runs before and after on the cpu devices."""

from __future__ import annotations

import pytest
from conftest import REPO

from s2s.analysis.transfers.host_code import find_regions
from s2s.analysis.transfers.region import HostCode, Launch
from s2s.cli.main import main
from s2s.driver import RunOptions, Success, process_file
from s2s.edits import EditSet
from s2s.transform.transfers import run_transfers

PROGRAM = REPO / "testsuite" / "fuse" / "data" / "patterns" / "pointer_array.cu"


def test_elements_pool_and_their_uploads_fuse(capsys):
    result = process_file(str(PROGRAM), RunOptions(), run_transfers)
    assert isinstance(result, Success) and not result.incomplete
    assert [d.message for d in result.diagnostics if d.severity.name == "WARNING"] == []
    source, after = PROGRAM.read_bytes(), result.change.after
    assert (source.count(b"cudaMemcpy("), source.count(b"cudaMalloc(")) == (3, 3)
    assert (after.count(b"cudaMemcpy("), after.count(b"cudaMalloc(")) == (2, 1)
    text = after.decode()
    assert "d_buf[1] = reinterpret_cast<decltype(+d_buf[1])>(s2s_device_pool + s2s_off_d_buf_1);" in text
    assert "cudaMemcpy(d_buf[0], h_init, s2s_off_h_coef + (bytes) - s2s_off_h_init, cudaMemcpyHostToDevice);" \
        in text
    assert "    cudaMemcpy(h_out, d_buf[cur], bytes, cudaMemcpyDeviceToHost);" in text   # stays
    for steps in ("4", "5"):   # the result ends in d_buf[0], then in d_buf[1]
        assert main(["verify", "-q", "--passes", "transfers", "--args", steps, str(PROGRAM)]) == 0
        assert "verdict: OK" in capsys.readouterr().out


def test_a_variable_index_names_every_element(load_source):
    loaded = load_source(PROGRAM.read_text(), "prog.cu")
    regions, refusals = find_regions(loaded.model, loaded.source)
    assert not refusals
    ops = {getattr(op, "name", None): op for op in regions[0].ops}
    loop = next(op for name, op in ops.items() if name and name.startswith("loop at line"))
    assert set(loop.reads) == {"d_buf[0]", "d_coef"} and set(loop.writes) == {"d_buf[0]", "d_buf[1]"}
    scale = ops["scale"]   # d_buf[cur]: either element is updated, the other keeps its value
    assert set(scale.reads) == set(scale.writes) == {"d_buf[0]", "d_buf[1]"}
    copy = [op for op in regions[0].ops if getattr(op, "name", "").startswith("cudaMemcpy at line")]
    assert [type(op) for op in copy] == [Launch, HostCode]
    assert set(copy[0].reads) == {"d_buf[0]", "d_buf[1]"} and copy[1].writes == ("h_out",)


@pytest.mark.parametrize("line, needle", [
    ("    d_buf[0] = d_coef;\n", "d_buf[0] = d_coef"),
    ("    float *alias = d_buf[1];\n", "alias"),
    ("    cudaMemset(d_buf[cur], 0, bytes);\n", "cudaMemset"),
])
def test_other_uses_of_the_array_are_refused(load_source, line, needle):
    text = PROGRAM.read_text().replace("    int cur = 0;\n", "    int cur = 0;\n" + line)
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    warnings = [d for d in output.diagnostics if d.severity.value == "warning"]
    assert [w.id for w in warnings] == ["transfers-escape"]
    assert "holds device buffers" in warnings[0].message
    assert warnings[0].location.line == next(k for k, t in enumerate(text.splitlines(), 1) if needle in t)
    assert EditSet(output.edits).apply("prog.cu", loaded.source).decode() == text


def test_a_data_member_is_refused_with_where_it_lives():
    """Members allocated in a constructor and freed in the destructor: no function holds
    their whole lifetime (and their host sides are std::vector storage), so nothing merges;
    the warning says so, and the copies of another member function are counted as staying."""
    from s2s.frontend.core.parse import ParseOptions

    sample = REPO / "testsuite" / "corpus" / "cuda" / "particles_project"
    path = sample / "src" / "main.cu"
    options = RunOptions(parse=ParseOptions(user_flags=(f"-I{sample / 'include'}", "-DPARTICLE_COUNT=3000")))
    result = process_file(str(path), options, run_transfers)
    assert result.change.after == path.read_bytes()
    warnings = [d for d in result.diagnostics if d.severity.name == "WARNING"]
    assert [w.id for w in warnings] == ["transfers-member"]
    assert warnings[0].message.startswith("'d_pos_' is a data member allocated in 'ParticleSystem', freed in "
                                          "'~ParticleSystem'")
    notes = [d.message for d in result.diagnostics if d.id == "transfers-explain"]
    assert any(m.startswith("'energy': nothing merges: 2 cudaMemcpy calls") for m in notes)


#: issue 29: per-device halves of a vector in arrays of device pointers sized by a macro,
#: both arrays allocated (and freed) by one loop (OLCF hw7's shape, on one device)
PER_DEVICE = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define NGPU 2
__global__ void square(float *y, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    int chunk = n / NGPU;
    size_t bytes = chunk * sizeof(float);
    float *h_x = (float *)malloc(n * sizeof(float));
    float *h_y = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) h_x[i] = (i % 17) * 0.5f;
    float *d_x[NGPU], *d_y[NGPU];
    for (int g = 0; g < NGPU; ++g) {
        cudaMalloc((void **)&d_x[g], bytes);
        cudaMalloc((void **)&d_y[g], bytes);
    }
    for (int g = 0; g < NGPU; ++g)
        cudaMemcpy(d_x[g], h_x + g * chunk, bytes, cudaMemcpyHostToDevice);
    for (int g = 0; g < NGPU; ++g)
        square<<<(chunk + 127) / 128, 128>>>(d_y[g], d_x[g], chunk);
    for (int g = 0; g < NGPU; ++g)
        cudaMemcpy(h_y + g * chunk, d_y[g], bytes, cudaMemcpyDeviceToHost);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += h_y[i];
    printf("sum %.2f\\n", sum);
    for (int g = 0; g < NGPU; ++g) {
        cudaFree(d_x[g]);
        cudaFree(d_y[g]);
    }
    free(h_x);
    free(h_y);
    return 0;
}
"""


def test_arrays_sized_by_a_macro_allocated_by_one_loop_share_one_pool(load_source, capsys, tmp_path):
    """The count is the extent clang gives the array's type (NGPU); the pool is made once
    before the loop, though the loop allocates two arrays."""
    loaded = load_source(PER_DEVICE, "prog.cu")
    output = run_transfers(loaded)
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    assert [d.message for d in output.diagnostics if d.severity.name == "WARNING"] == []
    assert after.count("cudaMalloc(") == 1 and after.count("cudaFree(") == 1
    assert "        d_y[g] = reinterpret_cast<decltype(+d_y[g])>(s2s_device_pool + s2s_off_d_y[g]);" in after
    path = tmp_path / "per_device.cu"
    path.write_text(PER_DEVICE)
    assert main(["verify", "-q", "--passes", "transfers", "--args", "1000", str(path)]) == 0
    assert "verdict: OK" in capsys.readouterr().out


def test_a_loop_switching_devices_between_its_allocations_is_refused(load_source):
    """``cudaSetDevice(g)`` before each ``cudaMalloc(&d[g])`` puts the elements on different
    devices: one pool cannot hold them (this was pooled before, wrongly)."""
    text = PER_DEVICE.replace("    for (int g = 0; g < NGPU; ++g) {\n        cudaMalloc((void **)&d_x[g]",
                              "    for (int g = 0; g < NGPU; ++g) {\n        cudaSetDevice(g);\n"
                              "        cudaMalloc((void **)&d_x[g]")
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    assert output.edits == [] or EditSet(output.edits).apply("prog.cu", loaded.source).decode() == text
    warning, = [d for d in output.diagnostics if d.severity.name == "WARNING"]
    assert warning.id == "transfers-unsupported-call"
    assert warning.message.startswith(f"'cudaSetDevice' (line {text[:text.index('cudaSetDevice(g)')].count(chr(10)) + 1})")


def test_arrays_declared_after_the_pool_get_their_slots_where_they_are_allocated(load_source, capsys, tmp_path):
    """The pool is made at the first allocation (``d_x``'s loop); ``d_y`` (an element loop)
    and ``d_z`` (constant indices) are declared after it: each element's slot is assigned
    where the program allocated it, after its array's declaration (an assignment moved up to
    the pool would name an array not yet declared and not compile)."""
    text = PER_DEVICE.replace(
        "    float *d_x[NGPU], *d_y[NGPU];\n    for (int g = 0; g < NGPU; ++g) {\n"
        "        cudaMalloc((void **)&d_x[g], bytes);\n        cudaMalloc((void **)&d_y[g], bytes);\n    }\n",
        "    float *d_x[NGPU];\n    for (int g = 0; g < NGPU; ++g)\n        cudaMalloc((void **)&d_x[g], bytes);\n"
        "    float *d_y[NGPU];\n    for (int g = 0; g < NGPU; ++g)\n        cudaMalloc((void **)&d_y[g], bytes);\n"
        "    float *d_z[2];\n    cudaMalloc((void **)&d_z[0], bytes);\n    cudaMalloc((void **)&d_z[1], bytes);\n"
        "    cudaMemcpy(d_z[0], h_x, bytes, cudaMemcpyHostToDevice);\n"
        "    square<<<(chunk + 127) / 128, 128>>>(d_z[1], d_z[0], chunk);\n"
        "    cudaMemcpy(h_y, d_z[1], bytes, cudaMemcpyDeviceToHost);\n"
        "    printf(\"z %.2f\\n\", h_y[chunk - 1]);\n").replace(
        "        cudaFree(d_y[g]);\n    }\n", "        cudaFree(d_y[g]);\n    }\n    cudaFree(d_z[0]);\n    cudaFree(d_z[1]);\n")
    assert "float *d_z[2];" in text and "cudaFree(d_z[1]);" in text
    loaded = load_source(text, "prog.cu")
    output = run_transfers(loaded)
    after = EditSet(output.edits).apply("prog.cu", loaded.source).decode()
    assert [d.message for d in output.diagnostics if d.severity.name == "WARNING"] == []
    assert after.count("cudaMalloc(") == 1
    pool = after.index("cudaMalloc((void **)&s2s_device_pool")
    assert pool < after.index("float *d_y[NGPU];") < after.index("        d_y[g] = reinterpret_cast")
    assert after.index("float *d_z[2];") < after.index("    d_z[0] = reinterpret_cast") < \
        after.index("    d_z[1] = reinterpret_cast")
    path = tmp_path / "late_arrays.cu"
    path.write_text(text)
    assert main(["verify", "-q", "--passes", "transfers", "--args", "1000", str(path)]) == 0
    assert "verdict: OK" in capsys.readouterr().out
