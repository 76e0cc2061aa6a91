"""Build and run an original program and its rewrite on clang-16's host device (tests)."""

from __future__ import annotations

import pytest

from s2s.edits import EditSet
from s2s.transform.omp import run_omp
from s2s.verify import omp_harness


def rewrite_source(load_source, program: str, name: str = "prog.cpp"):
    """(the rewritten text, the pass output) of ``s2s omp`` on ``program`` parsed in memory."""
    loaded = load_source(program, name=name)
    out = run_omp(loaded)
    return EditSet(out.edits).apply(name, loaded.source).decode(), out


def run_both(tmp_path, original: str | bytes, rewritten: str | bytes, suffix: str = ".c"):
    """(original run, rewritten run); skips the test where the OpenMP toolchain is missing."""
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    runs = []
    for name, text in (("orig", original), ("new", rewritten)):
        source = tmp_path / f"{name}{suffix}"
        source.write_bytes(text.encode() if isinstance(text, str) else text)
        omp_harness.build(source, tmp_path / name)
        runs.append(omp_harness.run(tmp_path / name))
    return runs[0], runs[1]


def run_rewrite_and_host(tmp_path, original: str, rewritten: str, suffix: str = ".c",
                         aliases: bool = False):
    """(host fallback run, device run) of ``rewritten``, built once: the rewrite differs from
    ``original`` only in OpenMP directives (checked here, line by line), and with
    ``OMP_TARGET_OFFLOAD=DISABLED`` every directive that maps or copies is a no-op and the
    target regions run on the host's own memory, so the first run is the original program's
    output (a second build of the original would give the same); the second runs on the
    host device with the rewrite's copies. With ``aliases``, the rewrite may also add
    ``auto s2s_<name> = <name>;`` lines (a local copy of a member pointer for a map clause,
    no effect on the host run). Skips where the OpenMP toolchain is missing."""
    if omp_harness.toolchain_problem():
        pytest.skip(omp_harness.toolchain_problem())
    new_lines = [line for line in _code_lines(rewritten)
                 if not (aliases and _is_alias(line))]
    assert new_lines == _code_lines(original), "the rewrite changed code"
    source = tmp_path / f"new{suffix}"
    source.write_text(rewritten)
    omp_harness.build(source, tmp_path / "new")
    host = omp_harness.run(tmp_path / "new", env={"OMP_TARGET_OFFLOAD": "DISABLED"})
    assert host.copies.total_count == 0, "the host fallback copied"
    return host, omp_harness.run(tmp_path / "new")


def _is_alias(line: str) -> bool:
    """Whether ``line`` is ``auto s2s_<name> = <name>;`` (omp.member_pointers' local copy)."""
    words = line.strip().removesuffix(";").split()
    return (len(words) == 4 and words[0] == "auto" and words[2] == "="
            and words[1] == f"s2s_{words[3]}")


def _code_lines(text: str) -> list[str]:
    """The lines of ``text`` that are not OpenMP directives."""
    return [line for line in text.splitlines() if not line.lstrip().startswith("#pragma omp")]


def check_mapped_per_call(load_source, tmp_path, program: str, reason: str,
                          added_destructor: str | None = None) -> None:
    """A class whose fields s2s refuses to map over each object's lifetime: one note gives
    ``reason``, no constructor enters data (before ``void forces``), no destructor
    ``added_destructor`` is added, and the per-call mapping runs right (same output as the
    original, no unmapped pointer)."""
    rewritten, out = rewrite_source(load_source, program)
    notes = [d.message for d in out.diagnostics if "over each object's lifetime" in d.message]
    assert len(notes) == 1 and reason in notes[0], notes
    assert "target enter data" not in rewritten[:rewritten.index("void forces")]
    if added_destructor is not None:
        assert added_destructor not in rewritten
    original, new = run_both(tmp_path, program, rewritten, suffix=".cpp")
    assert new.returncode == 0 and new.stdout == original.stdout
    assert new.unmapped == ()
