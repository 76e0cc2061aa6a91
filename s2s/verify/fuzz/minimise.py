"""Minimisation: shrink a failing mutant while its failure signature persists
(delta debugging over lines, then tokens, then bytes)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

from s2s.verify.fuzz.cases import make_case
from s2s.verify.fuzz.checks import Failure
from s2s.verify.fuzz.corpus import COMMANDS
from s2s.verify.fuzz.mutate_bytes import token_spans
from s2s.verify.fuzz.pool import FuzzConfig, Pool, Worker

# --------------------------------------------------------------------------------------------
# Minimisation
# --------------------------------------------------------------------------------------------


def _units(data: bytes, level: str) -> list[bytes]:
    if level == "lines":
        return data.split(b"\n")
    if level == "tokens":
        out, last = [], 0
        for _start, end in token_spans(data):
            out.append(data[last:end])
            last = end
        out.append(data[last:])
        return out
    return [bytes([b]) for b in data]


def _join(units: list[bytes], level: str) -> bytes:
    return b"\n".join(units) if level == "lines" else b"".join(units)


def minimise(seed: int, failure: Failure, config: FuzzConfig = FuzzConfig(),  # noqa: B008
             max_probes: int = 400, data: bytes | None = None,
             log: Callable[[str], None] = lambda text: None) -> bytes:
    """The smallest mutant found (delta debugging) on which ``failure``'s signature persists.

    Each probe reruns only the failing subcommand's steps of the case in a worker (so crashes
    and hangs are probes like the others).
    """
    case = make_case(seed, config.case_options, Path(config.samples))
    command = failure.step.split()[0] if failure.step else None
    only = command if command in COMMANDS + ("verify",) else None
    target = failure.signature()
    timeout = min(config.case_timeout, 60.0)
    force = {"check_command": case.check_command, "inplace_command": case.inplace_command}
    pool = Pool(config, jobs=1)
    worker = Worker(config)
    probes = 0

    def fails(candidate: bytes) -> bool:
        nonlocal worker, probes
        probes += 1
        request = {"seed": seed, "data": base64.b64encode(candidate).decode(), "only": only,
                   "force": force}
        result, step, problem = worker.request(request, timeout)
        if result is None:
            result = pool._lost(request, step, problem, worker, 0.0)
            worker.close()
            worker = Worker(config)
        return any(f.signature() == target for f in result.failures)

    current = case.mutant.data if data is None else data
    try:
        if not fails(current):
            log("the failure does not reproduce with only its subcommand")
            return current
        for level in ("lines", "tokens", "bytes"):
            units = _units(current, level)
            if level == "bytes" and len(units) > 400:
                continue
            n = 2
            while len(units) >= 2 and probes < max_probes:
                chunk = max(1, len(units) // n)
                reduced = False
                for start in range(0, len(units), chunk):
                    candidate_units = units[:start] + units[start + chunk:]
                    if probes >= max_probes:
                        break
                    if fails(_join(candidate_units, level)):
                        units = candidate_units
                        n = max(n - 1, 2)
                        reduced = True
                        log(f"{level}: {len(_join(units, level))} bytes")
                        break
                if not reduced:
                    if chunk == 1:
                        break
                    n = min(len(units), n * 2)
            current = _join(units, level)
    finally:
        worker.close()
    return current
