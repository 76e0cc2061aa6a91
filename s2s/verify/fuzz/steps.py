"""One case from start to end: every subcommand on the mutant, the inputs hashed
before and after, ``--in-place`` twice; and the known defects."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from s2s.verify.fuzz.cases import Case, RunOutput
from s2s.verify.fuzz.checks import EXIT_2_IDS, Failure, apply_unified_diff, check_run, strip_location, tail
from s2s.verify.fuzz.corpus import REWRITE_COMMANDS, RUNTIME_INCLUDE, companions

# --------------------------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------------------------


@dataclass
class CaseResult:
    seed: int
    sample: str
    mutations: list[str]
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    runs: int = 0
    subprocess: bool = False
    verify: bool = False
    nesting: dict[str, int] = field(default_factory=dict)
    parsed: bool | None = None  # whether the mutant loaded without errors (inspect exit 0)
    notes: list[str] = field(default_factory=list)  # worth a look, not failures
    timings: list[tuple[str, float]] = field(default_factory=list)  # (step, seconds)

    @property
    def new_failures(self) -> list[Failure]:
        return [f for f in self.failures if f.known is None]

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> CaseResult:
        data = dict(data)
        data["failures"] = [Failure(**f) for f in data.get("failures", ())]
        return cls(**data)


def _hash_tree(root: Path, skip: Path | None = None) -> dict[str, str]:
    hashes = {}
    for path in sorted(root.rglob("*")):
        if skip is not None and (path == skip or skip in path.parents):
            continue
        if path.is_file():
            hashes[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def _leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob(".s2s-*.tmp"))


class _Steps:
    """Runs steps of a case, checking the shared invariants after each one."""

    def __init__(self, case: Case, root: Path, runner: Callable[[list[str]], RunOutput],
                 on_step: Callable[[str], None], only: str | None):
        self.case, self.root, self.runner, self.on_step, self.only = case, root, runner, \
            on_step, only
        self.failures: list[Failure] = []
        self.runs = 0
        self.timings: list[tuple[str, float]] = []
        self.inputs = root / "in"
        self.copies = root / "copy"
        self.sources: dict[str, bytes] = {}

    def wanted(self, command: str) -> bool:
        return self.only is None or self.only == command

    def run(self, step: str, argv: list[str], watch_skip: Sequence[Path] = (),
            allowed_exit_2: Sequence[str] = EXIT_2_IDS) -> RunOutput:
        self.on_step(step)
        before = _hash_tree(self.inputs)
        copies_before = _hash_tree(self.copies) if self.copies.exists() else {}
        run = self.runner(argv)
        self.runs += 1
        self.timings.append((step, round(run.seconds, 3)))
        self.failures += check_run(run, step, self.sources, allowed_exit_2)
        after = _hash_tree(self.inputs)
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            self.failures.append(Failure("input-changed", step, f"files changed: {changed}"))
        if self.copies.exists():
            skip = tuple(watch_skip) if watch_skip else ()
            copies_after = {k: v for k, v in _hash_tree(self.copies).items()
                            if self.copies / k not in skip}
            expected = {k: v for k, v in copies_before.items() if self.copies / k not in skip}
            if copies_after != expected:
                changed = sorted(k for k in set(expected) | set(copies_after)
                                 if expected.get(k) != copies_after.get(k))
                self.failures.append(Failure("input-changed", step,
                                             f"other files changed: {changed}"))
        left = _leftovers(self.root)
        if left:
            self.failures.append(Failure("tmp-leftover", step, f"left behind: {left}"))
            for name in left:
                (self.root / name).unlink(missing_ok=True)
        return run


def run_case(case: Case, root: Path, runner: Callable[[list[str]], RunOutput],
             on_step: Callable[[str], None] = lambda step: None, only: str | None = None,
             verify_timeout: float = 10.0) -> CaseResult:
    """Run ``case`` under ``root`` (an empty directory) and check every invariant."""
    start = time.perf_counter()
    result = CaseResult(case.seed, case.sample.name, list(case.mutant.steps),
                        subprocess=case.subprocess, verify=case.verify,
                        nesting=dict(case.mutant.nesting))
    steps = _Steps(case, root, runner, on_step, only)
    steps.inputs.mkdir(parents=True)
    for companion in companions(case.sample.directory):
        shutil.copyfile(companion, steps.inputs / companion.name)
    target = steps.inputs / case.sample.path.name
    target.write_bytes(case.mutant.data)
    steps.sources = {str(steps.inputs / p.name): (steps.inputs / p.name).read_bytes()
                     for p in steps.inputs.iterdir()}
    common = (["--cuda-path", "shim"] if case.cuda_path == "shim" else []) + list(case.flags)
    diffs: dict[str, RunOutput] = {}

    if steps.wanted("inspect"):
        step = " ".join(["inspect", *case.inspect_flags])
        run = steps.run(step, ["inspect", str(target), *case.inspect_flags, *common])
        result.parsed = run.returncode == 0
        if "json" in case.inspect_flags and run.returncode in (0, 1):
            try:
                json.loads(run.stdout)
            except ValueError as error:
                steps.failures.append(Failure("bad-json", step, f"stdout is not JSON: {error}"))
            except RecursionError:
                result.notes.append("inspect --format json: nested deeper than Python's json "
                                    "module reads with its default recursion limit")
    for command in REWRITE_COMMANDS:
        if not steps.wanted(command):
            continue
        explain = ["--explain"] if command in case.explain else []
        diffs[command] = run = steps.run(f"{command} --diff",
                                         [command, "--diff", str(target), *explain, *common])
        if run.returncode == 0 or run.returncode == 1:
            applied = apply_unified_diff(case.mutant.data, run.stdout)
            if applied is None:
                steps.failures.append(Failure("bad-diff", f"{command} --diff",
                                              f"the diff does not apply: {run.stdout[:200]!r}"))
    if case.check_command in diffs:
        command = case.check_command
        run = steps.run(f"{command} --check", [command, "--check", str(target), *common])
        diff = diffs[command]
        expected = 1 if (diff.returncode == 1 or diff.stdout) else 0
        if run.returncode in (0, 1) and diff.returncode in (0, 1) \
                and run.returncode != expected:
            steps.failures.append(Failure("mode-mismatch", f"{command} --check",
                                          f"--check exits {run.returncode}, but --diff exited "
                                          f"{diff.returncode} with "
                                          f"{'a' if diff.stdout else 'no'} diff"))
    if case.inplace_command in diffs:
        _in_place(case, steps, diffs[case.inplace_command], common)
    if case.verify and only in (None, "verify"):
        program = [str(steps.inputs / name) for name in case.sample.program
                   if (steps.inputs / name).exists()] or [str(target)]
        run = steps.run("verify", ["verify", *program, "--timeout", str(verify_timeout),
                                   *common], allowed_exit_2=("usage", "verify-*", "toolchain"))
        # A mutant may read uninitialized memory, so a different behaviour is a lead to look
        # at, not a failure by itself.
        said = [line for line in run.stderr.split("\n") if line.endswith(
            ("[verify-output]", "[verify-unmapped]", "[verify-exit-status]"))]
        if said:
            result.notes.append("verify: the rewritten program behaves differently: "
                                + strip_location(said[0]))
    result.failures = _dedup(steps.failures)
    for failure in result.failures:
        failure.known = known_defect(failure, case.mutant.nesting)
    result.runs = steps.runs
    result.timings = steps.timings
    result.seconds = time.perf_counter() - start
    return result


def _in_place(case: Case, steps: _Steps, diff: RunOutput, common: list[str]) -> None:
    command = case.inplace_command
    steps.copies.mkdir()
    for path in steps.inputs.iterdir():
        shutil.copyfile(path, steps.copies / path.name)
    copy = steps.copies / case.sample.path.name
    steps.sources.update({str(steps.copies / p.name): p.read_bytes()
                          for p in steps.copies.iterdir()})
    backup = ["--backup", ".orig"] if case.backup else []
    step = f"{command} --in-place"
    backup_path = Path(str(copy) + ".orig")
    table = Path(str(copy) + ".s2s_mgpu.h")     # mgpu's kernel table, written beside the copy
    run = steps.run(step, [command, "--in-place", str(copy), *backup, *common],
                    watch_skip=(copy, backup_path, table))
    after = copy.read_bytes()
    if run.returncode in (0, 1) and diff.returncode == run.returncode:
        expected = apply_unified_diff(case.mutant.data, diff.stdout)
        if expected is not None:  # mgpu writes the file's directory into the file
            expected = expected.replace(str(steps.inputs).encode(), str(steps.copies).encode())
        if expected is not None and after != expected:
            steps.failures.append(Failure("mode-mismatch", step, "the file written in place is "
                                          "not the mutant with the --diff output applied"))
    elif run.returncode in (0, 1) and diff.returncode in (0, 1):
        steps.failures.append(Failure("mode-mismatch", step, f"--in-place exits "
                                      f"{run.returncode}, --diff exited {diff.returncode}"))
    if case.backup:
        if after != case.mutant.data:
            if not backup_path.exists() or backup_path.read_bytes() != case.mutant.data:
                steps.failures.append(Failure("mode-mismatch", step, "--backup did not keep "
                                              "the original"))
        elif backup_path.exists():
            steps.failures.append(Failure("mode-mismatch", step, "--backup written for an "
                                          "unchanged file"))
        backup_path.unlink(missing_ok=True)
    if case.output_dir:
        out_dir = steps.root / "out"
        run_o = steps.run(f"{command} -o", [command, "-o", str(out_dir),
                                            str(steps.inputs / case.sample.path.name), *common])
        written = out_dir / case.sample.path.name
        if run_o.returncode == 0 and run.returncode == 0:
            in_place = after.replace(str(steps.copies).encode(), str(steps.inputs).encode())
            if not written.exists() or written.read_bytes() != in_place:
                steps.failures.append(Failure("mode-mismatch", f"{command} -o", "-o DIR wrote "
                                              "something else than --in-place"))
        shutil.rmtree(out_dir, ignore_errors=True)
    if after != case.mutant.data and run.returncode == 0:
        steps.sources[str(copy)] = after
        again = steps.run(f"{command} --in-place (second run)",
                          [command, "--in-place", str(copy), *common, "--",
                           f"-I{RUNTIME_INCLUDE}"], watch_skip=(copy,))
        if copy.read_bytes() != after:
            steps.failures.append(Failure("not-idempotent", f"{command} --in-place (second run)",
                                          "a second --in-place run changed the file again"))
        elif again.returncode != 0:
            steps.failures.append(Failure("rewrite-unparsable", f"{command} --in-place "
                                          "(second run)", "s2s fails on its own output: "
                                          + tail(again.stderr)))


def _dedup(failures: list[Failure]) -> list[Failure]:
    seen, out = set(), []
    for failure in failures:
        key = (failure.kind, failure.step, failure.detail)
        if key not in seen:
            seen.add(key)
            out.append(failure)
    return out


# --------------------------------------------------------------------------------------------
# Known defects (being fixed elsewhere): only these may be marked as expected
# --------------------------------------------------------------------------------------------

#: depth of parentheses from which libclang is known to crash (issue 16)
KNOWN_PARENS_DEPTH = 1300
#: depth of nested blocks known to raise RecursionError (issue 16: 1000 nested blocks)
KNOWN_BLOCKS_DEPTH = 300


def known_defect(failure: Failure, nesting: dict[str, int]) -> str | None:
    """The name of the known defect ``failure`` is an instance of, or None."""
    parens = max(nesting.get("parens", 0), nesting.get("macro", 0))
    if failure.kind in ("crash", "hang") and parens > KNOWN_PARENS_DEPTH:
        return f"deep parentheses ({parens}) crash libclang"
    if "RecursionError" in failure.detail and nesting.get("blocks", 0) >= KNOWN_BLOCKS_DEPTH:
        return f"{nesting['blocks']} nested blocks raise RecursionError"
    return None
