"""The configuration file for every subcommand: ``.s2s.toml`` or ``[tool.s2s]`` in
``pyproject.toml``, the nearest one at or above the input files (as black finds its
configuration: from the files' common directory, else the current directory, upwards).

Keys (all optional; a table named after a subcommand, ``[omp]`` or ``[tool.s2s.omp]``, holds
the same keys for that subcommand and wins over the top level):

* ``silence``: warning-id patterns to hide (added to ``--silence`` and ``S2S_SILENCE``);
* ``flags``: parser flags put before those after ``--`` (``["-DN=64", "-Iinclude"]``);
* ``format``: ``text``, ``json`` or ``sarif`` when ``--format`` is not given;
* ``passes``: the passes of ``s2s verify`` (and of the wrapper) when ``--passes`` is not given;
* ``cuda-path``, ``gpu-arch``: as the options of the same name;
* ``nvcc``: the real nvcc of the wrapper (:mod:`s2s.wrapper.config`);
* ``nvcc-check``: false to check CUDA rewrites with the libclang parse only, not ``nvcc -c``.

The command line wins over the file. A value of the wrong type is a usage error (exit 2) that
names the file; an unknown key is a warning (``config-unknown-key``).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from s2s.diagnostics import Diagnostic, UsageError
from s2s.frontend.core.parse import DEFAULT_GPU_ARCH
from s2s.wrapper.config import (
    ALL_CONFIG_KEYS,
    ConfigProblem,
    find_config_file,
    known_pass_list,
    string_list,
)

FORMATS = ("text", "json", "sarif")


@dataclass(frozen=True)
class Config:
    """The settings of one subcommand from its configuration file."""

    path: str | None = None
    silence: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    format: str | None = None
    passes: tuple[str, ...] | None = None
    cuda_path: str | None = None
    gpu_arch: str | None = None
    nvcc_check: bool | None = None
    warnings: tuple[Diagnostic, ...] = ()


def config_start(files: list[str]) -> Path:
    """Where the search starts: the input files' common directory, else the current one."""
    if not files:
        return Path.cwd()
    directories = [os.path.dirname(os.path.abspath(f)) for f in files]
    try:
        return Path(os.path.commonpath(directories))
    except ValueError:            # different drives: no common directory
        return Path.cwd()


def load_config(command: str, start: Path) -> Config:
    """The configuration of ``command`` found from ``start`` (empty when there is none)."""
    try:
        found = find_config_file(start)
    except ConfigProblem as problem:
        raise UsageError(str(problem), id="config-invalid") from None
    if found is None:
        return Config()
    path, table = str(found[0]), found[1]
    merged = {k: v for k, v in table.items() if not isinstance(v, dict)}
    section = table.get(command)
    if isinstance(section, dict):
        merged.update(section)
    warnings = tuple(Diagnostic.warning(
        f"{path}: unknown key '{key}' ignored (known: {', '.join(ALL_CONFIG_KEYS)})",
        "config-unknown-key") for key in merged if key not in ALL_CONFIG_KEYS)
    try:
        return Config(
            path=path,
            silence=string_list(merged.get("silence", ()), f"{path}: 'silence'"),
            flags=string_list(merged.get("flags", ()), f"{path}: 'flags'"),
            format=_choice(merged, "format", FORMATS, path),
            passes=known_pass_list(merged["passes"], f"{path}: 'passes'")
            if "passes" in merged else None,
            cuda_path=_string(merged, "cuda-path", path),
            gpu_arch=_string(merged, "gpu-arch", path),
            nvcc_check=_boolean(merged, "nvcc-check", path),
            warnings=warnings)
    except ConfigProblem as problem:
        raise UsageError(str(problem), id="config-invalid") from None


def _string(table: dict, key: str, path: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigProblem(f"{path}: '{key}' must be a non-empty string, not {value!r}")
    return value


def _boolean(table: dict, key: str, path: str) -> bool | None:
    value = table.get(key)
    if value is not None and not isinstance(value, bool):
        raise ConfigProblem(f"{path}: '{key}' must be true or false, not {value!r}")
    return value


def _choice(table: dict, key: str, choices: tuple[str, ...], path: str) -> str | None:
    value = _string(table, key, path)
    if value is not None and value not in choices:
        raise ConfigProblem(f"{path}: '{key}' must be one of {', '.join(choices)}, not {value!r}")
    return value


def apply_config(args: argparse.Namespace, config: Config, extra_flags: tuple[str, ...],
                 formats: tuple[str, ...]) -> tuple[str, ...]:
    """Fill what the command line left open from ``config``; return the parser flags."""
    if getattr(args, "format", "text") is None:
        chosen = (config.format or "text") if formats else "text"   # report: a page
        if formats and chosen not in formats:
            raise UsageError(f"{config.path}: format '{chosen}' is not one s2s {args.command} "
                             f"writes (it writes {', '.join(formats)}); set it in a "
                             f"[{args.command}] table", id="config-invalid")
        args.format = chosen
    if hasattr(args, "silence"):
        args.silence = list(args.silence) + list(config.silence)
    if getattr(args, "cuda_path", False) is None and config.cuda_path:
        args.cuda_path = config.cuda_path
    if hasattr(args, "gpu_arch") and args.gpu_arch is None:
        args.gpu_arch = config.gpu_arch or DEFAULT_GPU_ARCH
    if hasattr(args, "nvcc_check") and args.nvcc_check is None:
        args.nvcc_check = True if config.nvcc_check is None else config.nvcc_check
    if getattr(args, "passes", False) is None and config.passes is not None:
        args.passes = ",".join(config.passes) or "none"
    return config.flags + extra_flags

