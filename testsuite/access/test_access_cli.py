"""``s2s inspect --access``: tables per kernel, and the contract's dicts in JSON."""

from __future__ import annotations

import json

from conftest import SAMPLES

from runtime.access import Box, KernelAccess, Launch
from s2s.cli.main import main


def test_text_shows_maps_and_verdicts(capsys):
    code = main(["inspect", "--access", "--only", "kernels",
                 str(SAMPLES / "cuda" / "block_reduction" / "block_reduction.cu")])
    out = capsys.readouterr().out
    assert code == 0
    assert "access of block_sum_atomic (NOT partitionable: threads of different blocks write" in out
    assert "access of block_sum_partial (partitionable)" in out
    assert "-> partial[i]" in out and "must" in out


def test_json_gives_the_runtime_contract(capsys):
    code = main(["inspect", "--access", "--format", "json",
                 str(SAMPLES / "cuda" / "saxpy" / "saxpy.cu")])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    (saxpy,) = report["files"][0]["access"]
    assert saxpy["kernel"] == "saxpy" and saxpy["partitionable"] is True
    assert saxpy["params"] == ["n", "a", "x", "y"]
    access = KernelAccess.from_dict(saxpy)
    assert access.to_dict() == saxpy
    launch = Launch((4, 1, 1), (256, 1, 1), {"n": 1000})
    assert access.write_ranges("y", Box((1, 0, 0), (3, 1, 1)), launch) == [(256, 768)]
    assert access.read_ranges("x", Box((3, 0, 0), (4, 1, 1)), launch) == [(768, 1000)]
    assert access.reads("x") and not access.writes("x")
