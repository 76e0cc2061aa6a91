"""The summary never lies (issue 28, item 2): its counts are those of the rewrite emitted.

Each program is rewritten as a program of files, built with clang-16 host offload and run:
the summary's "left unmapped" must equal the constructs LIBOMPTARGET_INFO shows using an
implicit zero-length mapping, and the output must be the stripped program's (on the host
device, unmapped pointers are host addresses: the stripped program prints the right answer).

- A function's data region whose rewrite fails the compile check (forced here: the check is
  told to reject it) was dropped while the summary counted its constructs mapped; now they
  get the safety net's clauses of their own, or are counted left when those fail too.
- A pointer reached only through a copy in the kernel (``row = src + y * width``) with no
  known count: counted left (it was counted mapped).
- A callee's kernel reading a scalar member (``P->h``) of a struct the caller's region maps
  member by member: the region maps it (the device read garbage, and the summary said
  mapped).
"""

from __future__ import annotations

import pytest

import s2s.driver
from s2s.diagnostics import Diagnostic, Location
from s2s.driver import RunOptions, Success
from s2s.transform.omp import run_omp
from s2s.verify import omp_harness
from s2s.whole_program import process_program

HEAT_H = """#ifndef HEAT_H
#define HEAT_H
void diffuse(const double *u, double *v, int n, double k);
#endif
"""

HEAT_KERNELS = """#include "heat.h"

void diffuse(const double *u, double *v, int n, double k)
{
#pragma omp target teams distribute parallel for
    for (int i = 1; i < n - 1; i++)
        v[i] = u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}
"""

HEAT_MAIN = """#include <stdio.h>
#include <stdlib.h>
#include "heat.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    int steps = argc > 2 ? atoi(argv[2]) : 40;
    double *u = malloc(sizeof(double) * n);
    double *v = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        u[i] = v[i] = (i == n / 2) ? 100.0 : 0.0;
    for (int s = 0; s < steps; s++) {
        diffuse(u, v, n, 0.25);
        double *t = u;
        u = v;
        v = t;
    }
    double moment = 0.0;
    for (int i = 0; i < n; i++)
        moment += u[i] * (i - n / 2) * (i - n / 2);
    printf("second moment %.6f\\n", moment);
    free(u);
    free(v);
    return 0;
}
"""

BLUR_MAIN = """#include <stdio.h>
#include <stdlib.h>
#include "image.h"

static void blur_rows(const float *src, float *dst, int width, int height)
{
#pragma omp target teams distribute parallel for
    for (int y = 0; y < height; y++) {
        const float *row = src + y * width;
        for (int x = 1; x < width - 1; x++)
            dst[y * width + x] = 0.25f * row[x - 1] + 0.5f * row[x] + 0.25f * row[x + 1];
    }
}

int main(int argc, char **argv)
{
    int width = argc > 1 ? atoi(argv[1]) : 96;
    int height = argc > 2 ? atoi(argv[2]) : 64;
    float *src = image_load(width, height);
    float *dst = calloc((size_t)width * height, sizeof(float));
    blur_rows(src, dst, width, height);
    double sum = 0.0;
    for (int i = 0; i < width * height; i++)
        sum += dst[i];
    printf("blurred sum %.3f\\n", sum);
    free(src);
    free(dst);
    return 0;
}
"""

IMAGE_H = """#ifndef IMAGE_H
#define IMAGE_H
float *image_load(int width, int height);
#endif
"""

IMAGE_C = """#include <stdlib.h>
#include "image.h"

float *image_load(int width, int height)
{
    float *img = malloc(sizeof(float) * width * height);
    for (int i = 0; i < width * height; i++)
        img[i] = (float)((i * 7) % 23);
    return img;
}
"""

SPH_H = """#ifndef PARTICLES_H
#define PARTICLES_H
typedef struct {
    int n;
    double h;
    double *x, *mass, *rho;
} Particles;
Particles *particles_create(int n, double h);
#endif
"""

SPH_CREATE = """#include <stdlib.h>
#include "particles.h"

Particles *particles_create(int n, double h)
{
    Particles *p = malloc(sizeof(Particles));
    p->n = n;
    p->h = h;
    p->x = malloc(sizeof(double) * n);
    p->mass = malloc(sizeof(double) * n);
    p->rho = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        p->x[i] = 0.01 * i;
        p->mass[i] = 1.0 + (i % 3);
    }
    return p;
}
"""

SPH_MAIN = """#include <stdio.h>
#include <stdlib.h>
#include "particles.h"

static void density(Particles *P)
{
    const int n = P->n;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int j = 0; j < n; j++) {
            double q = (P->x[i] - P->x[j]) / P->h;
            if (q * q < 4.0)
                sum += P->mass[j] * (4.0 - q * q);
        }
        P->rho[i] = sum / P->h;
    }
}

static void drift(Particles *P, double dt)
{
    const int n = P->n;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++)
        P->x[i] += dt * (P->rho[i] > 40.0 ? 0.001 : -0.001);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 400;
    Particles *P = particles_create(n, 0.05);
    for (int s = 0; s < 4; s++) {
        density(P);
        drift(P, 0.5);
    }
    density(P);
    double total = 0.0;
    for (int i = 0; i < P->n; i++)
        total += P->rho[i];
    printf("mean density %.6f\\n", total / P->n);
    return 0;
}
"""


def _rewrite_and_run(tmp_path, files: dict[str, str], given: list[str]):
    """(the summary's counts, the stripped program's run, the rewrite's run, results)."""
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    sources = [name for name in files if name.endswith(".c")]
    results = process_program([str(tmp_path / name) for name in given], RunOptions(), run_omp)
    assert all(isinstance(r, Success) for r in results), results
    counts = dict(results[0].counts)
    rewritten = tmp_path / "rewritten"
    rewritten.mkdir()
    by_path = {r.path: r.change.after for r in results}
    for name in sources:
        text = by_path.get(str(tmp_path / name), files[name].encode())
        (rewritten / name).write_bytes(text)
    runs = []
    for folder in (tmp_path, rewritten):
        omp_harness.build([folder / name for name in sources], folder / "prog",
                          extra_flags=[f"-I{tmp_path}"])
        runs.append(omp_harness.run(folder / "prog"))
    return counts, runs[0], runs[1], results


def _rejecting(monkeypatch, marker: bytes) -> None:
    """The compile check rejects every rewrite that contains ``marker``."""
    real = s2s.driver._clang_errors

    def errors(data, source, path, options, host_only=False):
        if marker in data:
            return [Diagnostic.error("rewrite rejected by the test", "clang",
                                     Location(path, 1, 1, 0))]
        return real(data, source, path, options, host_only)
    monkeypatch.setattr(s2s.driver, "_clang_errors", errors)


HEAT = {"heat.h": HEAT_H, "kernels.c": HEAT_KERNELS, "main.c": HEAT_MAIN}


def test_a_dropped_region_leaves_its_constructs_to_the_safety_net(tmp_path, monkeypatch):
    _rejecting(monkeypatch, b"target enter data")
    counts, stripped, new, results = _rewrite_and_run(tmp_path, HEAT, ["main.c", "kernels.c"])
    said = [d.message for r in results for d in r.diagnostics]
    assert any("data mapping of 'main' does not compile" in m for m in said), said
    assert counts["target regions mapped"] == 0 and counts["mapped per construct"] == 1
    assert counts["left unmapped"] == omp_harness.unmapped_constructs(new) == 0
    assert new.stdout == stripped.stdout and new.returncode == 0
    assert "map(to: u[0:n])" in (tmp_path / "rewritten" / "kernels.c").read_text()


def test_when_the_safety_net_fails_too_the_construct_is_counted_left(tmp_path, monkeypatch):
    _rejecting(monkeypatch, b"map(")
    counts, stripped, new, _results = _rewrite_and_run(tmp_path, HEAT, ["main.c", "kernels.c"])
    assert counts["target regions mapped"] == counts["mapped per construct"] == 0
    assert counts["left unmapped"] == omp_harness.unmapped_constructs(new) == 1
    assert new.stdout == stripped.stdout


def test_a_pointer_reached_through_a_copy_in_the_kernel_is_counted(tmp_path):
    files = {"image.h": IMAGE_H, "image.c": IMAGE_C, "blur.c": BLUR_MAIN}
    # blur.c alone: image_load's allocation is not seen, the count of src is not known
    counts, stripped, new, results = _rewrite_and_run(tmp_path, files, ["blur.c"])
    assert counts["left unmapped"] == omp_harness.unmapped_constructs(new) == 1
    said = [d.message for r in results for d in r.diagnostics if d.id == "omp-left-unmapped"]
    assert len(said) == 1 and "'src'" in said[0], said
    assert new.stdout == stripped.stdout


def test_a_callee_reading_a_scalar_member_of_a_partly_mapped_struct(tmp_path):
    files = {"particles.h": SPH_H, "particles.c": SPH_CREATE, "sph.c": SPH_MAIN}
    counts, stripped, new, results = _rewrite_and_run(tmp_path, files,
                                                      ["sph.c", "particles.c"])
    text = (tmp_path / "rewritten" / "sph.c").read_text()
    assert "P->h" in text[text.index("target enter data"):text.index("density(P);")]
    assert counts == {"target regions mapped": 2, "mapped per construct": 0,
                      "left unmapped": 0}
    assert omp_harness.unmapped_constructs(new) == 0
    assert new.stdout == stripped.stdout, (new.stdout, stripped.stdout)
    assert not any(d.id == "omp-not-mapped" for r in results for d in r.diagnostics)


TABLE_FIRST = """#include <stdio.h>
#include <stdlib.h>

static double *table;

static void build_table(int size)
{
    table = malloc(sizeof(double) * size);
#pragma omp target teams distribute parallel for map(from: table[0:size])
    for (int i = 0; i < size; i++)
        table[i] = 0.5 * i;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    build_table(16);
    double *x = malloc(sizeof(double) * n);
#pragma omp target teams distribute parallel for
    for (int k = 0; k < n; k++)
        x[k] = 1.0 + k % 16;
    double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+:sum)
    for (int k = 0; k < n; k++)
        sum += x[k];
    printf("sum %.3f table %.3f\\n", sum, table[3]);
    free(x);
    free(table);
    return 0;
}
"""


def test_a_function_without_a_data_region_says_why(tmp_path):
    """main's device work starts (build_table) before x is allocated: x is storage of the
    region's own span, so main gets no data region. Before, the constructs on x were mapped
    per construct with the reason 'no data region was planned in main', saying nothing of
    why (AMD device_routine_wdynglobaldata's shape); now the reason names x and table."""
    counts, stripped, new, results = _rewrite_and_run(tmp_path, {"table.c": TABLE_FIRST},
                                                      ["table.c"])
    said = [d.message for r in results for d in r.diagnostics if d.id == "omp-per-construct"]
    assert len(said) == 2 and all("allocated inside the statements a data region would span "
                                  "('table' of 'build_table', 'x')" in m for m in said), said
    assert counts["left unmapped"] == omp_harness.unmapped_constructs(new) == 0
    assert new.stdout == stripped.stdout


def test_settled_replans_until_nothing_more_is_dropped():
    """driver.settled: each round hands the pass the groups the check dropped; a pass that
    stops replanning (replan None) ends the rounds, and so does the bound."""
    from s2s.driver import REPLAN_ROUNDS, PassOutput, settled

    seen = []

    def replan(dropped, depth=0):
        seen.append(dropped)
        follow = None if depth == 2 else (lambda d: replan(d, depth + 1))
        return PassOutput(counts=(("left unmapped", depth + 1),), replan=follow)

    first = PassOutput(counts=(("left unmapped", 0),), replan=replan)
    output, checked, rounds = settled(first, lambda out: ("checked", (0,)))
    assert seen == [(0,), (0,), (0,)] and len(rounds) == 3
    assert output.counts == (("left unmapped", 3),) and output.replan is None

    def forever(dropped):
        return PassOutput(replan=forever)
    _output, _checked, rounds = settled(PassOutput(replan=forever), lambda out: ("x", (1,)))
    assert len(rounds) == REPLAN_ROUNDS
    # nothing dropped: one check, the first output
    output, _checked, rounds = settled(first, lambda out: ("checked", ()))
    assert output is first and rounds == ()


def test_a_scalar_member_the_host_changes_refuses_the_region(tmp_path):
    """main shrinks P->h between steps while the callees' kernels read it: a region
    mapping it `to` once would keep the first value on the device. The region is refused
    and each construct maps what it reads, P->h with it (the safety net's companions)."""
    main = SPH_MAIN.replace("        drift(P, 0.5);\n",
                            "        drift(P, 0.5);\n        P->h *= 0.9;\n")
    files = {"particles.h": SPH_H, "particles.c": SPH_CREATE, "sph.c": main}
    counts, stripped, new, results = _rewrite_and_run(tmp_path, files,
                                                      ["sph.c", "particles.c"])
    said = [d.message for r in results for d in r.diagnostics if d.id == "omp-not-mapped"]
    assert any("the host in 'main' writes 'P->h'" in m for m in said), said
    assert counts == {"target regions mapped": 0, "mapped per construct": 2,
                      "left unmapped": 0}
    assert omp_harness.unmapped_constructs(new) == 0
    assert new.stdout == stripped.stdout, (new.stdout, stripped.stdout)
