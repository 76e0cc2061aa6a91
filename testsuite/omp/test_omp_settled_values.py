"""Integer values compared from the AST, not from their text (issue 28: plans above the expert
caused by facts read from text).

* ``npix = (count_t)width * height;`` (a cast through the program's own typedef) is the
  count of the buffers, and a loop nest over ``y < height``, ``x < width`` writes all of
  them: the value with its integral casts taken off (``VarUse.integral``) and the settled
  definition of ``npix`` (omp.settled) make the cover see the whole buffer written, so it
  is allocated on the device, not copied in (blur_pipeline).
* ``size_t c = IDX(i, j, ny);`` through a macro is the kernel's index local ``i * ny + j``
  (omp.index_locals from the mentions, the macro expanded): the kernel overwrites ``un``
  through an if/else, so ``un`` is allocated, not copied in (macro_pragma_heat).

* ``int n = w * h;`` then ``w = 2 * w;``: ``n`` no longer stands for ``w * h`` where the plan
  compares the sections the host reads after a region (omp.ir's definitions follow the rule
  of omp.settled): before, ``a[0:n]`` alone came back where the host reads ``a[0:w * h]``
  too (wrong output).

Parsed in memory; each rewrite is built once and run on clang-16 host offload and with
offload disabled (the original program's output: omp_runs.run_rewrite_and_host).
"""

from __future__ import annotations

from s2s.analysis.omp.ir import IRBuilder
from s2s.analysis.omp.settled import settled_definitions
from testsuite.omp.omp_runs import rewrite_source, run_rewrite_and_host

VALUES = """#include <stddef.h>
#include <stdlib.h>
#define IDX(i, j, ny) ((size_t)(i) * (size_t)(ny) + (size_t)(j))
typedef unsigned long count_t;
int pick(int n);

int main(int argc, char **argv)
{
    int width, height;
    count_t npix;
    width = argc > 1 ? 64 : 32;
    height = 48;
    npix = (count_t)width * height;
    long shifted = (long)(width - 1) * 2 + -3;
    size_t c = IDX(width, height, 7);
    int scaled = (int)(width * 2.5);
    int picked = pick(width) + 1;
    int later = width * 2;
    int depth = 3;
    int moved = depth + 1;
    depth = 0;
    int *where = &later;
    char *keep = malloc(npix);  /* (an allocation: main's mentions are extracted) */
    free(keep);
    return (int)npix + (int)shifted + (int)c + scaled + picked + later + moved + depth + *where;
}
"""


def test_integer_values_are_read_without_their_casts(load_source):
    model = load_source(VALUES, name="values.c", user_flags=("-fopenmp",)).model
    integral = {u.name: u.integral for u in model.var_uses if u.role in ("init", "assign")}
    assert integral["npix"] == "width * height"
    assert integral["shifted"] == "(width - 1) * 2 + (-3)"
    assert integral["c"] == "(width * 7 + height)"    # IDX(i, j, ny) expanded, from the AST
    assert integral["scaled"] is None                 # a double operand
    assert integral["picked"] is None                 # a call
    main = next(f for f in model.functions if f.name == "main")
    settled = settled_definitions(model, main)
    # npix: declared, then one assignment in main's own sequence; moved's depth changes
    # after it; later's address is taken
    assert settled["npix"] == "width * height"
    assert settled["c"] == "(width * 7 + height)"
    assert "moved" not in settled and "later" not in settled and "width" not in settled
    # the IR's definitions (the sections the plan compares) follow the same rule: moved's
    # depth changes after it, so moved is no longer depth + 1; shifted's width does not
    definitions = IRBuilder(model, VALUES.encode()).build_all()["main"].definitions
    assert "moved" not in definitions and definitions["shifted"] == "(long)(width - 1) * 2 + -3"


BLUR = """#include <stdio.h>
#include <stdlib.h>

typedef unsigned long count_t;

static float *make_buffer(count_t pixels)
{
    count_t bytes;
    bytes = pixels * sizeof(float);
    float *buf = (float *)malloc(bytes);
    if (buf == NULL) {
        perror("make_buffer");
        exit(1);
    }
    for (count_t i = 0; i < pixels; i++)
        buf[i] = 0.0f;
    return buf;
}

int main(int argc, char **argv)
{
    int width, height;
    count_t npix;
    width = argc > 1 ? atoi(argv[1]) : 40;
    height = argc > 2 ? atoi(argv[2]) : 30;
    npix = (count_t)width * height;
    float *src = make_buffer(npix);
    float *tmp = make_buffer(npix);
    for (count_t i = 0; i < npix; i++)
        src[i] = (float)(i % 13);
    for (int f = 0; f < 3; f++) {
        #pragma omp target teams distribute parallel for collapse(2)
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                tmp[y * width + x] = 0.5f * src[y * width + x];
        #pragma omp target teams distribute parallel for collapse(2)
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) {
                int ym = y < 1 ? 0 : y - 1;
                src[y * width + x] += tmp[(count_t)ym * width + x];
            }
    }
    double sum = 0.0;
    for (count_t i = 0; i < npix; i++)
        sum += src[i];
    printf("%.3f\\n", sum);
    free(src);
    free(tmp);
    return 0;
}
"""

HEAT = """#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

#define IDX(i, j, ny) ((size_t)(i) * (size_t)(ny) + (size_t)(j))

static void heat_step(const double *u, double *un, int nx, int ny, double alpha)
{
    #pragma omp target teams distribute parallel for collapse(2)
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            size_t c = IDX(i, j, ny);
            if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1)
                un[c] = u[c];
            else
                un[c] = u[c] + alpha * (u[IDX(i - 1, j, ny)] + u[IDX(i + 1, j, ny)] +
                                        u[IDX(i, j - 1, ny)] + u[IDX(i, j + 1, ny)] - 4.0 * u[c]);
        }
}

static void heat_copy(double *dst, const double *src, int nx, int ny)
{
    #pragma omp target teams distribute parallel for
    for (size_t k = 0; k < (size_t)nx * (size_t)ny; k++)
        dst[k] = src[k];
}

int main(void)
{
    int nx = 24, ny = 20;
    double *u = (double *)malloc((size_t)nx * (size_t)ny * sizeof(double));
    double *un = (double *)calloc((size_t)nx * (size_t)ny, sizeof(double));
    for (int k = 0; k < nx * ny; k++)
        u[k] = (k % 9 == 0) ? 1.0 : 0.0;
    for (int step = 0; step < 5; step++) {
        heat_step(u, un, nx, ny, 0.2);
        heat_copy(u, un, nx, ny);
    }
    double sum = 0.0;
    for (int k = 0; k < nx * ny; k++)
        sum += u[k] * (k % 5);
    printf("%.6f\\n", sum);
    free(u);
    free(un);
    return 0;
}
"""


def _entry_of(rewritten: str) -> str:
    return next(line for line in rewritten.splitlines() if "target data" in line or
                "target enter data" in line)


def test_a_count_defined_through_a_cast_is_the_nest_written_whole(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, BLUR, name="blur.c")
    assert dict(out.counts)["target regions mapped"] == 2, [d.message for d in out.diagnostics]
    entry = _entry_of(rewritten)
    assert "alloc: " in entry and "tmp[0:npix]" in entry.split("alloc: ")[1], entry
    original, new = run_rewrite_and_host(tmp_path, BLUR, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    # tmp (4,800 bytes) no longer goes in: src goes in and comes back, nothing else moves
    assert new.copies.total_bytes == 2 * 40 * 30 * 4, new.copies


def test_an_index_local_written_through_a_macro_is_the_nest(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, HEAT, name="heat.c")
    assert dict(out.counts)["target regions mapped"] == 2, [d.message for d in out.diagnostics]
    entry = _entry_of(rewritten)
    assert "alloc: " in entry and "un[" in entry.split("alloc: ")[1], entry
    original, new = run_rewrite_and_host(tmp_path, HEAT, rewritten)
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
    assert new.copies.total_bytes == 2 * 24 * 20 * 8, new.copies


GROW = """#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 40;
    int h = 30;
    int n = w * h;
    float *a = (float *)malloc(4096 * sizeof(float));
    for (int i = 0; i < 4096; i++)
        a[i] = 0.0f;
    w = 2 * w;
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < w * h; i++)
        a[i] = (float)(i % 7);
    double first = 0.0, all = 0.0;
    for (int i = 0; i < n; i++)
        first += a[i];
    for (int i = 0; i < w * h; i++)
        all += a[i];
    printf("%.1f %.1f\\n", first, all);
    free(a);
    return 0;
}
"""


def test_a_count_whose_operand_changes_later_is_not_its_value(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, GROW, name="grow.c")
    assert dict(out.counts)["target regions mapped"] == 1, [d.message for d in out.diagnostics]
    # what the kernel wrote comes back, a[0:h*w] (before: a[0:n] only, n taken for w * h);
    # a[0:n] needs no copy of its own: its stale elements are among those (omp28s)
    assert "target update from(a[0:h*w])" in rewritten, rewritten
    assert "target update from(a[0:n])" not in rewritten, rewritten
    original, new = run_rewrite_and_host(tmp_path, GROW, rewritten)
    # the reference is the program's meaning: the first n = 1,200 elements, then all 2,400
    expected = f"{sum(i % 7 for i in range(1200)):.1f} {sum(i % 7 for i in range(2400)):.1f}\n"
    assert original.stdout == expected, original.stdout
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()


#: GROW with the count in a struct member: ``int n = p.len;`` then ``p.len = 2 * p.len;``
GROW_MEMBER = """#include <stdio.h>
#include <stdlib.h>

typedef struct { int len; int steps; } shape_t;

int main(int argc, char **argv)
{
    shape_t p;
    p.len = argc > 1 ? atoi(argv[1]) : 1200;
    p.steps = 1;
    int n = p.len;
    float *a = (float *)malloc(4096 * sizeof(float));
    for (int i = 0; i < 4096; i++)
        a[i] = 0.0f;
    p.len = 2 * p.len;
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < p.len; i++)
        a[i] = (float)(i % 7);
    double first = 0.0, all = 0.0;
    for (int i = 0; i < n; i++)
        first += a[i];
    for (int i = 0; i < p.len; i++)
        all += a[i];
    printf("%.1f %.1f\\n", first, all);
    free(a);
    return 0;
}
"""


def test_a_count_read_from_a_member_written_later_is_not_its_value(load_source, tmp_path):
    rewritten, out = rewrite_source(load_source, GROW_MEMBER, name="grow.c")
    assert dict(out.counts)["target regions mapped"] == 1, [d.message for d in out.diagnostics]
    # before: n stood for the text p.len, and a[0:n] alone came back (wrong output); now
    # a[0:p.len], all the kernel wrote, comes back, which holds the host's read of a[0:n]
    # too (omp.arrays: a part beside the written section is not copied again)
    assert "target update from(a[0:p.len])" in rewritten, rewritten
    assert "target update from(a[0:n])" not in rewritten, rewritten
    definitions = IRBuilder(load_source(GROW_MEMBER, name="grow.c").model,
                            GROW_MEMBER.encode()).build_all()["main"].definitions
    assert "n" not in definitions
    kept = GROW_MEMBER.replace("    p.len = 2 * p.len;\n", "")   # never written again: kept
    assert IRBuilder(load_source(kept, name="grow.c").model,
                     kept.encode()).build_all()["main"].definitions["n"] == "p.len"
    # &p handed to a function taking a pointer to const keeps it; to one that writes, not
    for callee, value in (("static int look(const shape_t *s) { return s->len; }\n", "p.len"),
                          ("static int grow(shape_t *s) { s->len *= 2; return 0; }\n", None)):
        name = callee.split("(")[0].split()[-1]
        program = kept.replace("int main(", callee + "\nint main(").replace(
            "    float *a", f"    (void){name}(&p);\n    float *a")
        definitions = IRBuilder(load_source(program, name="grow.c").model,
                                program.encode()).build_all()["main"].definitions
        assert definitions.get("n") == value, (name, definitions)
    original, new = run_rewrite_and_host(tmp_path, GROW_MEMBER, rewritten)
    expected = f"{sum(i % 7 for i in range(1200)):.1f} {sum(i % 7 for i in range(2400)):.1f}\n"
    assert original.stdout == expected, original.stdout
    assert new.returncode == 0 and new.stdout == original.stdout and new.unmapped == ()
