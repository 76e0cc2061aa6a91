"""Run a whole CUDA program (host code and kernels) on the s2s runtime's cpu devices.

The runtime offers the CUDA-like calls through its C interface (``s2s_runtime.h``). A CUDA
host program becomes an ordinary C++ program against it:

* the host translation unit is the ``.cu`` file with every kernel (and ``__device__``-only
  function) body replaced by ``;`` and every launch ``k<<<g, b, s>>>(args)`` replaced by
  ``s2s_shim::launcher<decltype(k)>::launch("k", g, b, s, args)`` -- the kernel's declared
  parameter types convert the arguments, as a real launch does (edits from the s2s model, so
  the same spans the rewriter uses);
* ``cuda_shim/cuda_runtime.h`` stands in for the CUDA header: ``cudaMalloc``/``cudaMemcpy``/
  ``cudaFree``/``cudaMemset``/error calls forward to ``s2s_*``; launches load the kernels
  once from the ``.cu`` file (the runtime blanks its host code and compiles the kernels for
  the emulated devices) and call ``s2s_launch``;
* the shim counts the calls and copied bytes and writes them at exit to ``S2S_SHIM_COUNTS``.

Kept deliberately narrow: the calls the samples use; anything else fails to compile with the
missing name, which is the honest outcome.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from runtime.capi_build import program_flags
from runtime.cpu.compiler import INCLUDE_DIR as RUNTIME_CPU_HEADERS
from s2s.analysis.mgpu.included import is_included_source
from s2s.analysis.mgpu.sites import mask
from s2s.diagnostics import ToolchainError
from s2s.edits import Edit, EditSet
from s2s.frontend.core.allowed_flags import allowed_flags
from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.extract import load
from s2s.frontend.headers import device_headers
from s2s.model.cuda_legacy import legacy_defines
from s2s.verify.bounded_run import run_process
from s2s.verify.shim_macros import macro_launch_edit
from s2s.wrapper.linemap import c_string, directive

SHIM_DIR = Path(__file__).resolve().parent / "cuda_shim"


class ShimUnsupported(ToolchainError):
    """The program uses a construct the host shim cannot run (launch of a template kernel, a
    launch written in a macro)."""


@dataclass(frozen=True)
class HostRun:
    stdout: str
    stderr: str
    returncode: int
    counts: dict[str, int]


def host_source(path: str, source: bytes | None = None, options: ParseOptions | None = None) -> bytes:
    """The host translation unit of ``path`` (or ``source`` under that name) for the shim."""
    return _host_unit(path, source, options)[0]


def _host_unit(path: str, source: bytes | None, options: ParseOptions | None
               ) -> tuple[bytes, list[str], list[str]]:
    """The host translation unit, the template kernels its launches instantiate (``k<float,
    128>``: written out or deduced in a launch outside any template), and the kernels the file
    defines (registered for launches in the program's other files)."""
    loaded = load(path, options, source=source)
    if loaded.model is None:
        raise ToolchainError(f"{path}: cannot parse the CUDA program: "
                             + "; ".join(d.message for d in loaded.diagnostics[:3]))
    model, text = loaded.model, loaded.source
    pointed = {t for launch in model.launches for t in launch.targets}
    edits = _device_bodies_blanked(model, text, path, pointed)
    templates = {f.name for f in model.functions if f.is_template}
    header_kernels = [k for header in device_headers(loaded) for k in header.model.kernels]
    in_headers = {k.name for k in header_kernels if k.body_span is not None}
    declared_kernels = {k.name for k in (*model.kernels, *header_kernels)}
    instantiate = []
    masked = mask(text)
    registrations: list[str] = []
    for launch in model.launches:
        if launch.function in templates and launch.instances and launch.span.macro is None:
            _template_launch(edits, path, text, launch, instantiate, registrations)
            continue
        if launch.span.macro is not None and not launch.forwarded and \
                launch.function not in templates:
            _macro_launch(edits, path, text, masked, launch, model, declared_kernels, in_headers,
                          instantiate)
            continue
        if (launch.span.template is not None or (launch.span.macro is not None
                                                   and not launch.forwarded)
                or launch.function in templates or (
                (launch.template_args or launch.deduced_args) is None
                and _is_template(model, launch.kernel))):
            raise ShimUnsupported(f"{launch.span.location()}: the host shim runs plain launches "
                                  "and launches of template kernels with their arguments written "
                                  "out or deduced (not launches in macros or inside templates)")
        if launch.through_pointer:
            edits.add(_pointer_launch_edit(path, text, launch, model))
            continue
        kernel = launch.kernel
        here = model.kernel(kernel)
        own = here is not None and here.body_span is not None
        foreign = not own and kernel not in in_headers
        if foreign and (kernel not in declared_kernels or launch.template_args
                        or launch.deduced_args):
            raise ShimUnsupported(f"{launch.span.location()}: '{kernel}' is neither defined nor "
                                  "declared as a kernel here (or is a template of another file): "
                                  "the host shim cannot say which file's kernels to run")
        if not own and not foreign and not (launch.template_args or launch.deduced_args):
            instantiate.append(kernel)            # defined in a header: exported by name
        if launch.template_args or launch.deduced_args:
            kernel = f"{launch.kernel}<{launch.template_args or launch.deduced_args}>"
            instantiate.append(kernel)
        edits.add(_launch_edit(path, text, launch, kernel, foreign))
    own_kernels = [k.name for k in model.kernels if k.body_span is not None and not k.is_template]
    registrations += _held_registrations((*model.kernels, *header_kernels))
    if registrations:
        edits.add(Edit(path, len(text), 0, "\n" + "".join(dict.fromkeys(registrations))))
    return edits.apply(path, text), list(dict.fromkeys(instantiate)), own_kernels


def _held_registrations(kernels) -> list[str]:
    """The shim's table of the kernels whose by-value parameters hold pointers
    (``Param.held_pointers``), one line each, registered at the end of the host unit: the
    runtime translates the device pointers among them at each launch (not for templates, whose
    layout depends on the instantiation)."""
    calls = []
    for kernel in kernels:
        held = kernel.held_pointer_table
        if held and not kernel.is_template:
            text = c_string(json.dumps({"held_pointers": held})).decode()
            calls.append(f"s2s_shim::held(\"{kernel.name}\", \"{text}\")")
    return [f"static const bool s2s_shim_held_{number} = {call};\n"
            for number, call in enumerate(dict.fromkeys(calls))]


def _launch_edit(path: str, text: bytes, launch, kernel: str, foreign: bool) -> Edit:
    """The shim's launcher call in place of a plain launch of ``kernel`` (a name, or an
    instantiation ``k<float>``); ``foreign``: defined in another file of the program."""
    grid, block = launch.grid.text, launch.block.text
    shared = launch.shared_bytes.text if launch.shared_bytes is not None else "0"
    where = f"launch_in(s2s_shim::owner(\"{kernel}\"), " if foreign else "launch("
    head = (f"s2s_shim::launcher<decltype({kernel})>::{where}\"{kernel}\", "
            f"dim3({grid}), dim3({block}), (size_t)({shared})")
    if launch.forwarded:         # the call of a macro that is only the launch: the call
        return Edit(path, launch.span.start, launch.span.length, head + "".join(
            f", {a.text}" for a in launch.args) + ")")
    open_paren = text.index(b"(", launch.config_span.end)
    return Edit(path, launch.span.start, open_paren + 1 - launch.span.start,
                head + (", " if launch.args else ""))


def _pointer_launch_edit(path: str, text: bytes, launch, model) -> Edit:
    """The launcher call for a launch through a local function pointer whose values are all
    kernels this file defines (``Launch.targets``): the kernel's name, which the runtime
    loads it by, chosen at run time by the pointer's value (the kernels keep an empty body in
    the host unit, so their addresses exist)."""
    own = {k.name for k in model.kernels if k.body_span is not None and not k.is_template}
    if not launch.targets or not set(launch.targets) <= own or launch.span.macro is not None:
        raise ShimUnsupported(f"{launch.span.location()}: the host shim runs a launch through "
                              f"the function pointer '{launch.kernel}' only when it can hold "
                              "nothing but kernels this file defines (no templates), outside "
                              "macros")
    value = f"reinterpret_cast<const void *>({launch.kernel})"
    name = "".join(f"{value} == reinterpret_cast<const void *>(&{t}) ? \"{t}\" : "
                   for t in launch.targets) + "\"\""
    grid, block = launch.grid.text, launch.block.text
    shared = launch.shared_bytes.text if launch.shared_bytes is not None else "0"
    open_paren = text.index(b"(", launch.config_span.end)
    return Edit(path, launch.span.start, open_paren + 1 - launch.span.start,
                f"s2s_shim::launcher<std::remove_pointer<decltype({launch.kernel})>::type>::"
                f"launch(({name}), dim3({grid}), dim3({block}), (size_t)({shared})"
                + (", " if launch.args else ""))


def _included_launches(header, includer: str, edits: EditSet, instantiate: list[str]) -> None:
    """The launches of a ``.cu`` file included as text (``#include "opt1.cu"``), as the
    shim's launcher calls in its host copy; each kernel (defined in the program's text, which
    the runtime compiles whole) exported by name."""
    if not is_included_source(header.path, includer):
        return
    for launch in header.model.launches:
        if launch.span.macro is not None or launch.span.template is not None or \
                launch.template_args or launch.deduced_args or launch.instances:
            raise ShimUnsupported(f"{launch.span.location()}: the host shim runs plain launches "
                                  "only in a .cu file included as text")
        instantiate.append(launch.kernel)
        edits.add(_launch_edit(header.path, header.source, launch, launch.kernel, False))


def _template_launch(edits: EditSet, path: str, text: bytes, launch, instantiate: list[str],
                     registrations: list[str]) -> None:
    """A launch inside a function template (``axpy_kernel<T><<<g, b>>>(...)``): the shim
    names the instantiation at run time by the kernel's name and function type, from the
    instantiations the file's call chains make (``Launch.instances``), each registered at the
    end of the host unit and compiled by the runtime."""
    arguments = launch.template_args or launch.deduced_args
    if arguments is None:
        raise ShimUnsupported(f"{launch.span.location()}: the kernel's template arguments in "
                              "this template are not known")
    kernel = f"{launch.kernel}<{arguments}>"
    for instance in launch.instances:
        name = f"{launch.kernel}<{instance}>"
        instantiate.append(name)
        registrations.append(f"static const bool s2s_shim_instance_{len(registrations)} = "
                             f"s2s_shim::instance(\"{launch.kernel}\", "
                             f"typeid(decltype({name})), \"{name}\");\n")
    grid, block = launch.grid.text, launch.block.text
    shared = launch.shared_bytes.text if launch.shared_bytes is not None else "0"
    open_paren = text.index(b"(", launch.config_span.end)
    edits.add(Edit(path, launch.span.start, open_paren + 1 - launch.span.start,
                   f"s2s_shim::launcher<decltype({kernel})>::launch(s2s_shim::instance_name("
                   f"\"{launch.kernel}\", typeid(decltype({kernel}))), dim3({grid}), "
                   f"dim3({block}), (size_t)({shared})" + (", " if launch.args else "")))


def _macro_launch(edits: EditSet, path: str, text: bytes, masked: bytes, launch, model,
                  declared: set[str], in_headers: set[str], instantiate: list[str]) -> None:
    """The shim's launcher call for a launch written through a macro (s2s/verify/shim_macros.py),
    in the text that holds its ``<<<``; the kernel's instantiation where a header defines it."""
    here = model.kernel(launch.kernel)
    own = here is not None and here.body_span is not None
    foreign = not own and launch.kernel not in in_headers
    templated = bool(launch.template_args or launch.deduced_args) or _is_template(
        model, launch.kernel)
    if foreign and launch.kernel not in declared:
        raise ShimUnsupported(f"{launch.span.location()}: '{launch.kernel}' is neither defined "
                              "nor declared as a kernel here")
    edit, problem = macro_launch_edit(text, masked, launch.span, launch.kernel, foreign, templated)
    if problem and launch.macro_frame is not None and not (foreign or templated):
        edit, problem = _framed_launch(launch), None       # a header's macro: at the call
    if problem or foreign or templated:
        raise ShimUnsupported(f"{launch.span.location()}: the host shim cannot run this launch "
                              f"through macro '{launch.span.macro}': "
                              f"{problem or 'a template kernel or a kernel of another file'}")
    if not own:
        instantiate.append(launch.kernel)            # defined in a header: exported by name
    edits.add(Edit(path, *edit))


def _framed_launch(launch) -> tuple[int, int, str]:
    """The call of a macro that does more than the launch (``Launch.macro_frame``), replaced by
    the macro's text around the shim's launcher call, as s2s mgpu rewrites it."""
    before, after = launch.macro_frame
    shared = launch.shared_bytes.text if launch.shared_bytes is not None else "0"
    head = (f"s2s_shim::launcher<decltype({launch.kernel})>::launch(\"{launch.kernel}\", "
            f"dim3({launch.grid.text}), dim3({launch.block.text}), (size_t)({shared})")
    args = "".join(f", {a.text}" for a in launch.args)
    return launch.span.start, launch.span.length, f"{before}{head}{args}){after}"


def _device_bodies_blanked(model, text: bytes, path: str, pointed=frozenset()) -> EditSet:
    """Edits replacing each kernel's and ``__device__``-only function's body by ``;`` (the
    runtime runs them; the host compiler knows no ``threadIdx``); a kernel a function pointer
    of the file can hold (``pointed``) gets an empty body instead, so it has an address."""
    edits = EditSet()
    for kernel in (*model.kernels, *model.device_functions):
        if kernel.body_span is None:
            continue
        head = text[kernel.span.start:kernel.body_span.start]
        if not kernel.is_global and b"__host__" in head:
            continue
        # the body's line breaks stay: __LINE__ after it is the user's line number
        newlines = text.count(b"\n", kernel.body_span.start, kernel.body_span.end)
        blank = "{}" if kernel.is_global and kernel.name in pointed else ";"
        edits.add(Edit(path, kernel.body_span.start, kernel.body_span.length,
                       blank + "\n" * newlines))
    return edits


def host_headers(path: str, workdir: Path, options: ParseOptions | None,
                 include_dirs: Sequence[str], instantiate: list[str] | None = None) -> list[str]:
    """Host copies of the project headers with device code that ``path`` includes, their
    device bodies blanked, written under ``workdir`` where the host compile finds them before
    the originals: a header under the program's directory at the same relative path (quoted
    includes look next to the including file first, the host unit is in ``workdir``), one
    under an ``-I`` directory below a directory returned here, for ``-I`` ahead of the user's.
    A ``.cu`` file included as text gets its launches translated too, their kernels added to
    ``instantiate``."""
    loaded = load(path, options)
    if loaded.model is None:
        return []
    roots = [os.path.dirname(os.path.abspath(path)), *map(os.path.abspath, include_dirs)]
    extra: list[str] = []
    for header in device_headers(loaded):
        real = os.path.abspath(header.path)
        for number, root in enumerate(roots):
            if real.startswith(root + os.sep):
                base = workdir if number == 0 else workdir / f"inc{number}"
                target = base / os.path.relpath(real, root)
                target.parent.mkdir(parents=True, exist_ok=True)
                edits = _device_bodies_blanked(header.model, header.source, header.path)
                _included_launches(header, path, edits, instantiate if instantiate is not None
                                   else [])
                target.write_bytes(edits.apply(header.path, header.source))
                if number and str(base) not in extra:
                    extra.append(str(base))
                break
    return extra


def _is_template(model, name: str) -> bool:
    kernel = model.kernel(name)
    return kernel is not None and kernel.is_template


def build(path: str, workdir: Path, source: bytes | None = None, compiler: str = "g++", *,
          options: ParseOptions | None = None, flags: Sequence[str] = ()) -> Path:
    """Compile the program at ``path`` (or ``source`` under that name) against the shim; returns
    the executable. ``flags``: the user's ``-D``/``-U``/``-I`` flags, for the host compile and the
    kernels alike (``options`` parses with them too); quoted includes resolve from ``path``'s
    directory. Raises ShimUnsupported (a construct the shim cannot run), ToolchainError."""
    return build_program([path], workdir, None if source is None else {path: source}, compiler,
                         options=options, flags=flags)


def build_program(paths: Sequence[str], workdir: Path, sources: dict[str, bytes] | None = None,
                  compiler: str = "g++", *, options: ParseOptions | None = None,
                  flags: Sequence[str] = (), hosts: Sequence[str] = ()) -> Path:
    """The program of several ``.cu`` files (``sources`` stands in for some of their bytes):
    each compiled on its own against the shim, with its own kernels, then linked with the
    objects of its C and C++ files (``hosts``, :func:`host_object`); the executable is named
    after the first."""
    workdir.mkdir(parents=True, exist_ok=True)
    objects = [_compile_unit(path, workdir / f"unit{number}", (sources or {}).get(path),
                             compiler, options, flags) for number, path in enumerate(paths)]
    objects += [host_object(path, workdir / f"host{number}", flags)
                for number, path in enumerate(hosts)]
    exe = workdir / Path(paths[0]).stem
    command = [compiler, *map(str, objects), "-o", str(exe), *program_flags()]
    proc = run_process(command)  # its own session: killed with what it started if verify stops
    if proc.returncode != 0:
        raise ToolchainError(f"linking {paths[0]} against the CUDA host shim failed:\n"
                             f"{proc.stderr[-3000:]}")
    return exe


def _compile_unit(path: str, workdir: Path, source: bytes | None, compiler: str,
                  options: ParseOptions | None, flags: Sequence[str]) -> Path:
    """The object of one ``.cu`` file's host code against the shim (its kernels: a copy the
    runtime compiles when the program first launches one of them)."""
    workdir.mkdir(parents=True, exist_ok=True)
    text = source if source is not None else Path(path).read_bytes()
    directory = os.path.dirname(os.path.abspath(path))
    defines, include_dirs, host_flags = _preprocessing(flags)
    kernels = workdir / Path(path).name
    kernels.write_bytes(defines.encode() + directive(1, path) + text)
    host = workdir / (Path(path).stem + ".host.cpp")
    host_text, instantiate, own_kernels = _host_unit(path, text, options)
    # named as the user names the file: __FILE__ prints the same in both builds, not a temp path
    host.write_bytes(directive(1, path) + host_text)
    mirrors = host_headers(path, workdir, options, include_dirs, instantiate)
    instantiate = list(dict.fromkeys(instantiate))
    obj = workdir / (Path(path).stem + ".o")
    dirs = ":".join([directory, *include_dirs])
    # nvcc includes cuda_runtime.h before any source: files that include no CUDA header build
    legacy = workdir / "s2s_cuda_legacy_map.h"    # the calls CUDA 13 removed, as nvcc's check maps them
    legacy.write_text(legacy_defines(named_macros(flags)))
    command = [compiler, "-std=c++17", "-O1", "-w", f"-I{SHIM_DIR}", "-idirafter",
               str(RUNTIME_CPU_HEADERS), "-include", "cuda_runtime.h", "-include", str(legacy),
               *[f"-I{m}" for m in mirrors], "-iquote", directory, *host_flags,
               _string_macro("S2S_SHIM_KERNELS", str(kernels)),
               _string_macro("S2S_SHIM_NAME", Path(path).name),
               _string_macro("S2S_SHIM_OWN_KERNELS", ";".join(own_kernels)),
               _string_macro("S2S_SHIM_INCLUDE_DIRS", dirs),
               *([_string_macro("S2S_SHIM_INSTANTIATE", ";".join(instantiate))] if instantiate else []),
               *[f for f in program_flags() if f.startswith("-I")],
               "-c", "-x", "c++", str(host), "-o", str(obj)]
    proc = run_process(command)
    if proc.returncode != 0:
        raise ToolchainError(f"building {path} against the CUDA host shim failed:\n{proc.stderr[-3000:]}")
    return obj


def host_object(path: str, workdir: Path, flags: Sequence[str]) -> Path:
    """The object of a C or C++ file of a CUDA program (Rodinia lud's ``../common/common.c``),
    built as nvcc builds it: by the host compiler (gcc for ``.c``, g++ otherwise) with the
    user's ``-D``/``-U``/``-I``/``-include`` flags. A C++ file finds the shim's CUDA headers
    where a build finds the toolkit's (cuda-samples' ``main.cpp`` of mergeSort includes
    ``cuda_runtime.h`` and allocates and copies the device buffers the ``.cu`` file's
    functions launch on): its runtime calls go to the same emulated devices; it launches no
    kernel (a ``.cpp`` file cannot), so its unit names no kernel file. The same object goes
    into the original and the rewritten program (the passes rewrite ``.cu`` files)."""
    workdir.mkdir(parents=True, exist_ok=True)
    compiler = "gcc" if path.endswith(".c") else "g++"
    obj = workdir / (Path(path).stem + ".o")
    _defines, _dirs, host_flags = _preprocessing(flags)
    shim = [] if compiler == "gcc" else [
        f"-I{SHIM_DIR}", "-idirafter", str(RUNTIME_CPU_HEADERS),
        _string_macro("S2S_SHIM_KERNELS", ""),
        *[f for f in program_flags() if f.startswith("-I")]]
    command = [compiler, "-O1", "-w", "-iquote", os.path.dirname(os.path.abspath(path)),
               *host_flags, *shim, "-c", os.path.abspath(path), "-o", str(obj)]
    proc = run_process(command)
    if proc.returncode != 0:
        raise ToolchainError(f"building {path} with {compiler} failed:\n{proc.stderr[-3000:]}")
    return obj


def _string_macro(name: str, value: str) -> str:
    """``-DNAME="VALUE"`` with VALUE escaped: a path with a quote in it must not end the string
    and go on as code of the program that verify then runs."""
    return f'-D{name}="{c_string(value).decode("utf-8", errors="surrogateescape")}"'


def _preprocessing(flags: Sequence[str]) -> tuple[str, list[str], list[str]]:
    """``#define``/``#undef``/``#include`` lines for the kernels' text (the runtime compiles the
    kernels itself and takes no command-line macros or forced includes), the ``-I``/``-isystem``
    directories, and the user's flags for the host compile; other flags of ``flags`` are for
    parsing only."""
    lines, dirs, host = [], [], []
    for option, value in user_flags(flags):
        if option in ("-I", "-isystem"):
            dirs.append(value)
            host += [option, value]
        elif option == "-include":
            quoted = f'"{c_string(value).decode("utf-8", errors="surrogateescape")}"'
            lines.append(f"#include {quoted if os.path.isabs(value) else f'<{value}>'}\n")
            host += [option, value]
        elif option == "-U":
            lines.append(f"#undef {value}\n")
            host.append(option + value)
        else:
            name, _, body = value.partition("=")
            lines.append(f"#define {name} {body if _ else '1'}\n")
            host.append(option + value)
    return "".join(lines), dirs, host


#: the user's flags that change what a build of the program compiles (an allow-list: every
#: other flag is for the parse only); the longest spelling first
_BUILD_OPTIONS = ("-isystem", "-include", "-D", "-U", "-I")


def user_flags(flags: Sequence[str]) -> list[tuple[str, str]]:
    """The ``-D``/``-U``/``-I``/``-isystem``/``-include`` options of ``flags`` as (option,
    value), whether the value is joined (``-DX``) or the next argument (``-D X``); directories
    made absolute, an ``-include`` file absolute where it exists from here (the compiler looks
    in its working directory first) and as written otherwise (``-include math.h`` is found on
    the include path). The one place that says which user flags reach verify's builds (after the allow-list
    every tool s2s runs applies: s2s.frontend.core.allowed_flags)."""
    found, items, at = [], list(allowed_flags(flags)[0]), 0
    while at < len(items):
        option = next((o for o in _BUILD_OPTIONS if items[at].startswith(o)), None)
        if option is not None:
            value = items[at][len(option):]
            if not value and at + 1 < len(items):
                at += 1
                value = items[at]
            if option in ("-I", "-isystem") or (option == "-include" and os.path.isfile(value)):
                value = os.path.abspath(value)
            if value:
                found.append((option, value))
        at += 1
    return found


def named_macros(flags: Sequence[str]) -> list[str]:
    """The macro names the user's ``-D``/``-U`` flags define or undefine."""
    return [value.partition("=")[0] for option, value in user_flags(flags) if option in ("-D", "-U")]


def run(exe: Path, args: tuple[str, ...] = (), devices: int = 1, timeout: float = 300) -> HostRun:
    """Run a shim-built program on ``devices`` emulated cpu devices."""
    with tempfile.TemporaryDirectory() as tmp:
        counts_file = Path(tmp) / "counts"
        env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES=str(devices),
                   S2S_SHIM_COUNTS=str(counts_file))
        proc = run_process([str(exe), *args], env=env, timeout=timeout)
        counts = {}
        if counts_file.exists():
            for line in counts_file.read_text().splitlines():
                key, value = line.split()
                counts[key] = int(value)
    return HostRun(proc.stdout, proc.stderr, proc.returncode, counts)
