"""The fact cache (issue 30, item 2): what its key holds, what it refuses, how it stays bounded.

Small files in a temporary folder; whether a load was a hit is told by counting the calls of
the real :func:`s2s.frontend.extract.load` behind the cache.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from s2s.frontend import fact_cache
from s2s.frontend.core.parse import ParseOptions

MAIN = b'#include "sizes.h"\nvoid scale(float *a) {\n#pragma omp target teams distribute parallel for\n  for (int i = 0; i < N; ++i) a[i] *= 2.0f;\n}\n'


@pytest.fixture
def program(tmp_path, fact_cache_on, monkeypatch):
    """main.c including sizes.h, the working directory; the list of real loads made."""
    (tmp_path / "main.c").write_bytes(MAIN)
    (tmp_path / "sizes.h").write_bytes(b"#define N 64\n")
    monkeypatch.chdir(tmp_path)
    calls: list[str] = []
    real = fact_cache.load

    def counted(path, *args, **kwargs):
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fact_cache, "load", counted)
    return calls


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith(".tmp-")) \
        if folder.is_dir() else []


def test_a_second_load_reads_the_facts_and_they_are_equal(program, fact_cache_on):
    first = fact_cache.cached_load("main.c", ParseOptions())
    second = fact_cache.cached_load("main.c", ParseOptions())
    assert program == ["main.c"]
    assert second == first and second.model.directives
    assert len(_entries(fact_cache_on)) == 1


def test_an_edited_header_is_a_miss(program):
    fact_cache.cached_load("main.c", ParseOptions())
    stamp = os.stat("sizes.h")
    Path("sizes.h").write_bytes(b"#define N 32\n")    # same size and time: the bytes decide
    os.utime("sizes.h", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    fact_cache.cached_load("main.c", ParseOptions())
    fact_cache.cached_load("main.c", ParseOptions())
    assert program == ["main.c", "main.c"]


def test_the_flags_and_the_version_are_in_the_key(program, monkeypatch):
    fact_cache.cached_load("main.c", ParseOptions())
    fact_cache.cached_load("main.c", ParseOptions(user_flags=("-DEXTRA=1",)))
    assert len(program) == 2
    monkeypatch.setitem(fact_cache._VERSIONS, "code", "another s2s")
    fact_cache.cached_load("main.c", ParseOptions())
    assert len(program) == 3


def test_a_corrupt_or_truncated_entry_is_loaded_again(program, fact_cache_on):
    good = fact_cache.cached_load("main.c", ParseOptions())
    (entry,) = _entries(fact_cache_on)
    data = entry.read_bytes()
    for damaged in (data[: len(data) // 2], data[:-1] + bytes([data[-1] ^ 1]), b""):
        entry.write_bytes(damaged)
        assert fact_cache.cached_load("main.c", ParseOptions()) == good
    assert len(program) == 4
    assert entry.read_bytes() == data              # stored whole again


def test_a_planted_entry_never_runs_code_nor_changes_the_result(program, fact_cache_on, tmp_path):
    good = fact_cache.cached_load("main.c", ParseOptions())
    (entry,) = _entries(fact_cache_on)
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    payload = pickle.dumps(Planted())              # a valid hash: the unpickler must refuse it
    entry.write_bytes(fact_cache.FORMAT + hashlib.sha256(payload).digest() + payload)
    assert fact_cache.cached_load("main.c", ParseOptions()) == good
    assert not marker.exists()
    os.chmod(entry, 0o664)                         # others may write it: never used
    assert fact_cache.cached_load("main.c", ParseOptions()) == good
    assert len(program) == 3


def test_no_cache_reads_and_writes_nothing(program, fact_cache_on, monkeypatch):
    for _ in range(2):
        fact_cache.cached_load("main.c", ParseOptions(cache=False))     # --no-cache
        assert fact_cache.parse_errors(MAIN, "main.c", ParseOptions(cache=False)) == []
    monkeypatch.setenv("S2S_NO_CACHE", "1")
    fact_cache.cached_load("main.c", ParseOptions())
    assert len(program) == 3 and not _entries(fact_cache_on)


def test_the_verdict_of_a_check_parse_is_kept_when_there_is_no_error(program, monkeypatch):
    parses = []
    real = fact_cache.check_parse
    monkeypatch.setattr(fact_cache, "check_parse", lambda *a, **k: parses.append(a) or real(*a, **k))
    broken = MAIN.replace(b"a[i] *= 2.0f;", b"a[i] *= ;")
    for _ in range(2):
        assert fact_cache.parse_errors(MAIN, "main.c", ParseOptions()) == []
        assert fact_cache.parse_errors(broken, "main.c", ParseOptions())
    assert len(parses) == 3                         # the broken text is parsed every time


def test_the_size_bound_evicts_the_oldest_first(tmp_path):
    for age, name in enumerate(("new", "middle", "old")):
        path = tmp_path / name
        path.write_bytes(bytes(1000))
        os.utime(path, (1_000_000 - age * 10, 1_000_000 - age * 10))
    fact_cache.evict(tmp_path, 2500)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["middle", "new"]
    fact_cache.evict(tmp_path, 0)
    assert not list(tmp_path.iterdir())


def test_the_bound_holds_for_a_run(program, fact_cache_on, monkeypatch):
    fact_cache.cached_load("main.c", ParseOptions())
    size = _entries(fact_cache_on)[0].stat().st_size
    monkeypatch.setenv("S2S_CACHE_MAX_MB", str(1.5 * size / (1024 * 1024)))
    for flag in ("-DA", "-DB", "-DC"):
        fact_cache.cached_load("main.c", ParseOptions(user_flags=(flag,)))
    assert len(_entries(fact_cache_on)) == 1


WRITER = textwrap.dedent("""\
    import hashlib, sys
    from s2s.frontend import fact_cache
    from s2s.frontend.core.parse import ParseOptions
    seen = set()
    for n in range(12):
        if n % 3 == 0:      # entries disappear under the other writer: it must not matter
            for entry in fact_cache.cache_dir().iterdir():
                entry.unlink(missing_ok=True)
        seen.add(hashlib.sha256(repr(fact_cache.cached_load("main.c", ParseOptions()).model)
                                .encode()).hexdigest())
    print(len(seen), seen.pop())
""")


def test_two_processes_writing_at_once_agree(program, fact_cache_on):
    runs = [subprocess.Popen([sys.executable, "-c", WRITER], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert outputs[0][0] == outputs[1][0] and outputs[0][0].startswith("1 ")
    assert not outputs[0][1] and not outputs[1][1]


def test_a_relative_xdg_cache_home_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert fact_cache.cache_dir() == tmp_path / ".cache" / "s2s" / "facts"
    assert not (tmp_path / "relative").exists()


def test_an_outline_is_never_served_to_a_run_that_needs_the_whole_model(tmp_path, program):
    """An outline (a file without the pass's word) and the whole model are two entries."""
    Path("plain.c").write_bytes(b"int add(int a, int b) { return a + b; }\n")
    outlined = fact_cache.cached_load("plain.c", ParseOptions(), skip_without=b"target")
    whole = fact_cache.cached_load("plain.c", ParseOptions())
    again = fact_cache.cached_load("plain.c", ParseOptions(), skip_without=b"target")
    assert outlined.outlined and not whole.outlined and again.outlined
    assert whole.model.functions and not outlined.model.functions
    assert program == ["plain.c", "plain.c"]          # the third load was a hit
