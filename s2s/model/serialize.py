"""JSON form of the model, derived from the dataclass fields so it never drifts from them."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any


def to_json(value: Any) -> Any:
    """Convert a model object (frozen dataclasses, tuples, enums) into JSON-ready data.

    Fields holding ``None`` or empty tuples are dropped to keep the output readable; a
    ``SourceSpan`` uses its own compact form.
    """
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
            out[field.name] = to_json(item)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value
