"""Pickling of the model's slotted dataclasses without ``dataclasses.fields`` per object.

A frozen dataclass with ``slots=True`` pickles through the ``__getstate__`` and
``__setstate__`` that :mod:`dataclasses` gives it, and both call ``fields(self)`` for every
object: most of the time the fact cache spends writing and reading a model (issue 30: 0.9 s
to pickle the 11 models of the 50,000-line program, 70% of it in ``fields``). Each class gets
the same two functions with its field names looked up once: the same state (a list of the
field values in field order), so the pickled bytes are the same and entries written before
read back alike.
"""

from __future__ import annotations

import dataclasses
import operator
import sys

#: the functions dataclasses installs (a class that defines its own keeps them)
_DEFAULT_GET = getattr(dataclasses, "_dataclass_getstate", None)
_DEFAULT_SET = getattr(dataclasses, "_dataclass_setstate", None)


def install(prefix: str = "s2s.model.") -> None:
    """Faster ``__getstate__``/``__setstate__`` on every slotted dataclass of the modules
    under ``prefix`` imported so far (a class imported later keeps dataclasses' own)."""
    if _DEFAULT_GET is None or _DEFAULT_SET is None:
        return
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix) and module is not None:
            for cls in list(vars(module).values()):
                if isinstance(cls, type) and cls.__module__ == name:
                    _speed_up(cls)


def _speed_up(cls: type) -> None:
    if not dataclasses.is_dataclass(cls) or cls.__dict__.get("__getstate__") is not _DEFAULT_GET \
            or cls.__dict__.get("__setstate__") is not _DEFAULT_SET:
        return
    names = tuple(f.name for f in dataclasses.fields(cls))
    if not names:
        return
    getter = operator.attrgetter(*names) if len(names) > 1 else None

    def __getstate__(self, _get=getter, _name=names[0]):
        return list(_get(self)) if _get is not None else [getattr(self, _name)]

    def __setstate__(self, state, _names=names, _set=object.__setattr__):
        for field, value in zip(_names, state, strict=False):   # (as dataclasses: a shorter state)
            _set(self, field, value)

    cls.__getstate__ = __getstate__
    cls.__setstate__ = __setstate__
