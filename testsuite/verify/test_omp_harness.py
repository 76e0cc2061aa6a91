"""s2s.verify.omp_harness: host-offload builds, copy counts, unmapped pointers, comparison.

The programs are built with clang-16 offloading to the host device; the tests that need it
skip (with the harness's reason) only when toolchain_problem() says the toolchain is missing.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from s2s.verify import omp_harness as h

PROGRAMS = {
    # one tofrom map of 100 doubles: 1 copy of 800 bytes each way
    "tofrom": """\
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 100;
  double *a = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) a[i] = i;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; ++i) a[i] *= 2.0;
  printf("%.6e\\n", a[n - 1]);
  free(a);
  return 0;
}
""",
    # b is a heap pointer used in the region with no mapping: works on the host device only
    "unmapped": """\
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 64;
  double *a = malloc(n * sizeof(double));
  double *b = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 0.0; }
#pragma omp target teams distribute parallel for map(to: a[0:n])
  for (int i = 0; i < n; ++i) b[i] = a[i] + 1.0;
  printf("%.6e\\n", b[n - 1]);
  free(a);
  free(b);
  return 0;
}
""",
    "mapped": """\
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 64;
  double *a = malloc(n * sizeof(double));
  double *b = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 0.0; }
#pragma omp target teams distribute parallel for map(to: a[0:n]) map(from: b[0:n])
  for (int i = 0; i < n; ++i) b[i] = a[i] + 1.0;
  printf("%.6e\\n", b[n - 1]);
  free(a);
  free(b);
  return 0;
}
""",
    # no map clause on the kernel, but both pointees are present through target data
    "present": """\
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 64;
  double *a = malloc(n * sizeof(double));
  double *b = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 0.0; }
#pragma omp target data map(to: a[0:n]) map(from: b[0:n])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; ++i) b[i] = a[i] + 1.0;
  }
  printf("%.6e\\n", b[n - 1]);
  free(a);
  free(b);
  return 0;
}
""",
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """name -> RunResult of each program of PROGRAMS (and 'unmapped_g0', built without -g)."""
    problem = h.toolchain_problem()
    if problem is not None:
        print(f"skipping: {problem}")
        pytest.skip(problem)
    tmp = tmp_path_factory.mktemp("harness")
    jobs = [(name, text, ()) for name, text in PROGRAMS.items()]
    jobs.append(("unmapped_g0", PROGRAMS["unmapped"], ("-g0",)))

    def build_and_run(job):
        name, text, flags = job
        src = tmp / f"{name}.c"
        src.write_text(text)
        h.build(src, tmp / name, extra_flags=flags)
        return name, h.run(tmp / name)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(build_and_run, jobs))


def test_known_copy_count(runs):
    result = runs["tofrom"]
    assert result.returncode == 0
    assert result.stdout == "1.980000e+02\n"
    assert result.copies == h.CopyStats(h2d_count=1, h2d_bytes=800, d2h_count=1, d2h_bytes=800)
    assert (result.copies.total_count, result.copies.total_bytes) == (2, 1600)
    assert result.unmapped == ()


def test_unmapped_heap_pointer_is_reported(runs):
    result = runs["unmapped"]
    assert result.returncode == 0 and result.stdout == "6.400000e+01\n"  # "works" on the host
    assert len(result.unmapped) == 1
    assert result.unmapped[0].startswith("b (kernel at unmapped.c:8:")


def test_unmapped_found_without_debug_names(runs):
    result = runs["unmapped_g0"]
    assert len(result.unmapped) == 1 and result.unmapped[0].startswith("unknown")


def test_mapped_pointers_are_not_reported(runs):
    assert runs["mapped"].unmapped == ()
    assert runs["mapped"].copies == h.CopyStats(1, 512, 1, 512)
    present = runs["present"]
    assert present.unmapped == ()
    assert present.copies == h.CopyStats(1, 512, 1, 512)
    assert present.stdout == runs["mapped"].stdout


def test_build_error_carries_stderr(tmp_path):
    if h.toolchain_problem() is not None:
        pytest.skip(h.toolchain_problem())
    src = tmp_path / "bad.c"
    src.write_text("int main(void) { return undeclared_thing; }\n")
    with pytest.raises(h.BuildError) as info:
        h.build([src], tmp_path / "bad")
    assert "undeclared_thing" in str(info.value)
    assert "undeclared_thing" in info.value.stderr


def test_language_and_command():
    assert h.language_of(["x.c"]) == "c"
    assert h.language_of(["x.c", "y.cpp"]) == "c++"
    cmd = h.build_command(["k.cc"], "k", extra_flags=("-DN=4",))
    assert cmd[0] == "clang++-16" and "-fopenmp-targets=x86_64-pc-linux-gnu" in cmd
    assert cmd.index("-DN=4") < cmd.index("k.cc")
    with pytest.raises(ValueError):
        h.build_command(["k.f90"], "k", language="fortran")


# --------------------------------------------------------------------------
# parsing and comparison (no compiler needed)
# --------------------------------------------------------------------------

_P = "Libomptarget device 0 info: "
_LOG = "\n".join(_P + line for line in [
    "Entering OpenMP kernel at t.c:8:3 with 3 arguments:",
    "firstprivate(n)[4] (implicit)",
    "use_address(b)[0] (implicit)",
    "use_address(a)[0] (implicit)",
    "tofrom(s)[8] (implicit)",
    "Mapping exists (implicit) with HstPtrBegin=0x3, TgtPtrBegin=0x4, Size=8, DynRefCount=2 "
    "(incremented), HoldRefCount=0, Name=b",
    "Mapping exists (implicit) with HstPtrBegin=0x1, TgtPtrBegin=0x2, Size=0, DynRefCount=2 "
    "(incremented), HoldRefCount=0, Name=a",
    "Copying data from host to device, HstPtr=0x3, TgtPtr=0x4, Size=8, Name=s",
    "Copying data from device to host, TgtPtr=0x4, HstPtr=0x3, Size=8, Name=s",
]) + "\nprogram output\n"


def test_parse_log():
    assert h.parse_copies(_LOG) == h.CopyStats(1, 8, 1, 8)
    assert h.parse_transfers(_LOG) == [("h2d", 8, "s"), ("d2h", 8, "s")]
    # the Size=8 look-up named b is not the zero-length section's look-up
    assert h.find_unmapped(_LOG) == [{"kernel": "t.c:8:3", "name": "b"}]
    assert h.find_unmapped(_LOG.replace("Size=8, DynRefCount", "Size=0, DynRefCount")) == []
    assert h.parse_copies("") == h.CopyStats(0, 0, 0, 0)


def test_compare_outputs():
    assert h.compare_outputs("x = 1.5\nsum 10\n", "x = 1.5\nsum 10") is None
    assert h.compare_outputs("x = 1.5", "x = 1.50") is None  # equal values
    assert h.compare_outputs("x = 1.5", "x = 1.50001") == "line 1: expected 'x = 1.5', got 'x = 1.50001'"
    assert h.compare_outputs("x = 1.5", "x = 1.50001", rel_tol=1e-4) is None
    assert h.compare_outputs("x = 1.5", "y = 1.5", rel_tol=1e-4) is not None
    assert h.compare_outputs("nan inf", "nan inf") is None
    assert h.compare_outputs("v 1 2", "v 1 2 3") is not None
    assert "line count" in h.compare_outputs("a\nb", "a")
    assert "line 2" in h.compare_outputs("a\nb\nc", "a\nB")
