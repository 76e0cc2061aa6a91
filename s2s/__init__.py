"""s2s: a source-to-source optimizer for CUDA and OpenMP offload programs."""

from pathlib import Path

__version__ = "0.1.0"

# Installed, the runtime is the package s2s_runtime; importing it registers the name
# 'runtime' the tool uses (runtime/__init__.py). In the source tree runtime/ sits beside s2s/.
if not (Path(__file__).resolve().parent.parent / "runtime" / "__init__.py").is_file():
    import s2s_runtime  # noqa: F401
