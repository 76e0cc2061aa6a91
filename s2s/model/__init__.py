"""Frozen data passed between the stages of s2s (front end -> analyses -> transforms).

The names below are loaded on first use (PEP 562), not when the package is: a module that needs
only ``s2s.model.span`` (the diagnostics every command prints through) must not pay for the
dataclasses of every kind of fact, about a tenth of a second of each run's start
(docs/benchmarks.md, "Start-up")."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from s2s.model.access import ArrayRef, PointerCopy
    from s2s.model.cuda import ApiCall, BuiltinUse, DeviceCall, Kernel, Launch, Param, SharedArray
    from s2s.model.host import CallSite, ClassFact, HostAllocation, HostFunction, Stmt
    from s2s.model.openmp import ArraySection, ListItem, MapClause, OmpClause, OmpDirective
    from s2s.model.serialize import to_json
    from s2s.model.span import Expr, SourceSpan
    from s2s.model.unit import TranslationUnit

#: each public name -> the module of the package that defines it
HOMES = {
    "ArrayRef": "access", "PointerCopy": "access",
    "ApiCall": "cuda", "BuiltinUse": "cuda", "DeviceCall": "cuda", "Kernel": "cuda", "Launch": "cuda",
    "Param": "cuda", "SharedArray": "cuda",
    "CallSite": "host", "ClassFact": "host", "HostAllocation": "host", "HostFunction": "host",
    "Stmt": "host",
    "ArraySection": "openmp", "ListItem": "openmp", "MapClause": "openmp", "OmpClause": "openmp",
    "OmpDirective": "openmp",
    "to_json": "serialize",
    "Expr": "span", "SourceSpan": "span",
    "TranslationUnit": "unit",
}


def __getattr__(name: str):
    """``s2s.model.Kernel`` (and ``from s2s.model import Kernel``): the name from its module,
    imported now and kept in the package's namespace."""
    home = HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 's2s.model' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"s2s.model.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "ApiCall",
    "ArrayRef",
    "ArraySection",
    "BuiltinUse",
    "CallSite",
    "ClassFact",
    "DeviceCall",
    "Expr",
    "HostAllocation",
    "HostFunction",
    "Kernel",
    "Launch",
    "ListItem",
    "MapClause",
    "OmpClause",
    "OmpDirective",
    "Param",
    "PointerCopy",
    "SharedArray",
    "SourceSpan",
    "Stmt",
    "TranslationUnit",
    "to_json",
]
