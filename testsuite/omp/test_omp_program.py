"""Several source files analysed as one program (issue 17, item 3).

``main.c`` allocates and runs a time loop, ``kernels.c`` holds the target regions: one file
at a time, ``main.c`` has no device work and ``kernels.c`` can only map per call (200 copies
for 50 steps); as one program the data region goes around main's time loop (2 copies). The
files are given on the command line or taken from ``-p BUILD_DIR``; each edit lands in its own
file; a group of edits whose part in one file does not parse is dropped in every file.
"""

from __future__ import annotations

import json
import shutil

import pytest

from s2s.cli.main import main
from s2s.diagnostics import Severity
from s2s.driver import Failed, PassOutput, RunOptions, Success
from s2s.edits import Edit
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.model.program import NameClash, merge_units
from s2s.transform.check import EditGroup
from s2s.verify import omp_harness
from s2s.whole_program import process_program

HEADER = """#ifndef KERNELS_H
#define KERNELS_H
void smooth(const float *in, float *out, int n);
void scale(float *a, float s, int n);
double checksum(const float *a, int n);
#endif
"""

KERNELS = """#include "kernels.h"

void smooth(const float *in, float *out, int n)
{
    #pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
    for (int i = 0; i < n; i++) {
        float left = i > 0 ? in[i - 1] : in[i];
        float right = i < n - 1 ? in[i + 1] : in[i];
        out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
    }
}

void scale(float *a, float s, int n)
{
    #pragma omp target teams distribute parallel for map(tofrom: a[0:n])
    for (int i = 0; i < n; i++)
        a[i] *= s;
}

double checksum(const float *a, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += a[i];
    return sum;
}
"""

MAIN = """#include <stdio.h>
#include <stdlib.h>
#include "kernels.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int steps = argc > 2 ? atoi(argv[2]) : 50;
    size_t bytes = (size_t)n * sizeof(float);
    float *u = (float *)malloc(bytes);
    float *v = (float *)malloc(bytes);
    for (int i = 0; i < n; i++)
        u[i] = (float)(i % 17);
    for (int t = 0; t < steps; t++) {
        smooth(u, v, n);
        scale(v, 1.01f, n);
        float *tmp = u;
        u = v;
        v = tmp;
    }
    printf("checksum %.4f\\n", checksum(u, n));
    free(u);
    free(v);
    return 0;
}
"""

FLAGS = ["-fopenmp", "-fopenmp-targets=nvptx64-nvidia-cuda"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    for name, text in (("kernels.h", HEADER), ("kernels.c", KERNELS), ("main.c", MAIN)):
        (tmp_path / "src" / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _built_and_run(directory, tmp_path, name):
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    if directory != tmp_path / "src":
        shutil.copy(tmp_path / "src" / "kernels.h", directory / "kernels.h")
    exe = tmp_path / name
    omp_harness.build([directory / "main.c", directory / "kernels.c"], exe)
    return omp_harness.run(exe)


def test_two_files_are_one_program(project, capsys):
    code = main(["omp", "-o", "out", "src/main.c", "src/kernels.c", "--", *FLAGS])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 files: 1 changed, 0 failed, 2 target regions mapped, 0 mapped per construct, 0 left unmapped" in err
    rewritten = (project / "out" / "src" / "main.c").read_text()
    lines = rewritten.splitlines()
    enter = lines.index("    #pragma omp target enter data map(to: u[0:(size_t)n]) "
                        "map(alloc: v[0:(size_t)n])")
    assert lines[enter + 1] == "    for (int t = 0; t < steps; t++) {"
    assert "#pragma omp target exit data map(from: u[0:(size_t)n]) map(release: v[0:(size_t)n])" \
        in rewritten
    assert (project / "out" / "src" / "kernels.c").read_text() == KERNELS   # no edit there
    shutil.copy(project / "src" / "kernels.h", project / "out" / "src" / "kernels.h")
    code = main(["omp", "--check", "out/src/main.c", "out/src/kernels.c", "--", *FLAGS])
    _, err = capsys.readouterr()
    assert code == 0 and "0 would change" in err          # a second run changes nothing
    original = _built_and_run(project / "src", project, "orig")
    new = _built_and_run(project / "out" / "src", project, "new")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == () and original.unmapped == ()
    assert original.copies.total_count == 200 and new.copies.total_count == 2


def test_every_file_of_the_compilation_database(project, capsys):
    build = project / "build"
    build.mkdir()
    entries = [{"directory": str(build), "file": f"../src/{name}",
                "arguments": ["clang-16", "-O2", *FLAGS, "-c", f"../src/{name}"]}
               for name in ("main.c", "kernels.c")]
    (build / "compile_commands.json").write_text(json.dumps(entries))
    code = main(["omp", "--check", "-p", "build"])
    _, err = capsys.readouterr()
    assert code == 1
    assert "src/main.c: would be changed" in err and "kernels.c: would be changed" not in err
    assert "2 files: 1 would change" in err


def test_one_file_at_a_time_cannot_hoist(project, capsys):
    code = main(["omp", "--check", "src/main.c", "--", *FLAGS])
    _, err = capsys.readouterr()
    assert code == 0 and "0 would change" in err


def test_merged_spans_and_directive_indexes(project):
    loaded = [load(f"src/{n}", ParseOptions(user_flags=tuple(FLAGS))) for n in ("main.c", "kernels.c")]
    program = merge_units([(one.model, one.source) for one in loaded])
    assert [f[0] for f in program.files] == ["src/main.c", "src/kernels.c"]
    for one in loaded:
        for function in one.model.functions:
            merged = program.unit.function(function.name)
            assert program.source[merged.span.start:merged.span.end] == \
                one.source[function.span.start:function.span.end]
            assert program.locate(merged.span.start) == (one.path, function.span.start)
    for ref in program.unit.array_refs:
        if ref.directive is not None:
            directive = program.unit.directives[ref.directive]
            assert directive.span.file == ref.span.file
            assert directive.span.start <= ref.span.start < directive.stmt_span.end


def test_the_compiled_movers_copy_as_the_generic_loop(project, monkeypatch):
    """Issue 30: the merge moves each slotted dataclass with a mover compiled per class; it
    makes the same program as the generic loop over the fields (equal objects, shared the
    same way: their pickles are the same bytes), and leaves the units as they were."""
    import pickle

    from s2s.model import program as program_module

    renamed = KERNELS
    for name in ("smooth", "scale", "checksum"):
        renamed = renamed.replace(f"{name}(", f"{name}_more(")
    (project / "src" / "more.c").write_text(renamed)     # (directives after kernels.c's)
    loaded = [load(f"src/{n}", ParseOptions(user_flags=tuple(FLAGS)))
              for n in ("kernels.c", "main.c", "more.c")]
    parts = [(one.model, one.source) for one in loaded]
    before = pickle.dumps(parts)
    compiled = merge_units(parts)
    assert any(program_module._MOVERS.values())
    monkeypatch.setattr(program_module, "_MOVERS", dict.fromkeys(program_module._MOVERS))
    monkeypatch.setattr(program_module, "_mover", lambda cls: None)
    generic = merge_units(parts)
    assert compiled.unit == generic.unit
    assert pickle.dumps(compiled.unit) == pickle.dumps(generic.unit)
    assert pickle.dumps(parts) == before
    shifted = [d for d in compiled.unit.directives if d.span.file == "src/more.c"]
    assert shifted and all(d.span.start >= compiled.files[2][1] for d in shifted)
    assert [ref.directive for ref in compiled.unit.array_refs if ref.span.file == "src/more.c"
            and ref.directive is not None][0] == len(parts[0][0].directives)


def test_a_name_defined_in_two_files_falls_back_to_one_file_at_a_time(project):
    other = KERNELS.replace("void scale", "static void unused(float *a, int n) { a[0] = n; }\n"
                            "void scale").replace("double checksum", "double checksum2")
    (project / "src" / "copy.c").write_text(other)
    with pytest.raises(NameClash, match="'smooth' is defined in"):
        merge_units([(load(f"src/{n}").model, b"") for n in ("kernels.c", "copy.c")])
    results = process_program(["src/kernels.c", "src/copy.c"], RunOptions(),
                              lambda loaded: PassOutput())
    assert all(isinstance(r, Success) for r in results)
    assert all(any(d.id == "program-name-clash" for d in r.diagnostics) for r in results)


def test_a_group_that_breaks_one_file_is_dropped_in_every_file(project):
    def half_broken(loaded):
        main_fn, kernel_fn = loaded.model.function("main"), loaded.model.function("scale")
        edits = (Edit(loaded.path, main_fn.span.start, 0, "/* planned */ "),
                 Edit(loaded.path, kernel_fn.span.start, 0, "}}} "))
        return PassOutput(edits, (), (EditGroup("the data mapping of 'main'", edits,
                                                main_fn.span, "omp-rewrite-invalid"),),
                          check_compiles=True)

    results = process_program(["src/main.c", "src/kernels.c"], RunOptions(), half_broken)
    assert not any(isinstance(r, Failed) for r in results)
    for result in results:
        assert not result.change.changed and result.incomplete
    main_said = [d for d in results[0].diagnostics if d.severity is Severity.WARNING]
    kernels_said = [d for d in results[1].diagnostics if d.severity is Severity.WARNING]
    assert "its edits in src/kernels.c do not compile" in main_said[-1].message
    assert kernels_said[-1].id == "omp-rewrite-invalid"
    assert kernels_said[-1].location.file == "src/main.c"   # where the region would have been


STENCIL_H = """#ifndef STENCIL_H
#define STENCIL_H

static inline void stencil_step(const double *in, double *out, int n)
{
    #pragma omp target teams distribute parallel for map(to: in[0:n]) map(from: out[0:n])
    for (int i = 1; i < n - 1; i++)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
}

static inline void copy_edges(const double *in, double *out, int n)
{
    #pragma omp target map(to: in[0:n]) map(tofrom: out[0:n])
    {
        out[0] = in[0];
        out[n - 1] = in[n - 1];
    }
}
#endif
"""

STENCIL_MAIN = """#include <stdio.h>
#include <stdlib.h>
#include "stencil.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    double *a = (double *)malloc(n * sizeof(double));
    double *b = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = (double)(i % 5);
    for (int t = 0; t < 40; t++) {
        stencil_step(a, b, n);
        copy_edges(a, b, n);
        double *s = a;
        a = b;
        b = s;
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += a[i];
    printf("sum %.6f\\n", sum);
    free(a);
    free(b);
    return 0;
}
"""

#: a second file including the same header (its functions are not used there)
OTHER_C = """#include "stencil.h"
int unused_helper(int x) { return x + 1; }
"""


def test_target_regions_in_a_project_header(tmp_path, monkeypatch, capsys):
    for name, text in (("stencil.h", STENCIL_H), ("main.c", STENCIL_MAIN), ("other.c", OTHER_C)):
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    code = main(["omp", "-o", "out", "main.c", "other.c", "--", "-fopenmp"])
    _, err = capsys.readouterr()
    assert code == 0, err
    # the header is analysed once (three results: two files, one header), never edited here
    assert "3 files: 1 changed, 0 failed, 2 target regions mapped, 0 mapped per construct, 0 left unmapped" in err
    assert (tmp_path / "out" / "stencil.h").read_text() == STENCIL_H
    rewritten = (tmp_path / "out" / "main.c").read_text()
    assert "#pragma omp target enter data map(to: a[0:n]) map(alloc: b[0:n])" in rewritten
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    runs = []
    for directory in (tmp_path, tmp_path / "out"):
        omp_harness.build([directory / "main.c"], directory / "prog")
        runs.append(omp_harness.run(directory / "prog"))
    assert runs[1].returncode == 0 and runs[1].stdout == runs[0].stdout
    assert runs[1].unmapped == ()
    assert runs[0].copies.total_count == 200 and runs[1].copies.total_count <= 4


def test_a_relative_directory_is_read_against_the_database(project, capsys, monkeypatch):
    """``"directory": ".."`` in ``build/compile_commands.json`` is the project folder, wherever
    s2s runs (it used to be read against the current directory: 'not in the database')."""
    build = project / "build"
    build.mkdir()
    entries = [{"directory": "../src", "file": name, "arguments": ["clang-16", *FLAGS, "-c", name]}
               for name in ("main.c", "kernels.c")]
    (build / "compile_commands.json").write_text(json.dumps(entries))
    monkeypatch.chdir(build)
    code = main(["omp", "--check", "-p", "."])
    _, err = capsys.readouterr()
    assert code == 1 and "not-in-database" not in err
    assert "src/main.c: would be changed" in err


def test_files_that_do_not_parse_fail_alone(project, capsys):
    (project / "src" / "broken.c").write_text("int main( {\n")
    code = main(["omp", "--check", "src/broken.c"])
    _, err = capsys.readouterr()
    assert code == 1 and "1 file: 0 would change, 1 failed" in err
    code = main(["omp", "--check", "src/broken.c", "src/main.c", "src/kernels.c", "--", *FLAGS])
    _, err = capsys.readouterr()
    assert code == 1 and "3 files: 1 would change, 1 failed" in err


def test_a_broken_pass_fails_every_file_of_the_program_and_touches_none(project):
    def overlapping(loaded):
        start = loaded.model.function("main").span.start
        return PassOutput((Edit(loaded.path, start, 4, "x"), Edit(loaded.path, start + 2, 4, "y")))

    results = process_program(["src/main.c", "src/kernels.c"], RunOptions(), overlapping)
    assert [type(r).__name__ for r in results] == ["Failed", "Failed"]
    assert all(r.diagnostics for r in results)


def test_verify_checks_the_whole_program_rewrite(project, capsys):
    """``s2s verify main.c kernels.c`` builds and runs what ``s2s omp main.c kernels.c``
    writes (file by file, main.c had nothing to change and the run was the original's)."""
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    code = main(["verify", "--format", "json", "src/main.c", "src/kernels.c"])
    out, err = capsys.readouterr()
    assert code == 0, err
    verdict = json.loads(out)
    verdict = verdict[0] if isinstance(verdict, list) else verdict.get("programs", [verdict])[0]
    assert verdict["ok"] and verdict["changed"] == ["src/main.c"]
    assert verdict["original"]["copies"]["h2d_count"] == 100
    assert verdict["rewritten"]["copies"]["h2d_count"] == 1


def test_kernels_of_a_header_needing_its_includer_are_counted(tmp_path, monkeypatch, capsys):
    """Issue 28, items 2 and 3h: a header that does not parse on its own (its struct comes from
    the includer) is read in its includer's context; its kernel whose range cannot be bounded
    (a member path at indices computed modulo its length, with no allocation giving its
    storage's count) is counted as left unmapped and --strict exits 1 (the header used to be
    skipped with '0 left unmapped' and exit 0)."""
    header = """static inline void bump(field_t f)
{
    #pragma omp target teams distribute parallel for
    for (int i = 0; i < f.n; i++)
        f.v[(i * 7) % f.n] += 1.0;
    /* #pragma omp target teams distribute parallel for */
    #pragma omp target update from(f.v[0:1])
    #pragma omp target \\
        teams distribute parallel for map(to: f.v[0:f.n])
    for (int i = 0; i < f.n; i++)
        f.v[i] += 1.0;
}
"""
    program = """#include <stdlib.h>
typedef struct { double *v; int n; } field_t;
#include "ops.h"
int main(void)
{
    field_t f = { (double *)calloc(64, sizeof(double)), 64 };
    bump(f);
    free(f.v);
    return 0;
}
"""
    (tmp_path / "ops.h").write_text(header)
    (tmp_path / "prog.c").write_text(program)
    monkeypatch.chdir(tmp_path)
    assert main(["omp", "--check", "--strict", "prog.c", "--", "-fopenmp"]) == 1
    _, err = capsys.readouterr()
    assert "header-skipped" not in err and "1 left unmapped" in err
    assert "ops.h:3:" in err                  # the warning points into the header
