"""Issue 32 item 8: caches are not trusted as found.

A verdict of the nvcc check decides whether a rewrite is emitted, a compiled kernel module is
loaded into the process: an entry is used only when it is the user's own, writable by no one
else, and (for the verdict) stores the hash of the inputs it was computed from. A relative
XDG_CACHE_HOME is ignored, as the XDG specification says.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from runtime import cache_trust
from runtime.cpu import compiler
from runtime.cpu.source import prepare
from s2s.transform import nvcc_check

NOBODY = 65534


@pytest.fixture
def check_cache(tmp_path, monkeypatch):
    """nvcc_errors with a counting stand-in for the 2.5 s compile: it finds one error."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(nvcc_check, "nvcc_version", lambda nvcc: "nvcc 13.0 (test)")
    compiles = []

    def compile_(data, flags, directories, arch, nvcc, beside=()):
        compiles.append(data)
        return [(3, "identifier \"x\" is undefined")]

    monkeypatch.setattr(nvcc_check, "_compile", compile_)
    return compiles


def _verdict(tmp_path):
    return nvcc_check.nvcc_errors(b"int y = x;\n", str(tmp_path / "k.cu"), (), "sm_90", "nvcc")


def _only_entry() -> Path:
    entries = list(nvcc_check.cache_dir().glob("*.json"))
    assert len(entries) == 1
    return entries[0]


def test_a_stored_verdict_is_reused(tmp_path, check_cache):
    first, second = _verdict(tmp_path), _verdict(tmp_path)
    assert first == second and len(first) == 1 and len(check_cache) == 1
    stored = json.loads(_only_entry().read_text())
    assert stored["inputs"] == _only_entry().stem        # the hash of the inputs, kept with it
    assert not _only_entry().stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@pytest.mark.parametrize("planted", [
    [],                                                  # "it compiles", the old format
    {"inputs": "0" * 64, "errors": []},                  # a verdict of other inputs
    {"errors": []},
])
def test_a_planted_passing_verdict_is_checked_again(tmp_path, check_cache, planted):
    _verdict(tmp_path)
    entry = _only_entry()
    entry.write_text(json.dumps(planted))
    assert len(_verdict(tmp_path)) == 1                  # the error is found again
    assert len(check_cache) == 2


def test_a_verdict_others_may_write_is_ignored(tmp_path, check_cache):
    _verdict(tmp_path)
    entry = _only_entry()
    stored = json.loads(entry.read_text())
    entry.write_text(json.dumps({"inputs": stored["inputs"], "errors": []}))
    os.chmod(entry, 0o666)
    assert len(_verdict(tmp_path)) == 1 and len(check_cache) == 2


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_verdict_owned_by_another_user_is_ignored(tmp_path, check_cache):
    _verdict(tmp_path)
    entry = _only_entry()
    stored = json.loads(entry.read_text())
    entry.write_text(json.dumps({"inputs": stored["inputs"], "errors": []}))
    os.chown(entry, NOBODY, NOBODY)
    assert len(_verdict(tmp_path)) == 1 and len(check_cache) == 2


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert nvcc_check.cache_dir() == tmp_path / ".cache" / "s2s" / "nvcc-check"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "abs"))
    assert nvcc_check.cache_dir() == tmp_path / "abs" / "s2s" / "nvcc-check"


def test_usable_entries(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    entry = folder / "k.so"
    entry.write_bytes(b"x")
    os.chmod(entry, 0o644)
    assert cache_trust.usable(entry)
    os.chmod(entry, 0o664)
    assert not cache_trust.usable(entry)                  # the group may write it
    os.chmod(entry, 0o644)
    os.chmod(folder, 0o777)
    assert not cache_trust.usable(entry)                  # anyone may swap it
    os.chmod(folder, 0o755)
    link = folder / "link.so"
    link.symlink_to(entry)
    assert not cache_trust.usable(link)
    assert not cache_trust.usable(folder / "missing.so")


KERNEL = "__global__ void add_one(float *a, int n) { int i = threadIdx.x; if (i < n) a[i] += 1; }\n"


def test_a_compiled_kernel_others_may_write_is_rebuilt_not_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_CPU_CACHE", str(tmp_path / "rt"))
    source = prepare(KERNEL, "k.cu")
    built = compiler.compile_module(source)
    assert compiler.compile_module(source).cached
    os.chmod(built.path, 0o666)
    again = compiler.compile_module(source)
    assert not again.cached                               # built anew, not loaded as found
    assert not os.stat(again.path).st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def test_a_shared_cache_folder_is_replaced_by_a_private_one(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("S2S_CPU_CACHE", str(shared))
    used = compiler.cache_dir()
    assert used != shared and not used.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    assert "may be written by others" in capsys.readouterr().err
