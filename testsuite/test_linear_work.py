"""Work linear in the size of the input: quadratic regressions caught by counting, not timing.

A 1 MB source on one line once took minutes (issue 16, item 11): the OpenMP extractor walked
back over the line's tokens from every ``_Pragma``, the transfer analysis filtered every call,
reference and statement of a function for each of its statements, the fusion planner
re-evaluated a function's declarations and allocations and re-masked its text for every
launch run. Each test here processes one-line inputs of N and 2N units under cProfile and
checks that no function of s2s (or builtin it calls) is called more than about twice as often
for the doubled input: a quadratic loop shows up as four times the calls, whatever the speed
of the machine. ``scripts/bench_pathological.py`` measures the times at 1 MB.
"""

from __future__ import annotations

import cProfile
import pstats

from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.core.toolchain import Toolchain
from s2s.frontend.extract import load

#: allowed growth of a call count when the input doubles (linear: 2, quadratic: 4)
GROWTH = 2.6
#: counts below this at the doubled size are too small to judge
FLOOR = 200


def _shim() -> ParseOptions:
    return ParseOptions(toolchain=Toolchain(cuda_path=None, omp_include=None))


def _calls(work) -> dict[tuple[str, str], int]:
    """Calls per function of s2s and per builtin while ``work()`` runs."""
    profile = cProfile.Profile()
    profile.enable()
    try:
        work()
    finally:
        profile.disable()
    counts: dict[tuple[str, str], int] = {}
    for (path, _line, name), row in pstats.Stats(profile).stats.items():
        if "/s2s/" in path or path == "~":
            key = (path.rsplit("/s2s/", 1)[-1], name)
            counts[key] = counts.get(key, 0) + row[1]
    return counts


def _superlinear(generate, name: str, passes, units: int, one_line: bool = True) -> list[str]:
    """Functions called more than GROWTH times as often for 2 * units as for units."""
    counts = []
    for n in (units, 2 * units):
        source = generate(n).encode()
        assert source.count(b"\n") <= 1 or not one_line

        def work(source=source):
            loaded = load(name, _shim(), source=source)
            assert loaded.model is not None, [d.headline() for d in loaded.diagnostics]
            for run_pass in passes:
                run_pass(loaded)

        counts.append(_calls(work))
    small, large = counts
    return [f"{key}: {small.get(key, 0)} -> {count}" for key, count in sorted(large.items())
            if count >= FLOOR and count > GROWTH * small.get(key, 0)]


def _pragma_operators(n: int) -> str:
    """C functions with ``_Pragma("omp target ...")`` loops, all on one line."""
    return " ".join(
        f"void f{i}(float *a, int n) {{ "
        f'_Pragma("omp target teams distribute parallel for map(tofrom: a[0:n])") '
        f"for (int j = 0; j < n; j++) a[j] += {i}.0f; }}" for i in range(n)) + "\n"


def _one_host_function(n: int) -> str:
    """Kernels, then one host function allocating, copying, launching twice and freeing n
    buffers, all on one line."""
    kernels = " ".join(f"__global__ void k{i}(float *x, int n) {{ int t = blockIdx.x * blockDim.x "
                       f"+ threadIdx.x; if (t < n) x[t] = x[t] * {i + 2}.0f; }}" for i in range(4))
    body = " ".join(
        f"float *d{i}; cudaMalloc((void **)&d{i}, bytes); "
        f"cudaMemcpy(d{i}, h, bytes, cudaMemcpyHostToDevice); "
        f"k{i % 4}<<<(n + 255) / 256, 256>>>(d{i}, n); k{(i + 1) % 4}<<<(n + 255) / 256, 256>>>(d{i}, n); "
        f"cudaMemcpy(h, d{i}, bytes, cudaMemcpyDeviceToHost); h[{i}] += 1.0f; cudaFree(d{i});"
        for i in range(n))
    return (f"#include <cuda_runtime.h>\n{kernels} static float h[4096]; int main(void) {{ "
            f"int n = 1024; size_t bytes = n * sizeof(float); {body} return (int)h[0]; }}")


def _many_functions(n: int) -> str:
    """Small C functions with branches, loops and calls, on one line."""
    return " ".join(f"static int f{i}(int x, int *v) {{ int y = x * {i % 7} + 1; if (y > {i}) y -= {i}; "
                    f"for (int k = 0; k < 4; k++) v[k] += y; return y; }}" for i in range(n)) + "\n"


def _main_calling_offload_functions(n: int) -> str:
    """A whole program in the small (as scripts/bench_omp.py --scale generates it): n
    functions with a target region each, and a main that allocates the arrays, calls them
    all and reads a result on the host after each (an update per call). Not one line: a
    ``_Pragma`` directive is not analysed."""
    functions = "".join(
        f"void f{i}(int n, const double *x, double *y)\n{{\n"
        "#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])\n"
        f"    for (int j = 0; j < n; j++) y[j] += {i + 1}.0 * x[j];\n}}\n" for i in range(n))
    calls = "".join(f"    f{i}(n, x, y);\n    s += y[{i % 7}];\n" for i in range(n))
    return ("#include <stdlib.h>\n" + functions + "int main(void)\n{\n    int n = 1000;\n"
            "    double s = 0;\n    double *x = (double *)malloc(n * sizeof(double));\n"
            "    double *y = (double *)malloc(n * sizeof(double));\n"
            "    for (int j = 0; j < n; j++) { x[j] = j; y[j] = 0; }\n" + calls +
            "    free(x);\n    free(y);\n    return (int)s;\n}\n")


def test_a_main_calling_many_offload_functions_is_linear():
    """The plan of a main calling n offload functions: the construct report matched every
    region clause against each directive, the solver scanned the top-level statements for
    each copy it placed (both quadratic in n)."""
    from s2s.transform.omp import run_omp

    assert _superlinear(_main_calling_offload_functions, "input.c", [run_omp], 60,
                        one_line=False) == []


def test_one_line_pragma_operators_are_linear():
    from s2s.transform.omp import run_omp

    assert _superlinear(_pragma_operators, "input.c", [run_omp], 150) == []


def test_one_long_host_function_is_linear(monkeypatch):
    from s2s.transform.fuse import run_fuse
    from s2s.transform.mgpu import run_mgpu
    from s2s.transform.transfers import run_transfers

    monkeypatch.setenv("S2S_FUSE_NVCC", "0")  # no ptxas resource check in a unit test
    assert _superlinear(_one_host_function, "input.cu", [run_transfers, run_fuse, run_mgpu], 16) == []


def test_one_line_of_many_functions_is_linear():
    from s2s.transform.omp import run_omp

    assert _superlinear(_many_functions, "input.c", [run_omp], 150) == []


def _long_sum(n: int) -> str:
    """``return x+x+...+x`` of n terms: a left spine n operators deep."""
    return "int f(int x) { return " + "+".join(["x"] * n) + "; }\n"


def _location_lookups(source: str) -> dict[str, int]:
    """libclang location lookups per cursor kind while ``source`` is loaded."""
    from s2s.frontend.core.toolchain import configure_libclang

    cindex = configure_libclang()
    lib, counts = cindex.conf.lib, {}
    real = lib.clang_getCursorLocation

    def counting(cursor):
        name = cindex.CursorKind.from_id(cursor._kind_id).name
        counts[name] = counts.get(name, 0) + 1
        return real(cursor)

    lib.clang_getCursorLocation = counting
    try:
        loaded = load("input.c", _shim(), source=source.encode())
    finally:
        lib.clang_getCursorLocation = real
    assert loaded.model is not None
    return counts


def test_a_long_sum_asks_no_operator_location():
    """libclang finds a binary operator's location at the start of its left operand, a walk
    down the left spine: asked for every operator of x+x+...+x (the main-file walk did), the
    front end took the square of the sum's length (40k terms 20 s, 80k 80 s). The operands of
    a main-file expression are in the main file: their locations are not asked for."""
    for n in (2000, 4000):
        assert _location_lookups(_long_sum(n)).get("BINARY_OPERATOR", 0) <= 1, n


def test_a_long_sum_is_linear():
    from s2s.transform.omp import run_omp

    assert _superlinear(_long_sum, "input.c", [run_omp], 2000) == []


def test_the_check_sees_a_quadratic_loop():
    """The check itself: a helper that scans every earlier statement for each one fails it."""
    from s2s.model.span import SourceSpan

    def quadratic(n: int) -> str:
        return " ".join(f"int v{i} = {i};" for i in range(n))

    def scan_all(loaded):
        spans = [SourceSpan("x", i, i + 1, 1, i + 1) for i in range(len(loaded.source) // 4)]
        for i, a in enumerate(spans):
            for b in spans[:i]:
                a.contains(b)

    found = _superlinear(quadratic, "input.c", [scan_all], 8)
    assert any("contains" in line for line in found)
