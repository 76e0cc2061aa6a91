"""The model's pickles, written without dataclasses' per-object field walk (the fact cache).

A slotted frozen dataclass pickles through the ``__getstate__`` that ``dataclasses`` gives it,
which calls ``dataclasses.fields()`` for every object, and unpickles through its
``__setstate__``, which does the same again. The model of a 1 MB CUDA file is about 520,000
such objects: its fact-cache entry took 2.5 s of CPU to write and 3.0 s to read
(docs/benchmarks.md, "Fact-cache pickles"). :func:`dumps` writes the same objects with a
reducer per class, made once per class from its fields:

* a class whose ``__init__`` is the one ``dataclasses`` generated, whose fields are all its
  positional parameters and that has no ``__post_init__`` is rebuilt by calling it with its field values (the generated
  ``__init__``, no per-object ``fields()``);
* any other slotted dataclass gets the state its own ``__getstate__`` gives (the field values
  in ``fields()`` order), read by one ``attrgetter``, and is rebuilt as before (``__new__``,
  then its ``__setstate__``);
* every other object pickles as ``pickle`` would pickle it.

What is read back is equal to what was written, field for field (the same classes and
values); any reader that accepts the model's classes reads it (nothing but the classes is
named in the stream).
"""

from __future__ import annotations

import copyreg
import dataclasses
import io
import operator
import pickle


class _Reducers(dict):
    """type -> reducer, filled on first sight of a type (a miss is a ``KeyError``: the
    pickler then does what it always does)."""

    def __init__(self):
        super().__init__()
        self.plain: set[type] = set()       # types pickled as pickle pickles them

    def __missing__(self, cls: type):
        state = getattr(cls, "__getstate__", None)
        if cls in self.plain or getattr(state, "__qualname__", "") != "_dataclass_getstate":
            self.plain.add(cls)
            raise KeyError(cls)             # (not a slotted dataclass)
        fields = dataclasses.fields(cls)
        names = tuple(f.name for f in fields)
        if len(names) == 1:
            name = names[0]

            def values(obj):
                return (getattr(obj, name),)
        else:
            values = operator.attrgetter(*names)
        if not _generated_init(cls) or hasattr(cls, "__post_init__") or \
                not all(f.init and not f.kw_only for f in fields):
            new = copyreg.__newobj__

            def reduce(obj):
                return new, (cls,), values(obj)
        else:
            def reduce(obj):
                return cls, values(obj)
        self[cls] = reduce
        return reduce


def _generated_init(cls: type) -> bool:
    """Whether ``cls.__init__`` is the one ``dataclasses`` wrote (it compiles its methods from
    text: their code comes from ``<string>``), not one of the class's own."""
    code = getattr(cls.__init__, "__code__", None)
    return code is not None and code.co_filename == "<string>"


_REDUCERS = _Reducers()


def dumps(value) -> bytes:
    """``pickle.dumps(value, pickle.HIGHEST_PROTOCOL)``, slotted dataclasses written by the
    reducers above."""
    stream = io.BytesIO()
    pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _REDUCERS
    pickler.dump(value)
    return stream.getvalue()
