"""Where the compilers, headers and libclang come from.

libclang is configured once here (before any parse) so every caller sees the same setup:
libclang-ng's bundled libc++ is switched off because user code is compiled against libstdc++,
and the CUDA toolkit is looked up as nvcc does it (``CUDA_PATH``, ``nvcc`` on ``PATH``,
``/usr/local/cuda``). Without a toolkit, a bundled shim of the CUDA runtime headers keeps the
analysis working.
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from s2s.diagnostics import ToolchainError

SHIM_DIR = Path(__file__).parent.parent / "shim"
_SHIM_PREFIX = os.path.join(os.path.abspath(str(SHIM_DIR)), "")


def is_tool_header(name: str) -> bool:
    """Whether the file ``name`` is one of s2s's own parse headers (under ``shim/``: the
    shim, its stubs, ``nvcc_compat.h``), which are neither the program's headers nor a
    library's declarations of its own."""
    return os.path.abspath(name).startswith(_SHIM_PREFIX)
#: Empty stand-ins for toolkit headers that are absent here but pulled in by cuda_runtime.h.
STUB_DIR = SHIM_DIR / "stubs"
#: Where Debian's clang-16 keeps omp.h; libclang-ng ships no omp.h of its own.
LLVM_OMP_INCLUDES = ("/usr/lib/llvm-16/lib/clang/16/include", "/usr/lib/llvm-17/lib/clang/17/include",
                     "/usr/lib/llvm-18/lib/clang/18/include")


@dataclass(frozen=True)
class Toolchain:
    """The headers a parse will use: the real CUDA toolkit (or None for the shim) and omp.h."""

    cuda_path: str | None
    omp_include: str | None
    shim_dir: str = str(SHIM_DIR)
    stub_dir: str = str(STUB_DIR)

    @property
    def uses_cuda_shim(self) -> bool:
        return self.cuda_path is None


def find_cuda_toolkit(environ: dict[str, str] | None = None) -> str | None:
    """The CUDA toolkit root, searched as nvcc users expect, or None.

    ``S2S_CUDA_PATH=shim`` forces the bundled shim (useful to compare results or for speed).
    """
    env = os.environ if environ is None else environ
    forced = env.get("S2S_CUDA_PATH")
    if forced == "shim":
        return None
    candidates = [forced, env.get("CUDA_PATH"), env.get("CUDA_HOME")]
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    candidates.append("/usr/local/cuda")
    for root in candidates:
        if root and (Path(root) / "include" / "cuda_runtime.h").is_file():
            return str(Path(root))
    return None


def find_omp_include() -> str | None:
    """A directory holding omp.h from an installed clang (None: use the bundled shim)."""
    for directory in LLVM_OMP_INCLUDES:
        if (Path(directory) / "omp.h").is_file():
            return directory
    return None


@functools.cache
def default_toolchain(cuda_path: str | None = "auto") -> Toolchain:
    """The toolchain for this process; ``cuda_path='auto'`` searches, None forces the shim."""
    configure_libclang()
    root = find_cuda_toolkit() if cuda_path == "auto" else cuda_path
    return Toolchain(cuda_path=root, omp_include=find_omp_include())


@functools.cache
def configure_libclang():
    """Import and configure ``clang.cindex`` once; raise ToolchainError if it is unusable."""
    try:
        from clang import cindex
    except ImportError as exc:
        raise ToolchainError("libclang Python bindings are not installed "
                             "(pip install libclang-ng); run scripts/setup.sh") from exc
    if hasattr(cindex.Config, "libcxx_dir"):
        cindex.Config.libcxx_dir = None
    try:
        cindex.Index.create()
    except Exception as exc:  # libclang raises LibclangError or OSError when the .so is missing
        raise ToolchainError(f"libclang could not be loaded: {exc}") from exc
    _quiet_shutdown(cindex)
    _null_check_in_python(cindex)
    _kinds_from_a_table(cindex)
    return cindex


def _kinds_from_a_table(cindex) -> None:
    """``CursorKind.from_id`` (and every kind enumeration's) read from the enumeration's own
    table of values, not through ``Enum.__call__`` (issue 30: ``Cursor.kind`` and
    ``Type.kind`` are asked about a million times on the 1 MB CUDA file, 5% of its
    extraction). The table is the one ``Enum.__call__`` looks in first, so the member is the
    same; an id it lacks goes through ``Enum.__call__`` as before (and raises as before)."""
    base = cindex.BaseEnumeration
    if getattr(base.from_id, "_s2s_table", False):
        return

    def from_id(cls, id):
        member = cls._value2member_map_.get(id)
        return member if member is not None else cls(id)

    from_id._s2s_table = True
    base.from_id = classmethod(from_id)


def _null_check_in_python(cindex) -> None:
    """``Cursor.is_null`` compared in Python, not by a libclang call (issue 30, item 1).

    Every property of a bindings Cursor first asks whether the cursor is null, through
    ``clang_equalCursors`` with the null cursor: on the 1 MB CUDA file about four million
    ctypes calls, a sixth of the extraction. ``clang_equalCursors`` compares the kind, the
    extra word and the three data words (clearing one data word of declarations first, which
    the null cursor, of kind InvalidFile, is not), so comparing the same fields of the
    structure in Python gives the same answer (testsuite/frontend/test_fast_null_check.py)."""
    cursor = cindex.Cursor
    if getattr(cursor.is_null, "_s2s_pure", False):
        return
    null = cindex.conf.lib.clang_getNullCursor()
    kind, extra, data = null._kind_id, null.xdata, tuple(null.data)

    def is_null(self) -> bool:
        return self._kind_id == kind and self.xdata == extra and tuple(self.data) == data

    is_null._s2s_pure = True
    cursor.is_null = is_null


def _quiet_shutdown(cindex) -> None:
    """Units and indexes still alive at interpreter exit are finalized after cindex's module
    globals are gone, and cindex's ``__del__`` then prints a traceback per object ("'NoneType'
    object has no attribute 'lib'").  The process is exiting and frees the memory anyway."""
    for cls in (cindex.TranslationUnit, cindex.Index):
        original = cls.__del__
        if getattr(original, "_s2s_quiet", False):
            continue

        def __del__(self, _original=original):
            try:
                _original(self)
            except Exception:  # noqa: BLE001 - only ever reached during interpreter shutdown
                pass

        __del__._s2s_quiet = True
        cls.__del__ = __del__
