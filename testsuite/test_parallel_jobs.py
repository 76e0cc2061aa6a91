"""``-j N`` and the fact cache never change an output (issue 30, items 2 and 3).

Each command runs on a program of several files with one job and with two, with the cache
cold, warm and off (``--no-cache``), and every run's standard output must be the same bytes;
the exit statuses too. The program is small (a generated OpenMP program of four files and a
header; two CUDA samples, parsed against s2s's shim headers) so the module takes seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from s2s.cli.main import main

REPO = Path(__file__).resolve().parent.parent
CUDA = [REPO / "samples" / "cuda" / name for name in ("two_files", "saxpy")]


def _openmp_program(folder: Path) -> list[str]:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from gen_big_cu import generate_openmp_program, without_data_directives
    finally:
        sys.path.remove(str(REPO / "scripts"))
    for name, text in generate_openmp_program(800, 3).items():
        (folder / name).write_text(without_data_directives(text))
    return sorted(str(folder / name) for name in ("kernels_0.c", "kernels_1.c", "kernels_2.c",
                                                  "main.c"))


def _cuda_files() -> list[str]:
    return sorted(str(p) for folder in CUDA for p in folder.iterdir() if p.suffix == ".cu")


def _outputs(argv: list[str], capsys) -> dict[str, tuple[int, str]]:
    """stdout and status of ``argv`` run cold, warm, and with --no-cache with -j 2 and 1."""
    runs = {"cold -j 1": ["-j", "1"], "warm -j 1": ["-j", "1"],
            "no cache -j 2": ["-j", "2", "--no-cache"], "no cache -j 1": ["--no-cache"]}
    out = {}
    for label, extra in runs.items():
        code = main([*argv, *extra])
        out[label] = (code, capsys.readouterr().out)
    return out


@pytest.mark.parametrize("command, said", [(["omp", "--diff"], "+#pragma omp target"),
                                           (["inspect"], "kernels_2.c")])
def test_openmp_program_is_the_same_with_any_jobs_and_cache(command, said, tmp_path,
                                                            fact_cache_on, capsys):
    files = _openmp_program(tmp_path)
    outputs = _outputs([*command, *files], capsys)
    assert len(set(outputs.values())) == 1, {k: v[1][:200] for k, v in outputs.items()}
    assert said in outputs["cold -j 1"][1]
    assert any(fact_cache_on.iterdir())


def test_cuda_samples_are_the_same_with_any_jobs_and_cache(fact_cache_on, capsys):
    outputs = _outputs(["transfers", "--diff", "--cuda-path", "shim", *_cuda_files()], capsys)
    assert len(set(outputs.values())) == 1, {k: v[1][:200] for k, v in outputs.items()}
    assert outputs["cold -j 1"][1]


def test_jobs_must_be_a_number(capsys):
    assert main(["inspect", "-j", "many", str(CUDA[1] / "saxpy.cu")]) == 2
    assert "-j takes a number" in capsys.readouterr().err



def _slow_pid(item: int) -> tuple[int, int]:
    import os
    import time

    time.sleep(0.2)
    return item, os.getpid()


def test_gathered_shares_the_work_with_the_run_itself():
    """``parallel.gathered``: the results in order, made by a forked worker and by the run's
    own process (which takes the items no worker started, from the back)."""
    import os

    from s2s import parallel

    found = parallel.gathered(_slow_pid, list(range(6)), 2)
    assert [item for item, _pid in found] == list(range(6))
    pids = {pid for _item, pid in found}
    assert os.getpid() in pids and len(pids) == 2
    assert found[-1][1] == os.getpid() and found[0][1] != os.getpid()


def test_diffs_are_worked_out_ahead():
    """``-j 2 --diff``: the diffs of a whole-program run are made before they are printed,
    on the workers and the run itself, each the text one job makes (difflib on big files was
    the last serial step after the check)."""
    from s2s.cli import rewrite_cmd
    from s2s.driver import Success
    from s2s.output import FileChange, unified_diff

    changes = [FileChange(f"f{k}.c", b"int a;\nint b;\n" * 50, b"int a;\nint c;\n" * 50)
               for k in range(3)]
    results = [Success(c.path, None, c) for c in changes] + \
        [Success("same.c", None, FileChange("same.c", b"x\n", b"x\n"))]
    ready = rewrite_cmd.diffs_ahead(results, 2)
    assert set(ready) == {rewrite_cmd.diff_key(c) for c in changes}   # the unchanged: none
    for change in changes:
        assert ready[rewrite_cmd.diff_key(change)] == unified_diff(change)
