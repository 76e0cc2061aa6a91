"""Element counts through def-use (issue 17, item 2): a byte size held in a variable, an
allocation returned by a helper, ``T *p = NULL; p = malloc(..)`` and calloc.

Programs written elsewhere rarely spell ``malloc(n * sizeof(T))`` at the pointer's definition;
without a count the array kept its per-kernel mapping, which for an unmapped pointer is an
implicit zero-length section (wrong on a GPU).
"""

from __future__ import annotations

from s2s.edits import EditSet
from s2s.frontend.core.parse import ParseOptions, parse_source
from s2s.transform.omp import run_omp
from testsuite.omp.omp_runs import run_both
from testsuite.omp.test_omp_plan import HEAD

SIZES = HEAD + """
static float *make(int n) { return (float *)malloc(n * sizeof(float)); }
int main(void) {
  int n = 4096;
  size_t bytes = n * sizeof(double);
  double *a = malloc(bytes);
  double *b = NULL;
  b = (double *)malloc(n * sizeof(double));
  float *c = make(n / 2 + n / 2);
  double *d = calloc(n, sizeof(double));
  for (int i = 0; i < n; i++) { a[i] = i; b[i] = 0; c[i] = 1; d[i] = 2; }
  for (int t = 0; t < 10; t++) {
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) b[i] += a[i] * c[i] + d[i];
  }
  printf("%f\\n", b[17]);
  free(a); free(b); free(c); free(d);
  return 0;
}
"""


def _model(load_source, text):
    loaded = load_source(text, name="prog.c")
    assert loaded.model is not None, [d.headline() for d in loaded.diagnostics]
    return loaded


def test_counts_from_a_size_variable_and_a_helper(load_source):
    loaded = _model(load_source, SIZES)
    counts = {a.name: a.count.text for a in loaded.model.allocations if a.count is not None}
    assert counts == {"a": "n", "b": "n", "c": "(n / 2 + n / 2)", "d": "n"}


def test_a_size_variable_assigned_again_gives_no_count(load_source):
    text = SIZES.replace("double *a = malloc(bytes);", "bytes += 8;\n  double *a = malloc(bytes);")
    counts = {a.name: a.count for a in _model(load_source, text).model.allocations}
    assert counts["a"] is None
    text = SIZES.replace("double *a = malloc(bytes);", "double *a = malloc(bytes);\n  "
                         "size_t *pb = &bytes; *pb = 1;")
    counts = {a.name: a.count for a in _model(load_source, text).model.allocations}
    assert counts["a"] is None


def test_a_helper_whose_count_uses_its_locals_gives_no_count(load_source):
    text = SIZES.replace("static float *make(int n) { return (float *)malloc(n * sizeof(float)); }",
                         "static float *make(int n) { int m = 2 * n; "
                         "return (float *)malloc(m * sizeof(float)); }")
    counts = {a.name: a.count for a in _model(load_source, text).model.allocations}
    assert "c" not in counts or counts["c"] is None


def test_every_array_is_mapped_and_the_program_runs_the_same(load_source, tmp_path):
    loaded = _model(load_source, SIZES)
    output = run_omp(loaded)
    assert dict(output.counts)["left unmapped"] == 0
    assert not [d for d in output.diagnostics if d.id == "omp-not-mapped"]
    rewritten = EditSet(output.edits).apply("prog.c", loaded.source)
    assert "map(to: a[0:n], b[0:n], c[0:(n / 2 + n / 2)], d[0:n])" in rewritten.decode()
    assert not [d for d in parse_source(rewritten, "prog.c", ParseOptions()).diagnostics
                if d.is_error]
    runs = run_both(tmp_path, SIZES, rewritten)
    assert runs[0].stdout == runs[1].stdout and runs[1].returncode == 0
    assert len(runs[0].unmapped) > 0 and runs[1].unmapped == ()


ONE_COUNTER = HEAD + """
int main(void) {
  int n = 1 << 12;
  double *x = malloc(n * sizeof(double));
  int *count = malloc(sizeof(int));
  for (int i = 0; i < n; i++) x[i] = (i * 37) % 101;
  for (int t = 0; t < 5; t++) {
    count[0] = 0;
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
      x[i] = x[i] * 0.5 + 1.0;
      if (x[i] > 50.0) {
        #pragma omp atomic
        count[0]++;
      }
    }
    printf("step %d: %d\\n", t, count[0]);
  }
  printf("%f\\n", x[3]);
  free(x); free(count);
  return 0;
}
"""


def test_malloc_of_one_element_is_a_count_of_one(load_source, tmp_path):
    """``malloc(sizeof(int))`` had no count: the counter kept an implicit zero-length
    mapping (wrong on a GPU, and s2s verify counted 5 unmapped uses after the rewrite)."""
    loaded = _model(load_source, ONE_COUNTER)
    counts = {a.name: a.count.text for a in loaded.model.allocations if a.count is not None}
    assert counts == {"x": "n", "count": "1"}
    output = run_omp(loaded)
    rewritten = EditSet(output.edits).apply("prog.c", loaded.source).decode()
    assert "map(alloc: count[0:1])" in rewritten
    assert "#pragma omp target update from(count[0:1])" in rewritten
    runs = run_both(tmp_path, ONE_COUNTER, rewritten)
    assert runs[0].stdout == runs[1].stdout and runs[1].unmapped == ()
