"""Configuration files for every subcommand and the command line as a new user meets it
(issue 20, items 4 and 5)."""

from __future__ import annotations

import io
import json

import pytest

from s2s.cli.main import main
from s2s.diagnostics import Diagnostic, DiagnosticPrinter, Location

# needs -DN from the configuration to parse; its region leaves 'p' unmapped (a warning)
NEEDS_N = """#include <stdlib.h>
#ifndef N
#error "N must be defined"
#endif
int main(void)
{
    double *bufs[2];
    bufs[0] = (double *)malloc(N * sizeof(double));
    bufs[1] = (double *)malloc(N * sizeof(double));
    for (int t = 0; t < 4; t++) {
        double *p = bufs[t % 2];
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < N; i++)
            p[(i * 7) % N] = i;     /* a range s2s cannot bound: left unmapped */
    }
    return 0;
}
"""


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    """src/solver.c two levels below the configuration; the run starts elsewhere."""
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "deep" / "solver.c").write_text(NEEDS_N)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return tmp_path


def test_nearest_config_above_the_files_gives_flags_format_and_silence(project, capsys):
    source = project / "src" / "deep" / "solver.c"
    code, out, err = run(capsys, "omp", source)
    assert code == 1 and "N must be defined" in err          # no configuration yet
    (project / ".s2s.toml").write_text('flags = ["-DN=64"]\nformat = "json"\n'
                                       'silence = ["omp-left-*"]\n')
    code, out, err = run(capsys, "omp", source)
    assert code == 0, err
    document = json.loads(out)
    assert document["command"] == "omp"
    assert "omp-left-unmapped" not in err
    assert all(d["id"] != "omp-left-unmapped" for d in document["files"][0]["diagnostics"])
    # the command line wins over the file
    code, out, err = run(capsys, "omp", "--format", "text", source)
    assert not out.lstrip().startswith("{")
    # a table named after the subcommand wins over the top level
    (project / ".s2s.toml").write_text('flags = ["-DN=64"]\nformat = "json"\n'
                                       '[omp]\nformat = "sarif"\n')
    code, out, err = run(capsys, "omp", source)
    assert json.loads(out)["version"] == "2.1.0"
    assert "omp-left-unmapped" in err
    code, out, err = run(capsys, "inspect", source)       # inspect reads the top level
    assert json.loads(out)["command"] == "inspect"


def test_pyproject_tool_table_and_nearest_wins(project, capsys):
    source = project / "src" / "deep" / "solver.c"
    (project / "pyproject.toml").write_text('[tool.s2s]\nflags = ["-DN=8"]\nformat = "json"\n')
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no table
    code, out, err = run(capsys, "omp", "-v", source)
    assert code == 0, err
    assert f"settings from {project / 'pyproject.toml'}" in err
    assert json.loads(out)["files"][0]["status"] == "ok"
    (project / "src" / ".s2s.toml").write_text('flags = ["-DN=16"]\n')   # nearer: text
    code, out, err = run(capsys, "omp", source)
    assert code == 0 and out == "" and "1 file: 0 would change" in err   # text, not JSON


@pytest.mark.parametrize("text, message", [
    ('format = "xml"\n', "'format' must be one of text, json, sarif"),
    ("flags = 3\n", "'flags' must be a list"),
    ("flags = [\n", "not a valid TOML file"),
    ('format = "sarif"\n', "format 'sarif' is not one s2s inspect writes"),
])
def test_bad_configuration_is_a_usage_error_naming_the_file(project, capsys, text, message):
    (project / ".s2s.toml").write_text(text)
    code, out, err = run(capsys, "inspect", project / "src" / "deep" / "solver.c")
    assert code == 2 and out == ""
    assert message in err and ".s2s.toml" in err and "[config-invalid]" in err
    assert "Traceback" not in err


def test_unknown_key_is_a_warning(project, capsys):
    (project / ".s2s.toml").write_text('flags = ["-DN=4"]\nsilense = ["x"]\n')
    code, _, err = run(capsys, "inspect", project / "src" / "deep" / "solver.c")
    assert code == 0
    assert "unknown key 'silense' ignored" in err and "[config-unknown-key]" in err


# ---- the command line (item 5) ----


def test_help_names_the_launcher_mode(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "s2s [--s2s-OPTION ...] COMPILER ARGS..." in out
    assert "COMPILER_LAUNCHER" in out and "--s2s-help" in out


def test_wrapper_help_without_any_compiler(capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    code, out, err = run(capsys, "nvcc", "--s2s-help")
    assert code == 0 and "--s2s-passes=LIST" in out and "S2S_REAL_NVCC" in out


def test_missing_compiler_is_named(capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    code, out, err = run(capsys, "gcc-13", "-c", "x.c")
    assert code == 2
    assert "'gcc-13' is not an executable compiler [wrapper-no-compiler]" in err
    assert "invalid choice" not in err


def test_verbose_says_what_was_planned_and_how_long(project, capsys):
    (project / ".s2s.toml").write_text('flags = ["-DN=64"]\n')
    code, out, err = run(capsys, "omp", "-v", project / "src" / "deep" / "solver.c")
    line = next(x for x in err.splitlines() if "applied" in x)
    assert "parse " in line and "pass " in line and "check " in line and " s" in line
    assert "1 file: " in err and "1 files" not in err


SAXPY = """#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int n = 1000;
    double *x = (double *)malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        x[i] = i;
    for (int t = 0; t < 3; t++) {
        #pragma omp target teams distribute parallel for map(tofrom: x[0:n])
        for (int i = 0; i < n; i++)
            x[i] = 2.0 * x[i] + 1.0;
    }
    printf("%f\\n", x[n - 1]);
    free(x);
    return 0;
}
"""


def test_verbose_on_inspect_and_report(tmp_path, capsys):
    """``-v`` is per-pass detail on every subcommand, not only the rewriting ones."""
    source = tmp_path / "saxpy.c"
    source.write_text(SAXPY)
    code, out, err = run(capsys, "inspect", "-v", source)
    line = next(x for x in err.splitlines() if x.startswith(f"{source}:"))
    assert code == 0 and "1 directive, 1 function found" in line and "parse " in line
    code, out, err = run(capsys, "inspect", source)
    assert "found" not in err                               # only with -v
    code, out, err = run(capsys, "report", "-v", "-o", tmp_path / "r.html", source)
    line = next(x for x in err.splitlines() if x.startswith(f"{source}: s2s omp"))
    assert code == 0 and "edits applied (the data mapping of 'main': " in line
    for stage in ("parse", "pass", "check", "summary and pictures"):
        assert f"{stage} " in line


def test_verbose_on_verify(tmp_path, capsys):
    from s2s.verify import omp_harness

    if omp_harness.toolchain_problem() is not None:
        pytest.skip(f"no OpenMP offload toolchain: {omp_harness.toolchain_problem()}")
    source = tmp_path / "saxpy.c"
    source.write_text(SAXPY)
    code, out, err = run(capsys, "verify", "-v", source)
    assert code == 0, err
    assert f"verify {source}: passes omp; rewritten: {source}; build flags" in err
    stages = next(x for x in err.splitlines() if "build both" in x)
    for stage in ("rewrite", "build both", "run original", "run rewritten", "compare"):
        assert f"{stage} " in stages


def test_repeated_diagnostics_are_shown_once_with_a_count():
    stream = io.StringIO()
    printer = DiagnosticPrinter(stream=stream, show_source=False)
    same = Diagnostic.warning("buffer p is not mapped", "omp-left-unmapped",
                              Location("a.c", 3, 5))
    other = Diagnostic.warning("buffer q is not mapped", "omp-left-unmapped",
                               Location("a.c", 4, 5))
    printed = [printer.emit(d) for d in (same, same, other, same)]
    assert printed == [True, False, True, False]
    assert stream.getvalue().count("buffer p is not mapped") == 1
    assert printer.counts["warning"] == 2
    notes = printer.repeat_notes()
    assert notes == ("note: shown once above, repeated 2 more times: a.c:3:5: warning: buffer p "
                     "is not mapped [omp-left-unmapped]\n")


LONG_CLAUSE = """void f(double *alpha_values_of_the_grid, double *beta_values_of_the_grid, int n)
{
    #pragma omp target teams distribute parallel for map(to: alpha_values_of_the_grid[0:n]) map(tofrom: beta_values_of_the_grid[0:n])
    for (int i = 0; i < n; i++)
        beta_values_of_the_grid[i] += alpha_values_of_the_grid[i];
}
"""


def test_piped_tables_keep_every_cell_on_one_line(tmp_path, capsys):
    (tmp_path / "long.c").write_text(LONG_CLAUSE)
    code, out, _ = run(capsys, "inspect", "--only", "directives", tmp_path / "long.c")
    assert code == 0
    assert any("to: alpha_values_of_the_grid[0:n]; tofrom: beta_values_of_the_grid[0:n]" in line
               for line in out.splitlines()), out


def test_pre_commit_hook_entry_fails_until_the_mapping_is_written(tmp_path, monkeypatch, capsys):
    """The hook of .pre-commit-hooks.yaml, run as pre-commit runs it: its entry plus the
    staged files."""
    from pathlib import Path

    hooks = (Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml").read_text()
    entry = next(line.split(":", 1)[1].split() for line in hooks.splitlines()
                 if line.strip().startswith("entry:"))
    assert entry[:3] == ["s2s", "omp", "--check"] and "require_serial: true" in hooks
    from testsuite.printers.program import write_program

    write_program(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main([*entry[1:], "main.c", "solver.c"]) == 1
    assert "main.c: would be changed" in capsys.readouterr().err
    assert main(["omp", "-q", "--in-place", "main.c", "solver.c"]) == 0
    assert main([*entry[1:], "main.c", "solver.c"]) == 0


SCALE_CU = """#include <cuda_runtime.h>
__global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
int main()
{
    float *d;
    cudaMalloc(&d, 256 * sizeof(float));
    scale<<<1, 256>>>(d, 256);
    cudaFree(d);
    return 0;
}
"""


def test_verbose_counts_a_generated_file_as_applied(tmp_path, capsys):
    """mgpu's group edits the kernel table it generates beside the file: with every edit
    applied, ``-v`` said "(dropped)" because it compared with the file's own edits only."""
    source = tmp_path / "scale.cu"
    source.write_text(SCALE_CU)
    code, out, err = run(capsys, "mgpu", "-v", "--no-nvcc-check", "--diff", source)
    line = next(x for x in err.splitlines() if "applied" in x)
    assert code == 0 and "the file for the s2s runtime: " in line and "dropped" not in line
