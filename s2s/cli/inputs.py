"""Input paths as black and ruff take them: files, directories searched recursively for C,
C++ and CUDA sources, ``--exclude`` globs, ``.gitignore`` respected, and ``-`` for stdin.

A file named on the command line is always taken (as black takes an excluded file named
explicitly); only what a directory search finds is filtered. Headers are not collected from
directories: they are analysed with the sources that include them.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

from s2s.diagnostics import UsageError

#: what a directory search collects (headers come in through their includers)
SOURCE_EXTENSIONS = frozenset((".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cu"))
#: directories never searched: version control, environments, CMake's own probes
SKIPPED_DIRECTORIES = frozenset((".git", ".hg", ".svn", ".venv", "venv", "node_modules",
                                 "__pycache__", ".tox", "CMakeFiles"))
STDIN = "-"


@dataclass(frozen=True)
class _Rule:
    """One line of a .gitignore: a compiled pattern, relative to the file's directory."""

    regex: re.Pattern
    negated: bool
    directory_only: bool


@dataclass
class GitIgnore:
    """The .gitignore files that apply below a directory (those above it up to the work tree's
    root, then each directory's own as the search descends), matched as git matches them for
    the common patterns: ``#`` comments, ``!`` negation, a trailing ``/`` for directories, a
    leading or inner ``/`` anchoring to the file's directory, ``*``, ``?``, ``[...]`` and
    ``**``. The last matching rule wins; a file inside an ignored directory is never seen."""

    rules: dict[str, tuple[_Rule, ...]] = field(default_factory=dict)

    def load(self, directory: str) -> None:
        if directory in self.rules:
            return
        try:
            with open(os.path.join(directory, ".gitignore"), encoding="utf-8",
                      errors="replace") as handle:
                self.rules[directory] = tuple(filter(None, map(_rule, handle.read().splitlines())))
        except OSError:
            self.rules[directory] = ()

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether ``path`` (absolute) is ignored by the rules of the directories above it."""
        verdict = False
        for directory, rules in self.rules.items():
            relative = os.path.relpath(path, directory)
            if relative.startswith(".."):
                continue
            relative = relative.replace(os.sep, "/")
            for rule in rules:
                if rule.directory_only and not is_dir:
                    continue
                if rule.regex.fullmatch(relative):
                    verdict = not rule.negated
        return verdict


def _rule(line: str) -> _Rule | None:
    line = line.rstrip("\r")
    if not line.strip() or line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip(" ")
    negated = line.startswith("!")
    if negated or line.startswith("\\"):
        line = line[1:]
    directory_only = line.endswith("/")
    line = line.rstrip("/")
    anchored = "/" in line
    line = line.lstrip("/")
    if not line:
        return None
    body = _glob_regex(line)
    regex = body if anchored else f"(?:.*/)?{body}"
    return _Rule(re.compile(regex, re.DOTALL), negated, directory_only)


def _glob_regex(pattern: str) -> str:
    """A gitignore glob as a regex over '/'-separated relative paths."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            inner = pattern[i + 1:end]
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            out.append("[" + inner.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            if pattern[i] == "\\" and i + 1 < len(pattern):
                i += 1
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def _work_tree_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` that holds ``.git``."""
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _excluded(relative: str, patterns: tuple[str, ...]) -> bool:
    """``--exclude`` globs match the path below the searched directory or any of its parts."""
    parts = relative.split("/")
    return any(fnmatch.fnmatchcase(relative, p) or any(fnmatch.fnmatchcase(part, p)
                                                        for part in parts)
               for p in patterns)


@dataclass(frozen=True)
class _Search:
    """One directory search: its top, the --exclude globs and the .gitignore rules (None:
    not respected)."""

    top: str
    exclude: tuple[str, ...]
    ignore: GitIgnore | None

    def keeps(self, directory: str, name: str, is_dir: bool) -> bool:
        full = os.path.join(directory, name)
        relative = os.path.relpath(full, self.top).replace(os.sep, "/")
        if _excluded(relative, self.exclude):
            return False
        return self.ignore is None or not self.ignore.ignored(full, is_dir)


def _ignore_from_above(top: str) -> GitIgnore:
    """The .gitignore files from the work tree's root down to ``top`` (none outside one)."""
    ignore = GitIgnore()
    root, chain, current = _work_tree_root(top), [], top
    while root is not None:
        chain.append(current)
        if current == root:
            break
        current = os.path.dirname(current)
    for directory in reversed(chain):
        ignore.load(directory)
    return ignore


def search_directory(top: str, exclude: tuple[str, ...] = (),
                     respect_gitignore: bool = True) -> list[str]:
    """The C, C++ and CUDA sources below ``top``, sorted, as paths that start with ``top``."""
    absolute_top = os.path.abspath(top)
    search = _Search(absolute_top, exclude,
                     _ignore_from_above(absolute_top) if respect_gitignore else None)
    found = []
    for directory, subdirectories, files in os.walk(absolute_top):
        if search.ignore is not None:
            search.ignore.load(directory)
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRECTORIES
                                   and search.keeps(directory, d, True))
        found += [os.path.join(directory, name) for name in sorted(files)
                  if os.path.splitext(name)[1] in SOURCE_EXTENSIONS
                  and search.keeps(directory, name, False)]
    return [os.path.normpath(os.path.join(top, os.path.relpath(f, absolute_top))) for f in found]


def expand_inputs(paths: list[str], exclude: tuple[str, ...] = (),
                  respect_gitignore: bool = True) -> list[str]:
    """``paths`` with each directory replaced by the sources found below it (each file once,
    in the order given). A directory holding no source is a usage error: a mistyped path
    must not pass as 'nothing to do'."""
    out: list[str] = []
    for path in paths:
        if path != STDIN and os.path.isdir(path):
            found = search_directory(path, exclude, respect_gitignore)
            if not found:
                raise UsageError(f"{path}: no C, C++ or CUDA source files in this directory "
                                 f"(searched for {', '.join(sorted(SOURCE_EXTENSIONS))}"
                                 + (", after --exclude and .gitignore" if exclude or
                                    respect_gitignore else "") + ")")
            out.extend(found)
        else:
            out.append(path)
    return list(dict.fromkeys(out))
