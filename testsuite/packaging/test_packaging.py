"""What pip installs and what the sdist carries (issue 20, item 7).

A wheel is built from a copy of the source tree and installed into a folder of its own; a
Python whose path starts there (and that runs far from the source tree) imports the tool and
the runtime the way a user's would: the runtime as ``s2s_runtime`` with ``runtime`` naming the
same modules, the schema files and headers present, the C interface library importing the
installed name. The sdist carries the docs, samples, tests and LICENSE.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import tomllib

REPO = Path(__file__).resolve().parents[2]


def test_every_package_folder_is_listed_in_pyproject():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = {v: k for k, v in config["package-dir"].items()}     # folder -> package name
    found = set()
    for top in ("s2s", "runtime"):
        for init in (REPO / top).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO).parts
            found.add(".".join((mapping.get(parts[0], parts[0]), *parts[1:])))
    assert found == listed, (found - listed, listed - found)
    assert "runtime" not in mapping.values()      # nothing installs the top-level name runtime


@pytest.fixture(scope="module")
def installed(built_wheel, tmp_path_factory):
    """(site folder, wheel path, source copy) of s2s installed from a wheel of a copy of the tree."""
    wheel, source = built_wheel
    site = tmp_path_factory.mktemp("pkg") / "site-packages"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(site), str(wheel)], check=True, capture_output=True)
    return site, wheel, source


def _python(site: Path, cwd: Path, code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(site))
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_wheel_installs_the_runtime_under_a_unique_name(installed, tmp_path):
    site, wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert "s2s_runtime" in tops and "s2s" in tops and "runtime" not in tops
    for needed in ("s2s/printers/schema/s2s-output.schema.json",
                   "s2s/printers/schema/sarif-2.1.0-subset.schema.json",
                   "s2s_runtime/include/s2s_mgpu.h", "s2s_runtime/csrc/s2s_runtime.c",
                   "s2s_runtime/cpu/include/s2s_simt.h", "s2s/frontend/shim/cuda_runtime.h"):
        assert needed in names, needed
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text and "Requires-Python: >=3.11" in text
    assert "License-File: LICENSE" in text
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    proc = _python(site, tmp_path, """
import s2s, s2s_runtime, s2s_runtime.api, runtime.api, runtime.errors, s2s_runtime.errors
from s2s.isl_helpers import instantiate_map                  # the tool imports runtime.access
from s2s.printers.json_doc import load_schema
import s2s_runtime.capi_build as build
assert runtime.api is s2s_runtime.api and runtime.errors is s2s_runtime.errors
assert s2s_runtime.api.__spec__.name == "s2s_runtime.api"
assert build.BRIDGE_MODULE == "s2s_runtime.capi", build.BRIDGE_MODULE
assert load_schema()["title"]
print(s2s.__file__); print(s2s_runtime.__file__)
""")
    assert proc.returncode == 0, proc.stderr
    assert all(line.startswith(str(site)) for line in proc.stdout.split())


def test_building_the_wheel_warns_of_nothing_in_our_metadata(built_wheel, tmp_path):
    """Issue 31 item 7: the SPDX license string and declared package data leave setuptools
    nothing to warn about (before: about 580 lines of deprecation and "package absent from
    the packages configuration" warnings on every install)."""
    _, source = built_wheel
    proc = subprocess.run([sys.executable, "-W", "default", "-c",
                           "from setuptools import build_meta; "
                           f"print(build_meta.build_wheel({str(tmp_path / 'dist')!r}))"],
                          cwd=source, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in (proc.stdout + proc.stderr).splitlines() if "Warning" in line]
    assert warnings == [], "\n".join(warnings)
    (wheel,) = (tmp_path / "dist").glob("s2s-*.whl")
    data = [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith((".h", ".c", ".json"))]
    assert len(data) >= 40, data                      # the headers, C source and schemas


def test_installed_cli_writes_json_of_a_rewrite(installed, tmp_path):
    site, _, source = installed
    shutil.copy(source / "samples" / "openmp" / "saxpy_time_loop" / "saxpy_time_loop.c",
                tmp_path / "saxpy.c")
    proc = _python(site, tmp_path, "import sys; from s2s.cli.main import main; "
                   "sys.exit(main(['omp', '--format', 'json', 'saxpy.c']))")
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)
    assert document["files"][0]["changed"] and document["files"][0]["edits"]


def test_c_interface_of_the_installed_runtime(installed, tmp_path):
    """The C library built from the installed package imports s2s_runtime.capi (no module
    named runtime is installed) and a C program runs through it."""
    if not shutil.which("gcc"):
        pytest.skip("no C compiler (gcc) on this machine")
    site, _, source = installed
    flags = _python(site, tmp_path, "from s2s_runtime.capi_build import program_flags; "
                    "print(' '.join(program_flags()))")
    assert flags.returncode == 0, flags.stderr
    program = source / "testsuite" / "runtime" / "c_program" / "through_capi.c"
    exe = tmp_path / "through_capi"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(program), *flags.stdout.split()],
                   check=True)
    samples = source / "samples" / "cuda"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(S2S_BACKEND="cpu", S2S_DEVICES="2")
    proc = subprocess.run([str(exe), str(samples / "saxpy" / "saxpy.cu"),
                           str(samples / "block_reduction" / "block_reduction.cu"),
                           str(samples / "template_launch" / "template_launch.cu")],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "devices=2 sum=468750.375 mismatches=0" in proc.stdout


def test_sdist_carries_docs_samples_tests_and_license(installed, tmp_path):
    _, _, source = installed
    out = tmp_path / "dist"
    proc = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                           f"print(build_meta.build_sdist({str(out)!r}))"],
                          cwd=source, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (archive,) = out.glob("s2s-*.tar.gz")
    names = {n.split("/", 1)[1] for n in tarfile.open(archive).getnames() if "/" in n}
    for needed in ("LICENSE", "README.md", "docs/benchmarks.md",
                   "samples/openmp/saxpy_time_loop/saxpy_time_loop.c",
                   "testsuite/printers/test_json_sarif.py", "runtime/include/s2s_mgpu.h",
                   "s2s/printers/schema/s2s-output.schema.json", "scripts/setup.sh"):
        assert needed in names, needed
    assert not any("__pycache__" in n for n in names)


def test_the_tool_binds_the_runtime_of_its_own_tree(tmp_path):
    """Another checkout's runtime first on the path (an editable install of main, a stale
    copy) never stands in for this tree's: s2s loads runtime/ beside itself by its path."""
    other = tmp_path / "other" / "runtime"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("raise ImportError('the wrong runtime')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(other.parent), str(REPO)]))
    proc = subprocess.run([sys.executable, "-c", "import s2s, runtime, s2s_runtime, "
                           "runtime.errors as a, s2s_runtime.errors as b; assert a is b; "
                           "print(runtime.__file__)"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(REPO / "runtime" / "__init__.py")
