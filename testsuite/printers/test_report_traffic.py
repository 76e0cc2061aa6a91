"""``s2s report`` on OpenMP programs: copies before and after (issue 20 item 3, the part left).

Statically: the transfer sites of the naive per-construct baseline and of the plan, with
bytes as numbers where the sizes are compile-time constants (macro, enumerator, const local,
all read from clang's AST) and as expressions in the program's names otherwise. With
``--run``: the copies LIBOMPTARGET_INFO counts in one run of each version.
"""

from __future__ import annotations

import re

import pytest

from s2s.analysis.omp.traffic import Transfer, section_length, total_bytes
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.host.constants import file_constants
from s2s.model import SourceSpan
from testsuite.printers.program import write_program
from testsuite.printers.test_report import make_report

# 10 steps of two kernels with their own tofrom maps; the sizes are a macro (N), a const local
# computed from it (half) and an enumerator (STEPS); a is double, b float.
CONSTANT_SIZES = """#include <stdio.h>
#include <stdlib.h>
#define N 1000
enum { STEPS = 10 };
int main(void)
{
    const int half = N / 2;
    double *a = (double *)malloc(N * sizeof(double));
    float *b = (float *)malloc(half * sizeof(float));
    for (int i = 0; i < N; i++)
        a[i] = i;
    for (int i = 0; i < half; i++)
        b[i] = 1.0f;
    for (int t = 0; t < STEPS; t++) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:N], b[0:half])
        for (int i = 0; i < half; i++)
            a[i] += b[i];
        #pragma omp target teams distribute parallel for map(tofrom: b[0:half])
        for (int i = 0; i < half; i++)
            b[i] *= 0.5f;
    }
    printf("%f %f\\n", a[0], a[N - 1]);
    free(a);
    free(b);
    return 0;
}
"""


def test_constant_sizes_give_numbers(tmp_path, monkeypatch, capsys):
    (tmp_path / "k.c").write_text(CONSTANT_SIZES)
    code, html, page = make_report(tmp_path, monkeypatch, "k.c")
    assert code == 0, capsys.readouterr().err
    text = " ".join(page.text)
    # before: 2 constructs: a (8,000 B) and b (2,000 B) both ways, then b both ways = 6 sites,
    # 24,000 B; after: a and b in at the region's entry (10,000 B), a[0] and a[N-1] out (16 B)
    assert "transfer sites 6 -> 4; bytes per pass over every site 24,000 B -> 10,016 B" in text
    rows = re.findall(r"<tr><td>(before|after)</td><td>(\d+)</td><td>(\w+)</td><td>(to|from)"
                      r"</td><td>([^<]*)</td><td>([^<]*)</td></tr>", html)
    assert ("before", "15", "a", "to", "N", "8,000 B") in rows
    assert ("before", "18", "b", "from", "half", "2,000 B") in rows
    assert [r for r in rows if r[0] == "after" and r[3] == "to"] == [
        ("after", "14", "a", "to", "N", "8,000 B"), ("after", "14", "b", "to", "half", "2,000 B")]
    assert sum(r[0] == "after" and r[3] == "from" and r[5] == "8 B" for r in rows) == 2


def test_run_time_sizes_stay_expressions_split_per_file(tmp_path, monkeypatch, capsys):
    """main.c allocates n doubles (n from argv), solver.c holds the kernels: the naive copies
    are solver.c's (in, out and a, both ways), the plan's are main.c's."""
    write_program(tmp_path)
    code, html, page = make_report(tmp_path, monkeypatch, "main.c", "solver.c")
    assert code == 0, capsys.readouterr().err
    text = " ".join(page.text)
    assert "transfer sites 6 -> 0; bytes per pass over every site 48*n -> 0 B" in text
    assert re.search(r"transfer sites 0 -> 3; bytes per pass over every site 0 B -> "
                     r"16\*n \+ 8\b", text)


def test_constants_come_from_the_ast(tmp_path):
    source = tmp_path / "c.c"
    source.write_text("""#define N 1024
#define M (N / 4)
#define F(x) ((x) + 1)
#define NAME "text"
enum { K = 3 };
static const int G = 2 * N;
struct S { double *x; float y[8]; };
double table[16][4];
int main(int argc, char **argv) {
  const int n = 100 + M;
  int m = argc;
  const int r = m * 2;
  double *a = 0;
  return n + r + (int)a[0] + F(1);
}
""")
    constants = file_constants(str(source), source.read_bytes(), ParseOptions())
    assert constants.value(None, "N") == 1024 and constants.value(None, "M") == 256
    assert constants.value(None, "K") == 3 and constants.value(None, "G") == 2048
    assert constants.value("main", "n") == 356
    for unknown in ("m", "r", "F", "NAME"):                  # not compile-time integers
        assert constants.value("main", unknown) is None
    assert constants.element("main", "a") == 8 and constants.element(None, "s->y") == 4
    assert constants.whole(None, "table") == 16 * 4 * 8 and constants.whole(None, "y") == 32


def _site(count, array="u", function="f"):
    return Transfer(SourceSpan("x.c", 0, 1, 1, 1), function, array, "to", count)


def test_byte_totals_fold_what_is_known():
    values = {("f", "n"): 10, (None, "W"): 4}
    total = total_bytes([_site("n * W"), _site("(n + 2) / 4"), _site("len"), _site(None)],
                        lambda f, n: values.get((f, n), values.get((None, n))),
                        lambda f, n: 8, lambda f, n: None)
    assert total.sites == 4 and total.value is None
    # 8*40 + 8*3 = 344, len stays a name, the unknown count a bytes() term
    assert total.expression == "bytes(u) + 8*len + 344"
    assert section_length("[0:n]") == "n" and section_length("") == ""
    assert section_length("[1:n][0:m]") == "(n) * (m)" and section_length("[2:]") is None


def test_run_measures_the_copies(tmp_path, monkeypatch, capsys):
    from s2s.verify import omp_harness

    if omp_harness.toolchain_problem() is not None:
        pytest.skip(f"no OpenMP offload toolchain: {omp_harness.toolchain_problem()}")
    (tmp_path / "k.c").write_text(CONSTANT_SIZES)
    code, html, page = make_report(tmp_path, monkeypatch, "k.c", "--run")
    assert code == 0, capsys.readouterr().err
    text = " ".join(page.text)
    # 10 steps x 3 maps each way before; the region's entry copies and two elements after
    assert ("host-to-device 30 copies / 120,000 B -> 2 / 10,000 B, device-to-host 30 / "
            "120,000 B -> 2 / 16 B; same output") in text
    assert "measured copies (--run)" in text


def test_vector_elements_and_call_counts(tmp_path):
    """A ``std::vector<float>`` member's element size comes from its template argument; a
    count that is a call (``v.size()``) stays one term of the expression."""
    source = tmp_path / "v.cpp"
    source.write_text("#include <vector>\nstruct Mesh { std::vector<float> m_e; };\n"
                      "int main() { std::vector<double> v(8); Mesh m; return (int)v[0]; }\n")
    constants = file_constants(str(source), source.read_bytes(), ParseOptions())
    assert constants.element(None, "m_e") == 4 and constants.element("main", "v") == 8
    total = total_bytes([_site("m_e.size()", "m_e"), _site("m_e.size()", "m_e")],
                        constants.value, constants.element, constants.whole)
    assert total.expression == "8*(m_e.size())"
