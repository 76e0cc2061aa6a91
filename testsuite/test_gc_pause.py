"""Garbage collection around a run (s2s.gc_pause) and the front end's one large cycle.

A run leaves the collector as the caller had it, and loading a file leaves no cycle that
holds the unit's cursors (they must be freed by reference counting: collection is off during
a run, see s2s.gc_pause)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from s2s import gc_pause
from s2s.driver import RunOptions, process_file
from s2s.frontend.extract import load
from s2s.transform.omp import run_omp
from s2s.whole_program import process_program

REPO = Path(__file__).resolve().parents[1]
MATMUL = REPO / "samples" / "openmp" / "matmul" / "matmul.c"


@pytest.fixture
def collector():
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_collection_is_off_during_a_call_and_restored(collector):
    gc.enable()
    assert gc_pause.call(gc.isenabled) is False
    assert gc.isenabled()
    gc.disable()
    assert gc_pause.call(gc.isenabled) is False
    assert not gc.isenabled()


def test_collection_restored_when_the_call_raises(collector):
    gc.enable()
    with pytest.raises(ZeroDivisionError):
        gc_pause.call(lambda: 1 / 0)
    assert gc.isenabled()


def test_runs_restore_the_collector(collector):
    gc.enable()
    assert process_file(str(MATMUL), RunOptions(), run_omp).status == "ok"
    assert gc.isenabled()
    assert [r.status for r in process_program([str(MATMUL)], RunOptions(), run_omp)] == ["ok"]
    assert gc.isenabled()


def test_loading_leaves_no_cycle_holding_the_cursors(collector):
    load(str(MATMUL))
    gc.collect()
    gc.disable()
    loaded = load(str(MATMUL))
    # before ExtractContext.release: about 3,500 objects (cursors, locations, walk nodes)
    assert gc.collect() < 500
    assert loaded.ok


def test_a_command_line_process_freezes_what_a_run_leaves(collector, monkeypatch):
    """The objects alive when the first run ends are frozen there (not traversed by the
    collections after it), the collector back on; a later run freezes nothing more (what each
    run leaves in cycles must not pile up); a library caller (the default) freezes nothing."""
    gc.enable()
    kept = gc_pause.call(lambda: [object() for _ in range(1000)])
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    monkeypatch.setattr(gc_pause, "_COMMAND_LINE", [])
    gc_pause.command_line_process()
    try:
        kept = gc_pause.call(lambda: [object() for _ in range(1000)])
        frozen = gc.get_freeze_count()
        assert frozen >= len(kept) and gc.isenabled()
        later = gc_pause.call(lambda: [object() for _ in range(1000)])
        # (nothing more frozen; a frozen object freed by its reference count leaves the
        # permanent generation, so the count may fall)
        assert gc.get_freeze_count() <= frozen and later and gc.isenabled()
    finally:
        gc.unfreeze()


def test_the_console_script_says_so():
    """The console script's own command line (argv None) marks the process (as ``python -m
    s2s`` does); main(argv), a library's or a test's call, does not."""
    import subprocess
    import sys

    probe = ("import sys; from s2s import gc_pause; from s2s.cli import entry; "
             "sys.argv = ['s2s', 'completion', 'bash']; entry.main(); "
             "print(gc_pause._COMMAND_LINE, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=REPO, check=True)
    assert done.stderr.strip().endswith("[True]")
    from s2s.cli import entry
    assert entry.main(["completion", "bash"]) == 0 and not gc_pause._COMMAND_LINE
