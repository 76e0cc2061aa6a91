"""The wrapper's settings: which passes to run, which compiler is the real nvcc, what to hide.

A build calls the wrapper hundreds of times with arguments it does not control, so the
settings come from three places besides the command line, the first found wins per key:

1. ``--s2s-passes=omp,transfers`` (and the other ``--s2s-*`` options) anywhere in the
   arguments; they are removed before the compiler sees them;
2. environment variables: ``S2S_PASSES``, ``S2S_REAL_NVCC``, ``S2S_SILENCE``, ``S2S_VERBOSE``,
   ``S2S_KEEP_TEMPS``;
3. the nearest configuration file up from the current directory: ``.s2s.toml`` (keys at the
   top level) or ``pyproject.toml`` with a ``[tool.s2s]`` table (a pyproject.toml without one
   is skipped); keys ``passes``, ``nvcc``, ``silence`` (the subcommands read more:
   :mod:`s2s.cli.settings`).

No passes are selected by default: a wrapper that changes programs nobody asked it to change
would be a surprise in a build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from s2s.user_files import decode_utf8, read_regular

CONFIG_NAMES = (".s2s.toml", "pyproject.toml")
#: keys the wrapper reads; the subcommands read these and more (s2s/cli/settings.py)
CONFIG_KEYS = ("passes", "nvcc", "silence")
#: every key a configuration file may hold (tables named after a subcommand aside)
ALL_CONFIG_KEYS = ("passes", "nvcc", "silence", "flags", "format", "cuda-path", "gpu-arch",
                   "nvcc-check")
#: the passes a configuration file may name
KNOWN_PASSES = ("omp", "transfers", "fuse", "mgpu")
#: the largest configuration file s2s reads (a pyproject.toml is a few KiB)
MAX_CONFIG_BYTES = 1024 * 1024
OPTION_PREFIX = "--s2s-"
#: ``--s2s-NAME[=VALUE]`` options: name -> takes a value
WRAPPER_OPTIONS = {"passes": True, "verbose": False, "keep-temps": False, "help": False}

WRAPPER_HELP = """\
usage: s2s nvcc [--s2s-OPTION ...] NVCC-ARGS...
       s2s [--s2s-OPTION ...] COMPILER COMPILER-ARGS...

Runs the selected s2s passes on the sources of a compile command, compiles rewritten copies
(with #line directives, so messages name your files) and gives back the same outputs as the
plain compiler. Anything it cannot handle compiles the original command with one warning.

wrapper options (removed before the compiler sees them):
  --s2s-passes=LIST   passes to run, e.g. omp or transfers,fuse (none by default)
  --s2s-verbose       say what the wrapper does on stderr
  --s2s-keep-temps    keep the rewritten copies
  --s2s-help          this text (nvcc's own help: s2s nvcc --help)

environment: S2S_PASSES, S2S_REAL_NVCC, S2S_SILENCE, S2S_VERBOSE, S2S_KEEP_TEMPS.
configuration: the nearest .s2s.toml or pyproject.toml [tool.s2s] up from the current
directory; keys passes, nvcc, silence. The command line wins, then the environment.
"""


class ConfigProblem(Exception):
    """A setting that cannot be used; the wrapper falls back and says this one line."""


@dataclass(frozen=True)
class Settings:
    passes: tuple[str, ...] = ()
    passes_from: str = "default"  # where the pass list came from, for --s2s-verbose
    real_nvcc: str | None = None
    silence: tuple[str, ...] = ()
    verbose: bool = False
    keep_temps: bool = False
    config_file: str | None = None
    warnings: tuple[str, ...] = field(default=())  # settings ignored, said once per run


def split_wrapper_options(argv: list[str]) -> tuple[dict[str, str | bool], list[str]]:
    """Take the ``--s2s-*`` options out of ``argv`` (the compiler never sees them).

    Raises ConfigProblem for an unknown ``--s2s-`` option or a missing value.
    """
    options: dict[str, str | bool] = {}
    rest: list[str] = []
    for arg in argv:
        if not arg.startswith(OPTION_PREFIX):
            rest.append(arg)
            continue
        name, has_value, value = arg[len(OPTION_PREFIX):].partition("=")
        if name not in WRAPPER_OPTIONS:
            raise ConfigProblem(f"unknown wrapper option '{arg}' (known: "
                                + ", ".join(OPTION_PREFIX + n for n in WRAPPER_OPTIONS) + ")")
        if WRAPPER_OPTIONS[name] and not has_value:
            raise ConfigProblem(f"'{arg}' needs a value: {OPTION_PREFIX}{name}=...")
        options[name] = value if WRAPPER_OPTIONS[name] else True
    return options, rest


def without_wrapper_options(argv: list[str]) -> list[str]:
    """``argv`` minus anything spelled like a wrapper option (for the fallback command)."""
    return [arg for arg in argv if not arg.startswith(OPTION_PREFIX)]


def parse_pass_list(value: str | list | tuple, what: str = "pass names") -> tuple[str, ...]:
    """``"omp, transfers"`` or ``["omp", "transfers"]`` -> ('omp', 'transfers'); ``none``,
    ``off`` or empty -> ()."""
    names = string_list(value, what)
    return () if names in (("none",), ("off",)) else names


def known_pass_list(value: str | list | tuple, what: str) -> tuple[str, ...]:
    """:func:`parse_pass_list`, and ConfigProblem naming every pass s2s does not have."""
    names = parse_pass_list(value, what)
    unknown = [name for name in names if name not in KNOWN_PASSES]
    if unknown:
        raise ConfigProblem(f"{what} names unknown pass{'es' if len(unknown) > 1 else ''} "
                            + ", ".join(f"'{n}'" for n in unknown)
                            + f" (s2s has {', '.join(KNOWN_PASSES)})")
    return names


def string_list(value: str | list | tuple, what: str) -> tuple[str, ...]:
    """A comma-separated string or a TOML list of strings, stripped, without repeats."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ConfigProblem(f"{what} must be a list or a comma-separated string, not {value!r}")
    names: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ConfigProblem(f"{what} must be strings, not {item!r}")
        name = item.strip()
        if name and name not in names:
            names.append(name)
    return tuple(names)


def find_config_file(start: Path) -> tuple[Path, dict] | None:
    """The nearest ``.s2s.toml``, or ``pyproject.toml`` with ``[tool.s2s]``, at or above
    ``start``, with its s2s table. Raises ConfigProblem for a file that is not valid TOML."""
    for directory in (start, *start.parents):
        for name in CONFIG_NAMES:
            path = directory / name
            if not path.is_file():
                continue
            data = _read_toml(path)
            if name == ".s2s.toml":
                return path, data
            tool = data.get("tool", {})
            table = tool.get("s2s") if isinstance(tool, dict) else None
            if isinstance(table, dict):
                return path, table
            if table is not None:
                raise ConfigProblem(f"{path}: 'tool.s2s' must be a table ([tool.s2s]), not "
                                    f"{table!r}")
    return None


def _read_toml(path: Path) -> dict:
    """The TOML document of ``path``: a regular file of at most :data:`MAX_CONFIG_BYTES`,
    UTF-8 (TOML's only encoding); ConfigProblem names the file for anything else (another
    encoding, a syntax error, nesting too deep to read)."""
    try:
        text = decode_utf8(read_regular(str(path), MAX_CONFIG_BYTES), str(path))
    except OSError as error:
        raise ConfigProblem(f"{path}: cannot read it: {error.strerror or error}") from None
    except UnicodeError as error:
        raise ConfigProblem(str(error)) from None
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as error:
        raise ConfigProblem(f"{path}: not a valid TOML file: {error}") from None
    except RecursionError:
        raise ConfigProblem(f"{path}: not a valid TOML file: nested too deeply") from None


def load_settings(options: dict[str, str | bool], environ: dict[str, str],
                  cwd: Path) -> Settings:
    """Settings from the command-line options, the environment and the config file.

    Raises ConfigProblem when a setting that was given cannot be used.
    """
    found = find_config_file(cwd)
    config_path, table = (str(found[0]), found[1]) if found else (None, {})
    warnings = [f"{config_path}: unknown key '{key}' ignored (known: {', '.join(ALL_CONFIG_KEYS)})"
                for key, value in table.items()
                if key not in ALL_CONFIG_KEYS and not isinstance(value, dict)]
    if "passes" in options:
        passes, source = parse_pass_list(str(options["passes"])), "--s2s-passes"
    elif "S2S_PASSES" in environ:
        passes, source = parse_pass_list(environ["S2S_PASSES"]), "S2S_PASSES"
    elif "passes" in table:
        passes, source = parse_pass_list(table["passes"]), str(config_path)
    else:
        passes, source = (), "default"
    real_nvcc = environ.get("S2S_REAL_NVCC") or _config_string(table, "nvcc", config_path)
    silence = string_list(environ.get("S2S_SILENCE", ""), "S2S_SILENCE")
    silence += string_list(table.get("silence", ()), f"{config_path}: 'silence'")
    return Settings(passes=passes, passes_from=source, real_nvcc=real_nvcc, silence=silence,
                    verbose=bool(options.get("verbose")) or _env_flag(environ, "S2S_VERBOSE"),
                    keep_temps=bool(options.get("keep-temps"))
                    or _env_flag(environ, "S2S_KEEP_TEMPS"),
                    config_file=config_path, warnings=tuple(warnings))


def _config_string(table: dict, key: str, path: str | None) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigProblem(f"{path}: '{key}' must be a non-empty string, not {value!r}")
    # A relative compiler path in a config file is relative to that file's directory.
    if os.sep in value and not os.path.isabs(value) and path is not None:
        return str(Path(path).parent / value)
    return value


def _env_flag(environ: dict[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() not in ("", "0", "no", "false", "off")
