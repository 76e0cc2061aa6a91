"""Mutation fuzzing of every ``s2s`` subcommand on damaged copies of the bundled samples.

One seed is one reproducible case: ``random.Random(seed)`` picks a sample file and one to three
mutations (deleted and duplicated tokens, unbalanced brackets, random bytes, deep nesting, huge
lines, truncation, swapped lines, CR/CRLF line ends, non-UTF-8 bytes, NUL bytes, preprocessor
damage, damaged ``#pragma omp`` lines in OpenMP files and damaged ``<<<...>>>`` launches in CUDA
files) or changes that mostly keep the program valid, so the analyses and rewrites run on it
(statements deleted, duplicated, swapped, moved, wrapped in ``if``/``for``/``do``, a ``goto``;
operators, numbers and nearby array or index names swapped; ``#pragma omp`` map types, clauses,
sections and directives changed, ``target update``/``target data``/unpaired ``enter data``
inserted; CUDA copy kinds and arguments, launch configurations, duplicated or dropped calls,
``__syncthreads``, early returns, pointer aliases), then every subcommand runs on the mutant:

* ``inspect`` (sometimes ``--format json``, sometimes ``--access``), and ``omp``,
  ``transfers``, ``fuse``, ``mgpu`` with ``--diff``;
* ``--check`` of one rewriting subcommand (its exit status must agree with the diff);
* ``--in-place`` of one rewriting subcommand on a copy of the sample's files (only that copy may
  change, it must equal the diff applied to the mutant, and a second run must change nothing),
  sometimes with ``--backup`` and with ``-o DIR`` alongside;
* ``verify`` on a small fraction of the cases (it builds and runs programs).

and the invariants are checked (:func:`check_run` and friends): no Python traceback in any
output, exit status 0 or 1 (2 only with a usage diagnostic), no internal-error or edit-conflict
diagnostic, input files unchanged (hashed before and after every run), no ``.s2s-*.tmp``
leftovers, every stderr line that names a location of the form
``file:line:col: error|warning|note: message [id]`` with a line inside the file, JSON output
that parses, diffs that apply to the mutant exactly.

Runs are in-process (``s2s.cli.main.main(argv)`` with ``sys.stdout``/``sys.stderr`` and file
descriptors 1 and 2 captured) inside worker processes (``python -m s2s.verify.fuzz worker``),
so a segfault of libclang kills only the worker (reported as ``crash`` with the step it was
in) and a case over its limit is reported as ``hang`` (the worker's process group is
killed): a limit of CPU seconds of the worker and its children, or no progress at all,
never wall time alone (a loaded machine slows bounded work; ``pool.Watchdog``). A fraction of
the cases (``subprocess_rate``, or ``force_subprocess``) runs every
step as a real ``python -m s2s`` process instead, as users run it.

:func:`known_defect` names the failures of the defects that are being fixed elsewhere (deep
parenthesis nesting crashing libclang, deeply nested blocks raising RecursionError); every
other failure is new. :func:`minimise` shrinks a failing mutant (delta debugging over lines,
then tokens, then bytes) while the same failure signature persists.

Standard library only (and s2s itself, in the workers).

The package's modules, in the order they import each other: :mod:`.corpus` (samples, seeds),
:mod:`.mutate_bytes` and :mod:`.mutate_code` (the mutations), :mod:`.cases` (a seed's case,
running s2s), :mod:`.checks` (the invariants), :mod:`.steps` (one case end to end),
:mod:`.pool` (workers, limits, the worker's entry point), :mod:`.minimise`. The names a user
of the fuzzer needs are imported here.
"""

from __future__ import annotations

from s2s.verify.fuzz.cases import (  # noqa: F401
    MUTATORS,
    Case,
    CaseOptions,
    RunOutput,
    make_case,
    mutate,
    run_inprocess,
    run_subprocess,
)
from s2s.verify.fuzz.checks import (  # noqa: F401
    CARET,
    EXIT_2_IDS,
    HEADLINE,
    NAMES_LOCATION,
    PY_WARNING,
    TRACEBACK,
    Failure,
    apply_unified_diff,
    check_diagnostics,
    check_run,
    last_line,
    signal_name,
    strip_location,
    tail,
)
from s2s.verify.fuzz.corpus import (  # noqa: F401
    COMMANDS,
    DEFAULT_CASE_TIMEOUT,
    DEFAULT_NVCC_RATE,
    DEFAULT_SUBPROCESS_RATE,
    DEFAULT_TOOLKIT_RATE,
    DEFAULT_VERIFY_RATE,
    FRESH_SEED_BASE,
    FRESH_SEED_SPAN,
    HEADER_SUFFIXES,
    REPO_ROOT,
    REWRITE_COMMANDS,
    RUNTIME_INCLUDE,
    SAMPLES_ROOT,
    SOURCE_SUFFIXES,
    SampleFile,
    commit_seed_start,
    companions,
    corpus,
)
from s2s.verify.fuzz.minimise import (  # noqa: F401
    minimise,
)
from s2s.verify.fuzz.mutate_bytes import (  # noqa: F401
    Mutant,
    m_deep_nesting,
    m_delete_tokens,
    m_duplicate_tokens,
    m_encoding,
    m_huge_line,
    m_line_ends,
    m_nul_bytes,
    m_preprocessor,
    m_random_bytes,
    m_swap_lines,
    m_truncate,
    m_unbalance,
    split_lines,
    token_spans,
)
from s2s.verify.fuzz.mutate_code import (  # noqa: F401
    PRAGMA_LINE,
    m_cuda_valid,
    m_launch,
    m_operators,
    m_pragma,
    m_pragma_valid,
    m_statements,
)
from s2s.verify.fuzz.pool import (  # noqa: F401
    FuzzConfig,
    Pool,
    Watchdog,
    Worker,
    execute,
    fuzz,
    main,
    tree_cpu_seconds,
    worker_main,
)
from s2s.verify.fuzz.steps import (  # noqa: F401
    KNOWN_BLOCKS_DEPTH,
    KNOWN_PARENS_DEPTH,
    CaseResult,
    known_defect,
    run_case,
)
