"""Mutation fuzzing of every subcommand (issue 16, item 10): ``s2s.verify.fuzz``.

``test_fuzz_case[SEED]`` runs one fuzzing campaign of 100 seeds (60 fixed ones and 40 fresh
ones derived from the commit hash, new with every commit; ``S2S_FUZZ_SEEDS=A-B`` picks
others) on two worker processes: each seed mutates a sample and runs inspect, omp, transfers,
fuse and mgpu (``--diff``, ``--check``, ``--in-place`` twice on a copy, sometimes ``-o``), a few
cases as real ``python -m s2s`` processes and two with ``verify``; every invariant broken is a
failure of that seed's test, with the command that reproduces it. Only the defects listed in
``fuzz.known_defect`` may xfail. The other tests check the fuzzer itself: reproducible cases,
mutators that mutate, checks that catch what they should, crash and hang detection.
"""

from __future__ import annotations

import os
import random
import time

import pytest

from s2s.output import FileChange, unified_diff
from s2s.verify import fuzz

pytestmark = pytest.mark.slow


#: seeds every CI run checks (the cases that found defects before), and how many fresh ones
FIXED_SEEDS = range(0, 60)
FRESH_SEEDS = 40


def _seeds() -> list[int]:
    """``S2S_FUZZ_SEEDS=A-B`` when set (a replay); else the fixed seeds and a fresh range
    derived from the commit hash, printed so that a failure found in CI can be replayed."""
    text = os.environ.get("S2S_FUZZ_SEEDS")
    if text:
        low, _, high = text.partition("-")
        return list(range(int(low), int(high or low) + 1))
    first, commit = fuzz.commit_seed_start()
    last = first + FRESH_SEEDS - 1
    global SEED_ORIGIN
    SEED_ORIGIN = (f"fixed seeds {FIXED_SEEDS.start}-{FIXED_SEEDS.stop - 1}, fresh seeds "
                   f"{first}-{last} from commit {commit} (replay: S2S_FUZZ_SEEDS={first}-{last})")
    print(f"fuzz: {SEED_ORIGIN}")
    return [*FIXED_SEEDS, *range(first, last + 1)]


SEED_ORIGIN = "seeds from S2S_FUZZ_SEEDS"


SEEDS = _seeds()
#: seeds whose steps run as real processes (segfaults, the real entry point), and with verify
SUBPROCESS_SEEDS = frozenset(SEEDS[i] for i in (3, 41, 77) if i < len(SEEDS))
VERIFY_SEEDS = frozenset(SEEDS[i] for i in (10, 60) if i < len(SEEDS))


@pytest.fixture(scope="module")
def campaign():
    options = fuzz.CaseOptions(verify_rate=0.0, subprocess_rate=0.0, toolkit_rate=0.02,
                               nvcc_rate=0.0, force_verify=VERIFY_SEEDS,
                               force_subprocess=SUBPROCESS_SEEDS)
    config = fuzz.FuzzConfig(case_options=options, case_timeout=150.0, verify_timeout=10.0)
    start, before = time.perf_counter(), os.times()
    results = {r.seed: r for r in fuzz.fuzz(SEEDS, config, jobs=2)}
    wall, after = time.perf_counter() - start, os.times()
    cpu = (after.children_user + after.children_system
           - before.children_user - before.children_system)
    runs = sum(r.runs for r in results.values())
    parsed = sum(bool(r.parsed) for r in results.values())
    print(f"\nfuzz: {SEED_ORIGIN}")
    print(f"fuzz: {len(results)} cases ({parsed} mutants load without errors), {runs} s2s "
          f"runs in {wall:.1f} s wall, {cpu:.1f} s CPU of the 2 workers")
    return results


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_case(seed, campaign):
    result = campaign[seed]
    if not result.failures:
        return
    lines = [f"seed {seed}: {result.sample}: {'; '.join(result.mutations)}"]
    for failure in result.failures:
        tag = f"known defect: {failure.known}" if failure.known else "NEW"
        lines.append(f"  [{tag}] {failure.kind} in `{failure.step}`: {failure.detail}")
    lines.append(f"  reproduce: python scripts/bench_fuzz.py --seeds {seed} --keep /tmp/fz "
                 "(--minimise to shrink it)")
    if result.new_failures:
        pytest.fail("\n".join(lines), pytrace=False)
    pytest.xfail("\n".join(lines))


# ----------------------------------------------------------------------------- the fuzzer


def test_fresh_seeds_follow_the_commit(monkeypatch):
    """A new commit gets seeds no earlier run tried; one commit always gets the same ones."""
    a, b = "1975879f2ecd2f5f4a4b666c9c9e837acd3c430b", "49451e9d00000000000000000000000000000000"
    assert fuzz.commit_seed_start(a) == fuzz.commit_seed_start(a)
    assert fuzz.commit_seed_start(a)[0] != fuzz.commit_seed_start(b)[0]
    for start, _ in (fuzz.commit_seed_start(a), fuzz.commit_seed_start(b)):
        assert start >= fuzz.FRESH_SEED_BASE > max(FIXED_SEEDS)
    assert fuzz.commit_seed_start("not a hash") == (fuzz.FRESH_SEED_BASE, "unknown")
    monkeypatch.delenv("S2S_FUZZ_SEEDS", raising=False)
    first, commit = fuzz.commit_seed_start()
    seeds = _seeds()
    assert seeds[:len(FIXED_SEEDS)] == list(FIXED_SEEDS)
    assert seeds[len(FIXED_SEEDS):] == list(range(first, first + FRESH_SEEDS))
    assert f"S2S_FUZZ_SEEDS={first}-{first + FRESH_SEEDS - 1}" in SEED_ORIGIN and commit in SEED_ORIGIN


def test_one_seed_is_one_reproducible_case():
    for seed in (0, 1, 7, 123456):
        a, b = fuzz.make_case(seed), fuzz.make_case(seed)
        assert a.mutant.data == b.mutant.data and a.mutant.steps == b.mutant.steps
        assert (a.sample, a.check_command, a.inplace_command, a.inspect_flags) == \
            (b.sample, b.check_command, b.inplace_command, b.inspect_flags)
    cases = [fuzz.make_case(seed) for seed in range(200)]
    assert len({c.sample.name for c in cases}) > 40  # the whole corpus is drawn from
    assert len({c.mutant.data for c in cases}) > 190
    used = {step.split(":")[0] for c in cases for step in c.mutant.steps}
    assert set(fuzz.MUTATORS) <= used


@pytest.mark.parametrize("name", sorted(fuzz.MUTATORS))
def test_every_mutator_mutates(name):
    function, languages, _weight = fuzz.MUTATORS[name]
    samples = [s for s in fuzz.corpus() if s.language in languages]
    changed = 0
    for seed in range(20):
        rng = random.Random(seed)
        sample = rng.choice(samples)
        data = sample.path.read_bytes()
        mutant = fuzz.Mutant(data)
        if function(rng, data, mutant) != data:
            changed += 1
        assert mutant.steps, "a mutator says what it did"
    assert changed >= 15


def test_pragma_damage_hits_omp_directives():
    sample = next(s for s in fuzz.corpus() if s.path.name == "matmul.c")
    data = sample.path.read_bytes()
    pragmas = set(fuzz.PRAGMA_LINE.findall(data))
    hit = 0
    for seed in range(40):
        mutant = fuzz.Mutant(data)
        out = fuzz.m_pragma(random.Random(seed), data, mutant)
        hit += set(fuzz.PRAGMA_LINE.findall(out)) != pragmas or b"_Pragma" in out
    assert hit >= 35


def test_deep_nesting_records_its_depth():
    mutant = fuzz.Mutant(b"int main(void) {\n  return 0;\n}\n")
    for seed in range(30):
        fuzz.m_deep_nesting(random.Random(seed), mutant.data, mutant)
    assert mutant.nesting and all(depth >= 2 for depth in mutant.nesting.values())


# ------------------------------------------------------------------------------ the checks


def _run(stdout="", stderr="", code=0, **kw):
    return fuzz.RunOutput(["omp", "x.c"], code, stdout, stderr, 0.1, **kw)


SRC = {"/t/in/x.c": b"int main(void) {\n  return 0;\n}\n"}


def _kinds(run, allowed=("usage",)):
    return [f.kind for f in fuzz.check_run(run, "omp --diff", SRC, allowed)]


def test_checks_accept_well_formed_output():
    stderr = ("/t/in/x.c:2:3: warning: something odd [omp-odd]\n"
              "  /t/in/x.c:99:1: could be anything on the source line\n"
              "  ^\n"
              "note: silence this warning with --silence omp-odd\n"
              "/t/in/x.c:1:1: error: expected ';' [clang-#warnings]\n"
              "1 file: 0 would change, 1 failed\n"
              "/t/in/x.c: would be changed\n")
    assert _kinds(_run(stderr=stderr, code=1)) == []
    assert _kinds(_run(stderr="error: bad option [usage]\n", code=2)) == []


@pytest.mark.parametrize("run, kind", [
    (_run(stderr="Traceback (most recent call last):\n  File x\nKeyError: 'a'\n", code=1),
     "traceback"),
    (_run(code=3), "exit-code"),
    (_run(stderr="error: nothing useful\n", code=2), "exit-code"),
    (_run(stderr="/t/in/x.c: error: internal error while processing this file: KeyError [internal]"
          "\n", code=1), "internal-error"),
    (_run(stderr="/t/in/x.c:1:1: error: two edits overlap [edit-conflict]\n", code=1),
     "edit-conflict"),
    (_run(stderr="/t/in/x.c:2:3: error: a message\nwith a newline [parse-error]\n", code=1),
     "diagnostic-format"),
    (_run(stderr="/t/in/x.c:2: error: no column [parse-error]\n", code=1), "diagnostic-format"),
    (_run(stderr="/t/in/x.c:40:1: error: far away [parse-error]\n", code=1), "bad-location"),
    (_run(stderr="/t/in/x.c:0:1: error: line zero [parse-error]\n", code=1), "bad-location"),
    (_run(code=-11), "crash"),
    (_run(code=-9, timed_out=True), "hang"),
    (_run(code=2, exception="Traceback ...\nRecursionError: maximum recursion depth\n"),
     "exception"),
    (_run(stderr="/x/s2s/a.py:3: DeprecationWarning: old\n"), "python-warning"),
])
def test_checks_catch(run, kind):
    assert kind in _kinds(run)


def test_unified_diff_round_trip():
    rng = random.Random(5)
    pieces = [b"a", b"b\n", b"\r\n", b"\r", b"\xff", b"\xc3\xa9", b"\0", b"\n", b"x" * 30,
              b"\\ No newline", b"--- a", b"+++ b", b"@@ -1 +1 @@"]
    for _ in range(300):
        before = b"".join(rng.choice(pieces) for _ in range(rng.randrange(12)))
        after = bytearray(before)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(after) + 1)
            after[at:at + rng.randrange(3)] = rng.choice(pieces)
        diff = unified_diff(FileChange("/t/x.c", before, bytes(after)), root="/t")
        assert fuzz.apply_unified_diff(before, diff) == bytes(after), (before, bytes(after))
    assert fuzz.apply_unified_diff(b"a\nb\n", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-z\n+y\n") is None


def test_known_defects_are_only_the_listed_ones():
    deep = {"parens": 1500}
    assert fuzz.known_defect(fuzz.Failure("crash", "omp --diff", "SIGSEGV"), deep)
    assert not fuzz.known_defect(fuzz.Failure("crash", "omp --diff", "SIGSEGV"), {"parens": 40})
    assert not fuzz.known_defect(fuzz.Failure("traceback", "omp --diff", "KeyError"), deep)
    blocks = {"blocks": 1000}
    assert fuzz.known_defect(fuzz.Failure("traceback", "omp", "RecursionError: x"), blocks)
    assert not fuzz.known_defect(fuzz.Failure("traceback", "omp", "RecursionError: x"),
                                 {"binary": 1000})


def test_worker_crash_and_hang_are_failures():
    config = fuzz.FuzzConfig(case_timeout=3.0)
    results = list(fuzz.Pool(config, jobs=2).run([{"selftest": "segv"},
                                                  {"selftest": "hang", "timeout": 2.0}]))
    kinds = sorted(f.kind for r in results for f in r.failures)
    assert kinds == ["crash", "hang"], [r.failures for r in results]
    crash = next(f for r in results for f in r.failures if f.kind == "crash")
    assert "SIGSEGV" in crash.detail and crash.step == "selftest segv"


def test_a_hang_is_a_cpu_limit_or_no_progress_never_load():
    """A case on a loaded machine (seed 78224700: fuse on horner.cu took 352 s wall at load 25
    for bounded work) is no hang: the limit is on CPU time; a case that works without end is
    one (``spin``), and so is one that waits without progress (``hang``, above)."""
    config = fuzz.FuzzConfig(case_timeout=2.0)
    results = list(fuzz.Pool(config, jobs=2).run([{"selftest": "spin", "seconds": 60.0},
                                                  {"selftest": "crawl", "seconds": 5.0}]))
    crawl = [r for r in results if r.sample == "selftest crawl"]
    assert len(crawl) == 1 and crawl[0].failures == [], results  # 5 s wall, under 2 s of CPU
    spin = [f for r in results for f in r.failures]
    assert [(f.kind, f.step) for f in spin] == [("hang", "selftest spin")], spin
    assert "more than 2 s of CPU" in spin[0].detail, spin


def test_subprocess_runner_reports_exit_status(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_bytes(b"int main(void) { return ; \n")
    run = fuzz.run_subprocess(["omp", "--cuda-path", "shim", str(bad)], timeout=60)
    assert run.returncode == 1 and not run.timed_out
    assert fuzz.check_run(run, "omp --diff", {str(bad): bad.read_bytes()}) == []
    inproc = fuzz.run_inprocess(["omp", "--cuda-path", "shim", str(bad)])
    assert (inproc.returncode, inproc.stderr.strip()) == (run.returncode, run.stderr.strip())
