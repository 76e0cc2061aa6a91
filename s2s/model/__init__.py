"""Frozen data passed between the stages of s2s (front end -> analyses -> transforms)."""

from s2s.model.access import ArrayRef, PointerCopy
from s2s.model.cuda import ApiCall, BuiltinUse, DeviceCall, Kernel, Launch, Param, SharedArray
from s2s.model.host import CallSite, ClassFact, HostAllocation, HostFunction, Stmt
from s2s.model.openmp import ArraySection, ListItem, MapClause, OmpClause, OmpDirective
from s2s.model.serialize import to_json
from s2s.model.span import Expr, SourceSpan
from s2s.model.unit import TranslationUnit

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

from s2s.model import fast_pickle  # noqa: E402 - after every model class it speeds up

fast_pickle.install()
