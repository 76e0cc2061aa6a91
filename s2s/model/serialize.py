"""JSON form of the model, derived from the dataclass fields so it never drifts from them."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

#: JSON levels a model's document may nest: Python's ``json`` (and other recursive readers)
#: stop near 1000 levels, and a statement costs two (an object and its ``children`` list).
MAX_JSON_DEPTH = 400


@dataclasses.dataclass
class Cut:
    """What :func:`to_json` left out: how many values sat deeper than ``MAX_JSON_DEPTH``."""
    count: int = 0


def to_json(value: Any, cut: Cut | None = None, depth: int = 0) -> Any:
    """Convert a model object (frozen dataclasses, tuples, enums) into JSON-ready data.

    Fields holding ``None`` or empty tuples are dropped to keep the output readable; a
    ``SourceSpan`` uses its own compact form. A value nested deeper than
    :data:`MAX_JSON_DEPTH` levels becomes ``{"type": "Omitted", ...}`` (counted in ``cut``):
    2,500 nested ``else if`` made a document no JSON reader could load.
    """
    if depth >= MAX_JSON_DEPTH and isinstance(value, (tuple, list, dict)) or (
            depth >= MAX_JSON_DEPTH and dataclasses.is_dataclass(value)
            and not hasattr(value, "to_json")):
        if cut is not None:
            cut.count += 1
        return {"type": "Omitted", "reason": f"nested deeper than {MAX_JSON_DEPTH} levels"}
    if hasattr(value, "to_json") and not isinstance(value, type):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": type(value).__name__}
        for field in dataclasses.fields(value):
            if not field.metadata.get("json", True):
                continue
            item = getattr(value, field.name)
            if item is None or item == ():
                continue
            out[field.name] = to_json(item, cut, depth + 1)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [to_json(item, cut, depth + 1) for item in value]
    if isinstance(value, dict):
        return {str(k): to_json(v, cut, depth + 1) for k, v in value.items()}
    return value
