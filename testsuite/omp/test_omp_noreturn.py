"""A program's own error function that never returns is a guard's way out (issue 28, hotspot).

``if (n < 3 || sweeps < 1) fatal("...");`` proves ``sweeps >= 1`` past it as a ``return``
would, when ``fatal`` never returns: declared so (``_Noreturn``, ``[[noreturn]]``,
``__attribute__((noreturn))``), or every path of its body ends in ``exit``/``abort``/another
such function, also when another file of the program defines it. The sweep loop then
surely runs, its first sweep writes ``b``'s interior before anything reads it, and only
``b``'s end points go to the device.
"""

from __future__ import annotations

import pytest

from s2s.analysis.omp.facts import guard_facts, never_returning
from s2s.analysis.omp.plan import plan_file
from s2s.model.program import merge_units
from testsuite.omp.omp_runs import rewrite_source, run_both

HEAD = "#include <stdio.h>\n#include <stdlib.h>\n"

FATAL = """
static void fatal(const char *message) {
    fprintf(stderr, "error: %s\\n", message);
    if (message[0] == 0)
        abort();
    else
        exit(1);
}
"""

MAIN = """
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int sweeps = argc > 2 ? atoi(argv[2]) : 3;
    if (n < 3 || sweeps < 1)
        fatal("need n >= 3 and sweeps >= 1");
    double *a = malloc(n * sizeof(double)), *b = calloc(n, sizeof(double));
    double *s = malloc(sizeof(double));
    for (int i = 0; i < n; i++) a[i] = i % 7;
    b[0] = 1.5; b[n - 1] = -2.5;
    for (int t = 0; t < sweeps; t++) {
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 1; i < n - 1; i++) b[i] = 0.5 * (a[i - 1] + a[i + 1]);
        #pragma omp target teams distribute parallel for map(tofrom: a[0:n], b[0:n])
        for (int i = 1; i < n - 1; i++) a[i] = b[i];
    }
    #pragma omp target map(tofrom: b[0:n], s[0:1])
    { s[0] = 0; for (int i = 0; i < n; i++) s[0] += b[i]; }
    printf("%f %f\\n", s[0], a[n / 2]);
    free(a); free(b); free(s);
    return 0;
}
"""

ENDS_ONLY = ("b[0:1]", "b[n - 1:1]")


def _entry_updates(model, source) -> tuple:
    [region] = plan_file(model, source).regions
    return region.entry_updates


def test_a_guard_through_an_exiting_function_proves_the_loop_runs(load_source, tmp_path):
    program = HEAD + FATAL + MAIN
    loaded = load_source(program, name="prog.c")
    assert never_returning(loaded.model) >= {"fatal", "exit", "abort"}
    assert _entry_updates(loaded.model, loaded.source) == ENDS_ONLY
    rewritten, _ = rewrite_source(load_source, program, name="prog.c")
    assert "target update to(b[0:1])" in rewritten and "to(b[0:n])" not in rewritten
    original, new = run_both(tmp_path, program, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
    # in: a[0:n] and b's two end points (s is written on the device first); back: s[0]
    # and the one element of a the host reads
    n = 100
    assert (new.copies.h2d_bytes, new.copies.d2h_bytes) == (n * 8 + 2 * 8, 8 + 8)
    assert new.copies.total_bytes < original.copies.total_bytes


@pytest.mark.parametrize("declaration", [
    "_Noreturn void fatal(const char *message);",
    "void fatal(const char *message) __attribute__((noreturn));",
])
def test_a_function_declared_never_to_return(load_source, declaration):
    # its body is elsewhere (not seen): the declaration alone says it
    loaded = load_source(HEAD + declaration + "\n" + MAIN, name="prog.c")
    assert "fatal" in never_returning(loaded.model)
    assert _entry_updates(loaded.model, loaded.source) == ENDS_ONLY


def test_cxx11_noreturn_attribute(load_source):
    loaded = load_source(HEAD + "[[noreturn]] void fatal(const char *message);\n"
                         "int main(int argc, char **) { if (argc < 2) fatal(\"usage\"); }\n",
                         name="prog.cpp")
    assert loaded.model is not None, [d.headline() for d in loaded.diagnostics]
    assert "fatal" in never_returning(loaded.model)


def test_an_exiting_function_defined_in_another_file(load_source):
    util = load_source(HEAD + FATAL.replace("static ", ""), name="util.c")
    main = load_source(HEAD + "void fatal(const char *message);\n" + MAIN, name="main.c")
    assert "fatal" not in never_returning(main.model)   # main.c alone cannot tell
    program = merge_units([(main.model, main.source), (util.model, util.source)])
    assert "fatal" in never_returning(program.unit)
    assert _entry_updates(program.unit, program.source) == ENDS_ONLY


@pytest.mark.parametrize("body", [
    "fprintf(stderr, \"%s\\n\", message); if (message[0]) exit(1);",   # may fall through
    "if (message[0] == 0) return; exit(1);",                           # may return
    "while (message[0]) exit(1);",                                     # a loop may not run
    "message[0] || (exit(1), 0);",                                     # an operand may not run
])
def test_a_function_that_may_return_gives_no_fact(load_source, body):
    program = HEAD + "static void fatal(const char *message) {" + body + "}\n" + MAIN
    loaded = load_source(program, name="prog.c")
    assert "fatal" not in never_returning(loaded.model)
    assert _entry_updates(loaded.model, loaded.source) != ENDS_ONLY


CXX_GUARDS = """#include <cstdlib>
#include <cstdio>
#define DIE(m) fatal(m)
void fatal(const char *m) { std::fprintf(stderr, "%s", m); std::exit(2); }
void on_error(void (*handler)(int) __attribute__((noreturn))) { std::fprintf(stderr, "-"); }
int main(int argc, char **argv) {
    double x[4];
    #pragma omp target map(tofrom: x[0:4])
    x[0] = argc;
    if (argc < 2) std::exit(1);
    if (argc < 3) DIE("x");
    if (argc < 4) { ::exit(3); }
    if (argc < 5) on_error(std::exit);
    return 0;
}
"""


def test_cxx_exits_behind_an_exception_specification_and_a_macro(load_source):
    # <cstdlib>'s exit is `void (int) __attribute__((noreturn)) noexcept(true)`; a
    # parameter's noreturn function pointer says nothing of the function itself (on_error
    # returns: no argc >= 5)
    loaded = load_source(CXX_GUARDS, name="prog.cpp")
    assert never_returning(loaded.model) >= {"exit", "fatal"}
    main = loaded.model.function("main")
    assert guard_facts(loaded.model, main, main.span.end) == {"argc": 4}
