"""The installed package is the product (issue 31, item 1).

The wheel is installed into a fresh virtual environment in a temporary folder, far from the
checkout; its third-party dependencies come from the checkout's environment through a ``.pth``
file (that folder is only appended to ``sys.path``: the checkout's editable install, which
lives in ``.pth`` files of that folder, is not activated, so nothing of the source tree can
stand in). Every subcommand then runs on copies of the samples from a working directory
outside the checkout, and the tests assert what the rewrite and the run did, not exit codes
alone: before this test, ``s2s mgpu`` from a wheel dropped every rewrite ('s2s_mgpu.h' file not
found) and ``s2s verify`` still said OK.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def venv(built_wheel, tmp_path_factory) -> Path:
    """The bin folder of a fresh virtual environment with the wheel installed."""
    wheel, _ = built_wheel
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    deps = sysconfig.get_paths()["purelib"]          # the checkout environment's packages
    Path(purelib, "s2s_test_dependencies.pth").write_text(deps + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", str(wheel)], check=True, capture_output=True)
    return root / "bin"


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A working directory outside the checkout with copies of the samples used here."""
    work = tmp_path_factory.mktemp("work")
    for sample in ("openmp/saxpy_time_loop", "cuda/saxpy", "cuda/elementwise_chain"):
        shutil.copytree(SAMPLES / sample, work / Path(sample).name)
    return work


def _run(venv: Path, work: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run([str(venv / args[0]), *args[1:]], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_venv_runs_the_installed_copy(venv, work):
    proc = _run(venv, work, "python", "-c", "import s2s, runtime, s2s_runtime; "
                "from s2s.runtime_files import RUNTIME_INCLUDE; "
                "print(s2s.__file__); print(runtime.__file__); print(RUNTIME_INCLUDE)")
    assert proc.returncode == 0, proc.stderr
    root = str(venv.parent)
    lines = proc.stdout.split()
    assert all(line.startswith(root) for line in lines), lines
    assert Path(lines[2], "s2s_mgpu.h").is_file()
    assert not str(work).startswith(str(REPO))


def test_the_help_links_come_from_the_wheel_metadata(venv, work):
    """No pyproject.toml beside the installed package: the SARIF rules' links come from the
    Project-URL the wheel's metadata carries, the same address as the checkout's."""
    import tomllib

    page = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]["Diagnostics"]
    proc = _run(venv, work, "python", "-c", "from s2s.printers.rules import help_uri; "
                "print(help_uri('omp-rewrite'))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{page}#omp-rewrite"


def test_omp_transfers_and_fuse_rewrite_from_the_wheel(venv, work):
    omp = _run(venv, work, "s2s", "omp", "--diff", "saxpy_time_loop/saxpy_time_loop.c")
    assert omp.returncode == 0, omp.stderr
    assert "+    #pragma omp target enter data map(to: x, y, z)" in omp.stdout
    transfers = _run(venv, work, "s2s", "transfers", "--diff",
                     "elementwise_chain/elementwise_chain.cu")
    assert transfers.returncode == 0, transfers.stderr
    assert "+    /* s2s transfers: pooled buffers" in transfers.stdout
    fuse = _run(venv, work, "s2s", "fuse", "--diff", "elementwise_chain/elementwise_chain.cu")
    assert fuse.returncode == 0, fuse.stderr
    assert "s2s_fused_0" in fuse.stdout


def test_mgpu_rewrites_and_verify_splits_from_the_wheel(venv, work):
    mgpu = _run(venv, work, "s2s", "mgpu", "-o", "out", "saxpy/saxpy.cu")
    assert mgpu.returncode == 0, mgpu.stderr
    assert "mgpu-rewrite-invalid" not in mgpu.stderr
    rewritten = (work / "out" / "saxpy" / "saxpy.cu").read_text()
    assert "#include <s2s_mgpu.h>" in rewritten and "s2s_mgpu_launch(saxpy" in rewritten
    # the kernel table, generated beside the copy and included by it (verify builds with it)
    table = (work / "out" / "saxpy" / "saxpy.cu.s2s_mgpu.h").read_text()
    assert rewritten.endswith('#include "saxpy.cu.s2s_mgpu.h"\n')
    assert table.startswith("/* Generated by s2s mgpu") and '"saxpy"' in table
    verify = _run(venv, work, "s2s", "verify", "--format", "json", "--passes", "mgpu",
                  "--devices", "2", "saxpy/saxpy.cu")
    assert verify.returncode == 0, verify.stderr
    (program,) = json.loads(verify.stdout)["programs"]
    assert program["ok"] and program["changed"] == ["saxpy/saxpy.cu"]
    devices = program["rewritten"]["devices"]
    assert devices["devices"] == 2 and devices["split_launches"] == devices["launches"] >= 1
    flags = _run(venv, work, "python", "-m", "s2s_runtime.capi_build", "--flags")
    assert flags.returncode == 0, flags.stderr
    include = flags.stdout.split()[0]
    assert include.startswith(f"-I{venv.parent}") and Path(include[2:], "s2s_mgpu.h").is_file()


def test_report_from_the_wheel(venv, work):
    proc = _run(venv, work, "s2s", "report", "-o", "report.html", "--passes",
                "transfers,fuse,mgpu", "elementwise_chain/elementwise_chain.cu")
    assert proc.returncode == 0, proc.stderr
    page = (work / "report.html").read_text()
    for command in ("s2s transfers", "s2s fuse", "s2s mgpu"):
        assert command in page, command
    assert "s2s_mgpu_launch" in page and "s2s_fused_0" in page
    # the mgpu kernel table: its own folded section, not hundreds of lines of the review
    assert "generated beside it, included by it: elementwise_chain.cu.s2s_mgpu.h (a new file" \
        in page
    assert "rewrite-invalid" not in page
