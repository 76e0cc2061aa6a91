"""``s2s --version`` imports nothing of the tool (issue 30, item 4): the console script's entry
answers it before s2s.cli.main and its passes are imported. Checked by what is imported, not
by timing (the wall time is in docs/benchmarks.md)."""

from __future__ import annotations

import subprocess
import sys

from s2s import __version__

PROBE = """\
import sys
sys.argv = [{name!r}, "--version"]
from s2s.cli import entry
code = entry.main()
heavy = sorted(m for m in sys.modules if m.startswith(("s2s.cli.main", "s2s.driver",
               "s2s.transform", "s2s.analysis", "islpy", "clang")))
print("heavy:", ",".join(heavy))
raise SystemExit(code)
"""


def _probe(name: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE.format(name=name)], capture_output=True,
                          text=True, timeout=120)


def test_version_is_answered_without_importing_the_tool():
    done = _probe("/usr/local/bin/s2s")
    assert done.returncode == 0, done.stderr
    assert f"s2s {__version__}" in done.stdout
    assert "heavy: \n" in done.stdout or done.stdout.rstrip().endswith("heavy:")


def test_a_wrapper_symlink_named_nvcc_still_goes_to_the_tool():
    """Installed as a symlink named nvcc, ``nvcc --version`` is nvcc's question, not ours."""
    done = _probe("/opt/bin/nvcc")
    assert "s2s.cli.main" in done.stdout


# --- issue 30, item 4: --help and a file with nothing to do start lean ----------------------

#: what neither ``s2s --help`` nor a run with nothing to do needs: isl, llvmlite, rich's
#: tables, the passes not asked for, the runtime (its cache-trust check, stdlib only, is
#: the nvcc check's), the verifier
NEVER_ON_A_LEAN_START = ("islpy", "llvmlite", "rich.table", "runtime.access", "runtime.api",
                         "runtime.capi", "runtime.cpu", "runtime.cuda", "runtime.mpi",
                         "runtime.launch", "runtime.partition", "runtime.tracker", "s2s.verify",
                         "s2s.transform.fuse", "s2s.transform.mgpu", "s2s.transform.transfers",
                         "s2s.analysis.fuse", "s2s.analysis.mgpu", "s2s.analysis.transfers",
                         "s2s.analysis.kernel", "s2s.printers.figures", "s2s.printers.html")

MODULES_PROBE = """\
import sys
sys.argv = ["s2s", *{args!r}]
from s2s.cli import entry
try:
    code = entry.main()
finally:
    print("modules:", ",".join(sorted(sys.modules)), file=sys.stderr)
raise SystemExit(code)
"""


def _modules_of(args: list[str], cwd) -> tuple[subprocess.CompletedProcess, set[str]]:
    done = subprocess.run([sys.executable, "-c", MODULES_PROBE.format(args=args)],
                          capture_output=True, text=True, timeout=120, cwd=cwd)
    line = next(said for said in done.stderr.splitlines() if said.startswith("modules:"))
    return done, set(line.removeprefix("modules:").split(","))


def _heavy(modules: set[str], extra: tuple[str, ...] = ()) -> list[str]:
    return sorted(m for m in modules if m.startswith(NEVER_ON_A_LEAN_START + extra))


def test_help_imports_no_pass_and_no_front_end(tmp_path):
    done, modules = _modules_of(["--help"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "omp" in done.stdout and "transfers" in done.stdout and "verify" in done.stdout
    assert _heavy(modules, ("s2s.transform.omp", "s2s.analysis", "s2s.driver", "clang")) == []
    assert "s2s.cli.main" in modules      # the probe went through the tool, not a fast path


def test_omp_on_a_file_without_target_regions_imports_only_its_pass(tmp_path):
    (tmp_path / "plain.c").write_text(
        "#include <stdio.h>\n\nstatic double total(const double *x, int n)\n{\n"
        "    double s = 0;\n    for (int i = 0; i < n; ++i)\n        s += x[i];\n    return s;\n}\n\n"
        "int main(void)\n{\n    double x[4] = {1, 2, 3, 4};\n"
        "    printf(\"%g\\n\", total(x, 4));\n    return 0;\n}\n")
    done, modules = _modules_of(["omp", "plain.c"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "0 would change" in done.stderr
    assert "s2s.transform.omp" in modules and "clang.cindex" in modules  # the work was done
    assert _heavy(modules, ("s2s.analysis",)) == []     # nothing to plan: no analysis either
    # nothing to extract: a parse and the project headers, no extractor and no fact class
    assert _heavy(modules, EXTRACTION) == []


#: what only the extraction of a model needs (s2s.frontend.walk_extract and what it imports)
EXTRACTION = ("s2s.frontend.walk_extract", "s2s.frontend.cuda", "s2s.frontend.host",
              "s2s.frontend.access", "s2s.frontend.cxx", "s2s.frontend.openmp.directives",
              "s2s.model.kernel_ir", "s2s.model.host_facts")
