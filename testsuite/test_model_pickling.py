"""The fact cache's pickles of the model (s2s.model.pickling, issue 30): what is read back is
the model that was written, for real models of both languages and for every kind of
slotted dataclass (rebuilt by its generated ``__init__``, or by ``__new__`` and its own
``__setstate__`` where the ``__init__`` would not take its fields back)."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
import pickletools
from pathlib import Path

import pytest

from s2s.frontend import fact_cache
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.model import pickling

REPO = Path(__file__).resolve().parents[1]


def _through_the_cache(value):
    """``value`` written to the fact cache and read back as the cache reads an entry (only
    the model's classes are built)."""
    key = hashlib.sha256(repr(type(value)).encode()).hexdigest()
    fact_cache.write_entry(key, value, [], ())
    return fact_cache.read_entry(key, type(value))


@pytest.mark.parametrize("sample", ["cuda/atax/atax.cu", "openmp/backprop_layer/backprop_layer.c"])
def test_a_real_model_reads_back_equal(sample, fact_cache_on):
    loaded = load(str(REPO / "samples" / sample), ParseOptions())
    assert loaded.model is not None
    back = _through_the_cache(loaded.model)
    assert back == loaded.model == pickle.loads(pickle.dumps(loaded.model))
    assert type(back) is type(loaded.model)


@dataclasses.dataclass(frozen=True, slots=True)
class Generated:
    name: str
    sizes: tuple[int, ...] = ()
    extra: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class Single:
    only: Generated


@dataclasses.dataclass(frozen=True, slots=True)
class Checked:
    value: int

    def __post_init__(self):             # (must not run again on a value read back)
        if self.value < 0:
            raise ValueError("negative")
        object.__setattr__(self, "value", self.value * 2)


@dataclasses.dataclass(frozen=True, slots=True)
class KeywordOnly:
    first: int
    second: int = dataclasses.field(default=0, kw_only=True)


@dataclasses.dataclass(frozen=True, slots=True)
class NotInInit:
    first: int
    derived: int = dataclasses.field(init=False, default=7)


@dataclasses.dataclass(frozen=True, slots=True)
class OwnInit:
    text: str

    def __init__(self, raw: bytes):     # (takes something else than its field)
        object.__setattr__(self, "text", raw.decode())


@dataclasses.dataclass(frozen=True)
class Unslotted:
    value: int


def test_every_kind_of_dataclass_reads_back_equal():
    inner = Generated("a", (1, 2), {"k": [1, 2]})
    values = [inner, Single(inner), Checked(3), KeywordOnly(1, second=2), NotInInit(5),
              OwnInit(b"text"), Unslotted(4), (inner, inner)]
    back = pickle.loads(pickling.dumps(values))
    assert back == values
    assert back[1].only is back[7][0] is back[7][1] is back[0]     # (shared objects stay one)
    assert back[2].value == 6 and back[5].text == "text"           # (no second __post_init__)


def test_the_stream_names_only_the_classes():
    data = pickling.dumps([Generated("a"), Checked(1)])
    names = {arg for op, arg, _ in pickletools.genops(data) if isinstance(arg, str)}
    assert "Generated" in names and "Checked" in names
    assert not names & {"s2s.model.pickling", "copyreg", "__newobj__", "_Reducers"}
