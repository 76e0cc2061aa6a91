"""Issue 30: the model's slotted dataclasses pickle with their field names looked up once
(:mod:`s2s.model.fast_pickle`), not through ``dataclasses.fields`` per object. The fact cache
depends on the result: the same bytes as dataclasses' own functions, read back equal."""

from __future__ import annotations

import dataclasses
import pickle
import sys

from s2s.frontend.extract import load
from s2s.model import fast_pickle

PROGRAM = b"""#include <stdlib.h>
void step(double *p, int n) {
#pragma omp target teams distribute parallel for map(tofrom: p[0:n])
  for (int i = 0; i < n; i++) p[i] = 2.0 * p[i];
}
int main(void) {
  int n = 64;
  double *p = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) p[i] = i;
  for (int s = 0; s < 3; s++) step(p, n);
  free(p);
  return 0;
}
"""


def _model_classes() -> list[type]:
    return [cls for name, module in list(sys.modules.items()) if name.startswith("s2s.model.")
            for cls in vars(module).values()
            if isinstance(cls, type) and cls.__module__ == name and dataclasses.is_dataclass(cls)
            and dataclasses.fields(cls)]


def test_the_pickles_are_dataclasses_own(tmp_path, monkeypatch):
    path = tmp_path / "p.c"
    path.write_bytes(PROGRAM)
    model = load(str(path)).model
    sped = [cls for cls in _model_classes()
            if cls.__dict__.get("__getstate__") not in (None, fast_pickle._DEFAULT_GET)]
    assert {"SourceSpan", "Stmt", "VarUse", "HostFunction"} <= {c.__name__ for c in sped}
    fast = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    for cls in sped:
        monkeypatch.setattr(cls, "__getstate__", fast_pickle._DEFAULT_GET)
        monkeypatch.setattr(cls, "__setstate__", fast_pickle._DEFAULT_SET)
    default = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    assert fast == default
    read_by_default = pickle.loads(fast)
    monkeypatch.undo()
    assert pickle.loads(default) == model == read_by_default
    assert pickle.loads(default).functions[0].body == model.functions[0].body
