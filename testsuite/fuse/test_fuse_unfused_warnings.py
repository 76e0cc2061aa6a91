"""No silent pass (issue 29, item 6): launches ``s2s fuse`` leaves unfused get one warning per
launch run at default verbosity, naming the dependence or other reason; mgpu warns at rewrite
time about a launch the runtime will run on one device for a reason the model already knows."""

from __future__ import annotations

from s2s.cli.main import main
from s2s.driver import RunOptions, process_file
from s2s.transform.fuse import run_fuse
from s2s.transform.mgpu import run_mgpu

KERNELS = """\
#include <cstdio>
__global__ void rev(float *y, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[n - 1 - i];
}
__global__ void add(float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] + y[(i + 1) % n];
}
"""
MAIN = """\
int main()
{
    const int n = 256;
    float h[256], *x, *y;
    for (int i = 0; i < n; i++) h[i] = i;
    cudaMalloc((void **)&x, sizeof h);
    cudaMalloc((void **)&y, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    for (int t = 0; t < 3; t++) {
        rev<<<n / 64, 64>>>(y, x, n);
        BETWEEN
        add<<<n / 64, 64>>>(x, y, n);
    }
    cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
    printf("%f\\n", h[3]);
    return 0;
}
"""


def _fuse(tmp_path, between: str = ""):
    path = tmp_path / "steps.cu"
    path.write_text(KERNELS + MAIN.replace("BETWEEN", between))
    return path, process_file(str(path), RunOptions(), run_fuse)


def _warnings(result) -> list:
    return [d for d in result.diagnostics if d.severity.name == "WARNING"]


def test_a_dependence_between_launches_is_a_warning_naming_it(tmp_path, capsys):
    path, result = _fuse(tmp_path)
    assert not result.change.changed
    (said,) = _warnings(result)
    assert said.id == "fuse-unfused" and said.location.line == 21
    assert "2 of 2 launches of a run in 'main' left unfused (rev#0, add#1)" in said.message
    assert said.message.index("RAW") < said.message.index("recomputation:")   # the dependence first
    assert dict(result.counts) == {"left unfused": 2}
    assert main(["fuse", str(path)]) == 0                   # default verbosity: shown
    err = capsys.readouterr().err
    assert "[fuse-unfused]" in err and "0 would change, 0 failed, 2 left unfused" in err
    assert main(["fuse", "--strict", str(path)]) == 1


def test_a_call_that_ends_the_run_is_the_reason(tmp_path):
    _, result = _fuse(tmp_path, "cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost);")
    before, after = _warnings(result)       # one per launch run: rev's ends at the call too
    assert before.id == after.id == "fuse-unfused" and (before.location.line, after.location.line) == (21, 23)
    assert "launch of rev in 'main' is not fused with another launch: a call to cudaMemcpy at line 22 " \
           "ends its launch run" in before.message
    assert "launch of add in 'main' not fused with the launches before it: a call to " \
           "cudaMemcpy" in after.message
    assert dict(result.counts) == {"left unfused": 2}


def test_a_fused_run_says_nothing(tmp_path):
    path = tmp_path / "map.cu"
    path.write_text(KERNELS.replace("y[(i + 1) % n]", "y[i]").replace("x[n - 1 - i]", "x[i]")
                    + MAIN.replace("BETWEEN", ""))
    result = process_file(str(path), RunOptions(), run_fuse)
    assert result.change.changed and not _warnings(result)
    assert dict(result.counts) == {"left unfused": 0}


def test_mgpu_warns_of_a_run_time_fallback_it_can_see(tmp_path):
    path = tmp_path / "unsized.cu"
    path.write_text("""\
__global__ void fill(float *out, const void *tag, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * i;
}
int main()
{
    float *d;
    cudaMalloc(&d, 64 * sizeof(float));
    fill<<<2, 32>>>(d, d, 64);
    cudaFree(d);
    return 0;
}
""")
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.change.changed
    (said,) = _warnings(result)
    assert said.id == "mgpu-one-device" and said.location.line == 10
    assert "element size of 'tag' unknown to the model" in said.message


ROTATING = KERNELS + MAIN.replace("        BETWEEN\n", "        float *tmp = x;\n        x = y;\n        y = tmp;\n")


def test_a_pointer_rotation_between_launches_ends_the_run(tmp_path):
    # fusing rev and add across `x = y` would pass the rotated pointers to both stages (the
    # fused launch sits after the rotation): each launch is left, with the assignment named
    path = tmp_path / "rotating.cu"
    path.write_text(ROTATING)
    result = process_file(str(path), RunOptions(), run_fuse)
    assert not result.change.changed
    said = _warnings(result)
    assert [w.location.line for w in said] == [21, 25]
    assert all("'x' assigned at line 23, between launches that pass it" in w.message for w in said)
    assert "launch of rev in 'main' is not fused with another launch" in said[0].message
    assert dict(result.counts) == {"left unfused": 2}


def test_a_launch_alone_in_its_block_is_named(tmp_path):
    path = tmp_path / "branch.cu"
    path.write_text(KERNELS + MAIN.replace("        BETWEEN\n", "        if (t > 0) {\n"
                                           "            add<<<n / 64, 64>>>(y, x, n);\n        }\n"))
    result = process_file(str(path), RunOptions(), run_fuse)
    lone = [w for w in _warnings(result) if "only launch of its block" in w.message]
    assert [w.location.line for w in lone] == [23]



def test_a_launch_that_is_a_whole_body_without_braces_is_named(tmp_path):
    """XSBench's ``for (m = 0; m < 12; m++) k<<<g, b>>>(in, GSD, m);``: the reason names the
    loop (it used to say "it is not a statement of its own in a block")."""
    path = tmp_path / "bare.cu"
    path.write_text(KERNELS + MAIN.replace("        BETWEEN\n", "        if (t > 0)\n"
                                           "            add<<<n / 64, 64>>>(y, x, n);\n"
                                           "        else\n"
                                           "            rev<<<n / 64, 64>>>(x, y, n);\n"))
    result = process_file(str(path), RunOptions(), run_fuse)
    said = {w.location.line: w.message for w in _warnings(result) if "without braces" in w.message}
    assert sorted(said) == [23, 25]
    assert "whole then branch of the if statement at line 22" in said[23]
    assert "whole else branch of the if statement at line 22" in said[25]
    assert not any("not a statement of its own" in w.message for w in _warnings(result))


IN_PLACE = """\
#include <cstdio>
__global__ void add1(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += 1.0f; }
__global__ void twice(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2.0f; }
__global__ void shift(float *b, const float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[(i + 1) % n]; }
int main() {
  int n = 1024;
  float *a, *b, h[1024];
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMemset(a, 0, n * sizeof(float));
  add1<<<n / 256, 256>>>(a, n);
  twice<<<n / 256, 256>>>(a, n);
  shift<<<n / 256, 256>>>(b, a, n);
  cudaMemcpy(h, b, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("%f\\n", h[0]);
  return 0;
}
"""


def test_in_place_excerpts_show_the_original_line(tmp_path, capsys):
    """``--in-place`` writes the rewrite before the warnings are printed: their excerpts are
    the original's lines, which their line numbers name (they showed the rewritten file's)."""
    path = tmp_path / "p.cu"
    path.write_text(IN_PLACE)
    assert main(["fuse", "--in-place", str(path)]) == 0
    assert b"s2s_fused_0" in path.read_bytes()
    err = capsys.readouterr().err
    assert f"{path}:13:3: warning: 1 of 3 launches" in err, err
    assert "\n  shift<<<n / 256, 256>>>(b, a, n);\n  ^\n" in err, err
