"""``s2s mgpu`` on the corpus of CUDA programs written like public suites
(``testsuite/corpus/cuda/<name>/``, see its README).

For every program, as its user would build it: the original through verify's CUDA host shim
(one emulated device: the single-GPU program), the rewrite through ``s2s nvcc
--s2s-passes=mgpu`` with the program's flags; then

(a) the wrapper rewrote and built it without falling back (no ``wrapper-*`` warning, and the
    program ran on the s2s runtime: it wrote the runtime's statistics);
(b) on 2 and on 4 cpu devices it prints what the original prints (lines of timing output
    excepted, as ``sample.toml`` says) and exits as it does;
(c) what it did matches ``status.toml`` (launches, how many were split over the devices,
    bytes between devices on 2 devices): a change shows up as a failure to look at.

Programs build in parallel (two at a time) in one module fixture, only those the selected
tests name (``-k rodinia`` builds the two Rodinia programs, not all of them).
``python testsuite/mgpu/test_cuda_corpus.py [NAME...]`` prints fresh measurements in status.toml
form.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
import tomllib

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from mgpu_support import NVCC  # noqa: E402

from s2s.frontend.core.parse import ParseOptions  # noqa: E402
from s2s.verify import cuda_host  # noqa: E402
from s2s.verify.cuda_backend import traffic_of  # noqa: E402
from s2s.verify.omp_harness import output_differences, run_process  # noqa: E402

CORPUS = REPO / "testsuite" / "corpus" / "cuda"
PROGRAMS = sorted(p.parent.name for p in CORPUS.glob("*/sample.toml"))
DEVICES = (2, 4)
_WRAPPER_WARNING = re.compile(r"\[wrapper-[a-z-]+\]")


def meta(name: str) -> dict:
    with open(CORPUS / name / "sample.toml", "rb") as handle:
        return tomllib.load(handle)


def status() -> dict:
    with open(CORPUS / "status.toml", "rb") as handle:
        return tomllib.load(handle)


def _run(exe: Path, devices: int, args: list[str], cwd: Path) -> dict:
    stats = exe.parent / f"stats-{devices}.json"
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES=str(devices), S2S_STATS=str(stats),
               S2S_CPU_THREADS="2")
    proc = run_process([exe.name, *args], executable=exe, env=env, timeout=300, cwd=cwd)
    data = json.loads(stats.read_text()) if stats.exists() else None
    return {"stdout": proc.stdout, "stderr": proc.stderr, "rc": proc.returncode, "stats": data}


def measure(name: str, work: Path) -> dict:
    """Build the original and the rewrite of program ``name`` and run them."""
    info, directory = meta(name), CORPUS / name
    work.mkdir(parents=True)
    inputs = work / "inputs"
    inputs.mkdir()
    if "make_input" in info:
        script, *rest = info["make_input"]
        subprocess.run([sys.executable, str(directory / script), *rest, str(inputs)], check=True)
    args = [a.replace("{inputs}", str(inputs)) for a in info.get("args", [])]
    flags = list(info.get("flags", []))
    source = directory / info["sources"][0]
    # relative -I directories are the program's; the shim build runs from elsewhere
    absolute = [f"-I{directory / f[2:]}" if f.startswith("-I") else f for f in flags]
    original = cuda_host.build(str(source), work / "original",
                               options=ParseOptions(user_flags=tuple(absolute)), flags=absolute)
    exe = work / "rewritten" / "prog"
    exe.parent.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("S2S_WRAPPED", "S2S_PASSES")}
    wrapper = subprocess.run(
        [sys.executable, "-m", "s2s", "nvcc", "--s2s-passes=mgpu", "-std=c++17", "-arch=sm_90",
         *flags, str(source.relative_to(directory)), "-o", str(exe)],
        capture_output=True, text=True, cwd=directory, env=dict(env, PYTHONPATH=str(REPO)))
    result = {"info": info, "wrapper": wrapper, "original": _run(original, 1, args, directory)}
    if wrapper.returncode == 0:
        for devices in DEVICES:
            result[devices] = _run(exe, devices, args, directory)
    return result


def selected_programs(session) -> list[str]:
    """The programs the tests of this module that will run name (after ``-k``, ``-m`` and
    node ids): building the other programs would cost minutes for nothing."""
    here = Path(__file__).resolve()
    chosen = {item.callspec.params["name"] for item in session.items
              if Path(str(item.fspath)).resolve() == here
              and "name" in getattr(getattr(item, "callspec", None), "params", {})}
    return [name for name in PROGRAMS if name in chosen]


@pytest.fixture(scope="module")
def corpus(request):
    if NVCC is None:
        pytest.skip("nvcc is not installed: the rewritten programs are built with it")
    with tempfile.TemporaryDirectory(prefix="s2s-cuda-corpus-") as temp:
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {name: pool.submit(measure, name, Path(temp) / name)
                       for name in selected_programs(request.session)}
            yield {name: future.result() for name, future in futures.items()}


def summary(result: dict) -> dict:
    """The measured row of status.toml for one program (on 2 devices)."""
    stats = result[DEVICES[0]]["stats"]
    _copies, traffic = traffic_of(stats)
    one_device = sorted({launch["kernel"] for launch in stats["launches"]
                         if not (launch["partitioned"] and launch["boxes"] > 1)})
    return {"launches": traffic.launches, "split": traffic.partitioned,
            "device_bytes": traffic.d2d_bytes, "one_device": one_device}


def test_corpus_has_fifteen_programs_each_recorded():
    assert len(PROGRAMS) >= 15
    assert sorted(status()) == PROGRAMS


def test_fixture_builds_only_the_programs_of_selected_tests():
    here = str(Path(__file__).resolve())
    other = str(REPO / "testsuite" / "mgpu" / "test_other.py")

    def item(path, **params):
        return SimpleNamespace(fspath=path, callspec=SimpleNamespace(params=params))

    first, second = PROGRAMS[0], PROGRAMS[-1]
    items = [item(here, name=second), item(here, name=first), item(here, name=second),
             item(other, name=PROGRAMS[1]), SimpleNamespace(fspath=here)]
    assert selected_programs(SimpleNamespace(items=items)) == [first, second]
    assert selected_programs(SimpleNamespace(items=[])) == []


@pytest.mark.parametrize("name", PROGRAMS)
def test_rewrite_builds_without_fallback_and_matches_on_2_and_4_devices(corpus, name):
    result = corpus[name]
    wrapper = result["wrapper"]
    assert wrapper.returncode == 0, wrapper.stderr
    assert not _WRAPPER_WARNING.search(wrapper.stderr), wrapper.stderr
    original = result["original"]
    assert original["rc"] == 0, original["stderr"]
    ignore = tuple(result["info"].get("ignore_lines", ()))
    for devices in DEVICES:
        run = result[devices]
        assert run["stats"] is not None, f"ran without the s2s runtime: {run['stderr']}"
        assert run["stats"]["devices"] == devices
        assert run["rc"] == original["rc"], run["stderr"]
        assert not output_differences(original["stdout"], run["stdout"], 0.0, ignore=ignore)
    assert summary(result) == status()[name]


if __name__ == "__main__":            # python testsuite/mgpu/test_cuda_corpus.py [NAME...]
    with tempfile.TemporaryDirectory(prefix="s2s-cuda-corpus-") as temp:
        for program in sys.argv[1:] or PROGRAMS:
            row = summary(measure(program, Path(temp) / program))
            print(f"[{program}]")
            for key, value in row.items():
                print(f"{key} = {json.dumps(value)}")
            print()
