"""s2s: a source-to-source optimizer for CUDA and OpenMP offload programs."""

import sys
from pathlib import Path

__version__ = "0.1.0"


def _bind_runtime() -> None:
    """Make the name ``runtime`` (which the tool imports) mean this copy's runtime: in the
    source tree the folder ``runtime/`` beside ``s2s/``, loaded by its path so that another
    checkout's runtime (an editable install elsewhere) never stands in; installed, the package
    ``s2s_runtime``, whose import registers ``runtime`` for it (runtime/__init__.py)."""
    if "runtime" in sys.modules:
        return
    folder = Path(__file__).resolve().parent.parent / "runtime"
    if not (folder / "__init__.py").is_file():
        import s2s_runtime  # noqa: F401
        return
    import importlib.util

    spec = importlib.util.spec_from_file_location("runtime", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["runtime"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules["runtime"]
        raise


_bind_runtime()
