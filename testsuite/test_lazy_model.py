"""``s2s.model`` loads each public name on first use (PEP 562, issue 30's lean start): the
names are the classes of their home modules, and importing the package or a module that
needs only ``s2s.model.span`` (the diagnostics every command prints through) loads none of
the fact classes."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import s2s.model

REPO = Path(__file__).resolve().parents[1]


def test_every_public_name_is_its_home_module_s_object():
    assert sorted(s2s.model.__all__) == sorted(s2s.model.HOMES)
    for name, home in s2s.model.HOMES.items():
        module = importlib.import_module(f"s2s.model.{home}")
        assert getattr(s2s.model, name) is getattr(module, name)
    from s2s.model import Kernel, TranslationUnit, to_json  # the from-import form
    assert Kernel.__module__ == "s2s.model.cuda" and TranslationUnit.__name__ == "TranslationUnit"
    assert callable(to_json)


def test_an_unknown_name_is_an_attribute_error():
    try:
        s2s.model.NoSuchFact  # noqa: B018
    except AttributeError as error:
        assert "NoSuchFact" in str(error)
    else:
        raise AssertionError("s2s.model.NoSuchFact did not raise")


def test_the_diagnostics_load_no_fact_class():
    code = ("import sys, s2s.model, s2s.diagnostics\n"
            "print(sorted(m for m in sys.modules if m.startswith('s2s.model')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=120).stdout
    loaded = set(ast.literal_eval(out))
    assert {"s2s.model", "s2s.model.span"} <= loaded
    facts = {f"s2s.model.{home}" for home in ("access", "cuda", "host", "host_facts", "kernel_ir",
                                              "openmp", "unit")}
    assert not loaded & facts
