"""Build the C interface library on demand: ``libs2s_runtime.so`` embedding this Python.

    python -m s2s_runtime.capi_build            # builds (cached) and prints the library path
    python -m s2s_runtime.capi_build --flags    # compiler/linker flags (gcc, clang, nvcc) for a program

(the package's installed name, which an editable install and a wheel both provide.)

The library is keyed (like kernel modules) by its C source, the header, the Python version and the
compiler, and lands in the cache directory of the cpu backend.  It records the ``sys.path`` of the Python
that built it (repository root, site-packages with numpy), so the program finds the runtime without any
environment; ``S2S_RUNTIME_PYTHONPATH`` adds entries in front at run time.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from runtime import cache_trust
from runtime.cpu.compiler import cache_dir
from runtime.errors import BackendUnavailable, CompileError

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "csrc" / "s2s_runtime.c"
HEADER_DIR = HERE / "include"
#: the folder that holds the package (the source tree's root, or site-packages): first on the
#: library's search path, so the program imports this very runtime
PACKAGE_PARENT = HERE.parent
#: what the library imports: this package under the name it was imported by (s2s_runtime when
#: installed, runtime in the source tree)
_PACKAGE = (__spec__.name if __spec__ is not None else __name__).rpartition(".")[0]
BRIDGE_MODULE = f"{_PACKAGE or 'runtime'}.capi"


def _python_link() -> tuple[str, str, str]:
    """(include dir, library dir, library name) of the running Python's shared libpython."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise BackendUnavailable("the C interface embeds Python and needs a shared libpython "
                                 "(this Python was built without --enable-shared)")
    ldlib = sysconfig.get_config_var("LDLIBRARY")            # e.g. libpython3.11.so
    return sysconfig.get_paths()["include"], sysconfig.get_config_var("LIBDIR"), ldlib[3:].split(".so")[0]


def _search_path() -> str:
    entries = [str(PACKAGE_PARENT)] + [p for p in sys.path if p and os.path.isdir(p) and "site-packages" in p]
    return ":".join(dict.fromkeys(entries))


def build_library(compiler: str = "gcc") -> Path:
    """Path of the (cached) shared library."""
    include, libdir, libname = _python_link()
    pythonpath = _search_path()
    key = hashlib.sha256(b"\0".join([SOURCE.read_bytes(), (HEADER_DIR / "s2s_runtime.h").read_bytes(),
                                     sys.version.encode(), pythonpath.encode(), compiler.encode(),
                                     BRIDGE_MODULE.encode()])).hexdigest()[:24]
    out_dir = cache_dir() / f"capi-{key}"
    target = out_dir / "libs2s_runtime.so"
    if cache_trust.usable(target):
        return target
    out_dir = cache_trust.own_directory(out_dir, "the runtime library's cache folder")
    target = out_dir / "libs2s_runtime.so"
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)
    os.close(fd)
    command = [compiler, "-O2", "-fPIC", "-shared", f"-I{include}", f"-I{HEADER_DIR}",
               f'-DS2S_PYTHONPATH="{pythonpath}"', f'-DS2S_BRIDGE_MODULE="{BRIDGE_MODULE}"', str(SOURCE), "-o", tmp, f"-L{libdir}", f"-l{libname}",
               f"-Wl,-rpath,{libdir}"]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise CompileError("building the s2s runtime C library failed", command, proc.stderr)
    cache_trust.publish(tmp, target)
    return target


def program_flags() -> list[str]:
    """Flags to compile and link a C/C++ or CUDA program against the library (``-Xlinker`` is
    understood by gcc, clang and nvcc alike, ``-Wl,`` by nvcc not)."""
    return [f"-I{HEADER_DIR}", *link_flags()]


def link_flags() -> list[str]:
    lib = build_library()
    return [f"-L{lib.parent}", "-ls2s_runtime", "-Xlinker", "-rpath", "-Xlinker", str(lib.parent)]


def main(argv: list[str]) -> int:
    if argv[1:] == ["--flags"]:
        print(" ".join(program_flags()))
    else:
        print(build_library())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
