"""CUDA constructs from libclang cursors: kernels and device functions, launches, API calls.

Three libclang habits shape this module:

* Code produced by a macro has macro-located cursors, which the shared main-file walk
  (``ExtractContext.nodes``) does not enter, so ``CUDA_CHECK(cudaMalloc(...))``, launches
  behind a ``LAUNCH(...)`` macro and every ``__shared__ T x[...];`` statement (it begins with
  the ``__shared__`` macro) would be invisible. The extraction context finds, for each macro call
  inside a function, the deepest walked cursor around it and adds the hidden children it has
  (:class:`s2s.frontend.cuda.unit.Unit`).
* Code from a macro *argument* has an empty extent, yet ``clang_getFileLocation`` still says
  where its text is spelled, so such expressions keep their exact text. Code from a macro
  *body* is recovered from a small text expansion of the file's own ``#define``s. Either way
  every span is the macro call's (flagged ``macro``), so nothing in there is ever edited.
* ``__global__``, ``__device__``, ``__shared__`` are macros of the CUDA headers: the
  attribute cursors live there, so they are read from a cursor's own children.

libclang calls cost microseconds each through ctypes; everything here visits the cached walk
once and asks libclang only about the cursors it keeps (calls, builtins, declarations).
"""


from __future__ import annotations

import ctypes
import os
import re

from s2s.frontend.core.context import FUNCTION_KINDS, ExtractContext
from s2s.frontend.cuda.held_pointers import held_pointer_offsets
from s2s.frontend.cuda.macro_frame import launch_frame
from s2s.frontend.cuda.names import (
    API_CATEGORY,
    ARRAY_KINDS,
    BUILTIN_VARS,
    CONFIG_CALLS,
    MATH_HEADERS,
    NOT_MATH,
    TEMPLATE_PARAM_KINDS,
    api_category,
    device_call_category,
)
from s2s.frontend.cuda.templates import (
    caller_instances,
    find_kernel_template,
    kernel_arguments,
    substitute,
)
from s2s.frontend.cuda.text import (
    BUILTIN_AT,
    BUILTIN_MEMBER,
    IDENT_AT_END,
    blank_literals,
    clang_lib,
    group_end,
    has_file,
    kind_of,
    parse_launch_text,
    spelling_of,
    split_top,
)
from s2s.frontend.cuda.unit import Unit, UnitFunction, unit_of
from s2s.model.cuda import ApiCall, BuiltinUse, DeviceCall, Kernel, Launch, Param, SharedArray
from s2s.model.span import Expr, SourceSpan

# --- kernels and device functions -----------------------------------------------------------


def extract_kernels(ctx: ExtractContext) -> tuple[tuple[Kernel, ...], tuple[Kernel, ...]]:
    """``__global__`` kernels and ``__device__`` functions (``__host__ __device__`` included)
    defined in the main file; a declaration counts only when no definition has its name."""
    unit = unit_of(ctx)
    found = []
    for number, function in enumerate(unit.functions):
        node = function.node
        if node.kind in ("CONSTRUCTOR", "DESTRUCTOR"):
            continue
        attrs = unit.attrs(node.cursor)
        is_global = "CUDAGLOBAL_ATTR" in attrs
        if is_global or "CUDADEVICE_ATTR" in attrs:
            found.append((number, is_global, node.cursor.is_definition()))
    defined = {unit.functions[n].node.cursor.spelling for n, _, d in found if d}
    device_names = {unit.functions[n].node.cursor.spelling for n, g, _ in found if not g}
    shared_globals = _file_scope_shared(unit)
    kernels, device_functions = [], []
    for number, is_global, is_definition in found:
        name = unit.functions[number].node.cursor.spelling
        if not is_definition and name in defined:
            continue
        kernel = _kernel(unit, unit.functions[number], is_global, device_names, shared_globals)
        (kernels if is_global else device_functions).append(kernel)
    return tuple(kernels), tuple(device_functions)


def _kernel(unit: Unit, function: UnitFunction, is_global: bool, device_names: set[str],
            shared_globals: dict[str, tuple]) -> Kernel:
    node = function.node
    cursor, template = node.cursor, node.template
    params, template_params, template_decls, body_span = [], [], [], None
    for child in cursor.get_children():
        kind = child.kind.name
        if kind == "PARM_DECL":
            params.append(_param(unit, child, template))
        elif kind in TEMPLATE_PARAM_KINDS:
            template_params.append(child.spelling)
            template_decls.append(unit.ctx.index.cursor_text(child))
        elif kind == "COMPOUND_STMT":
            body_span = unit.span(child, template)
    builtins, shared, calls = _body_facts(unit, function, device_names, shared_globals)
    return Kernel(
        name=cursor.spelling,
        span=unit.span(cursor, template),
        params=tuple(params),
        body_span=body_span,
        is_global=is_global,
        template_params=tuple(template_params),
        template_decls=tuple(template_decls),
        builtins=tuple(builtins),
        shared_arrays=tuple(shared),
        calls=tuple(calls),
        side=unit.ctx.side,
    )


def _param(unit: Unit, cursor, template: str | None) -> Param:
    """A parameter with pointer facts; array parameters (``float a[]``) are pointers."""
    ptype = cursor.type
    canonical = ptype.get_canonical()
    is_pointer = canonical.kind.name == "POINTER" or ptype.kind.name == "POINTER"
    is_array = ptype.kind.name in ARRAY_KINDS
    pointee_const = False
    if is_pointer:
        pointee_const = ptype.get_pointee().is_const_qualified() or (
            canonical.get_pointee().is_const_qualified())
    elif is_array:
        pointee_const = ptype.element_type.is_const_qualified()
    spelling = ptype.spelling
    restrict = ptype.is_restrict_qualified() or bool(
        re.search(r"\*[^*]*\b(?:__restrict__|__restrict|restrict)\b[^*]*$", spelling))
    return Param(name=cursor.spelling, type=spelling, span=unit.span(cursor, template),
                 is_pointer=is_pointer or is_array, pointee_const=pointee_const,
                 restrict=restrict, held_pointers=held_pointer_offsets(ptype))


def _body_facts(unit: Unit, function: UnitFunction, device_names: set[str],
                shared_globals: dict[str, tuple]):
    """Builtin uses, shared arrays and calls in one pass over the function's walk items."""
    template = function.node.template
    builtins: list[BuiltinUse] = []
    shared: list[SharedArray] = []
    calls: list[DeviceCall] = []
    globals_used: list[str] = []
    for index in unit.body(function):
        node = unit.items[index]
        kind = node.kind
        if kind == "DECL_REF_EXPR":
            name = node.cursor.spelling
            if name in BUILTIN_VARS or name == "warpSize":
                builtins.append(_builtin(unit, index, name, template))
            elif name in shared_globals and name not in globals_used:
                globals_used.append(name)
        elif kind == "VAR_DECL":
            array = _shared_array(unit, node.cursor, template)
            if array is not None:
                shared.append(array)
        elif kind == "CALL_EXPR":
            call = _device_call(unit, index, template, device_names)
            if call is not None:
                calls.append(call)
    shared.sort(key=_start)  # macro-hidden cursors come first in the walk
    shared[:0] = [_shared_array(unit, *shared_globals[name]) for name in globals_used]
    return sorted(builtins, key=_start), shared, sorted(calls, key=_start)


def _start(item) -> int:
    return item.span.start


def _builtin(unit: Unit, index: int, name: str, template: str | None) -> BuiltinUse:
    """``threadIdx.x`` (a property reference over the variable) or a bare use (component '')."""
    parent = unit.parent(index)
    if name == "warpSize" or parent < 0 or unit.items[parent].kind != "MEMBER_REF_EXPR":
        return BuiltinUse(name, "", unit.span(unit.items[index].cursor, template))
    member = unit.items[parent].cursor
    span = unit.span(member, template)
    text = unit.ctx.index.text(span.start, span.end) if span.macro is None else (
        unit.spelled_text(member, span))
    match = BUILTIN_MEMBER.match(text)
    component = match.group(2) if match else _component_from_definition(unit, member)
    return BuiltinUse(name, component, span)


def _component_from_definition(unit: Unit, member) -> str:
    """The component of a builtin written in a macro body (``#define tx threadIdx.x``): the
    reference's spelling location points at the builtin's name inside the ``#define``."""
    out = ctypes.c_uint()
    clang_lib()[5](member.location, None, None, None, ctypes.byref(out))
    text = unit.ctx.source[out.value : out.value + 64].decode("utf-8", errors="replace")
    match = BUILTIN_AT.match(text)
    return match.group(2) if match else ""


def _shared_array(unit: Unit, cursor, template: str | None) -> SharedArray | None:
    """A ``__shared__`` variable; ``dims`` as written (from the type when not readable)."""
    storage = cursor.storage_class.name
    if storage not in ("STATIC", "EXTERN") or "CUDASHARED_ATTR" not in unit.attrs(cursor):
        return None
    element = cursor.type
    while element.kind.name in ARRAY_KINDS:
        element = element.element_type
    dims = _written_dims(unit, cursor)
    if dims is None:
        dims = tuple(re.findall(r"\[([^\]]*)\]", cursor.type.spelling))
    if dims and not dims[0]:
        dims = dims[1:]
    return SharedArray(name=cursor.spelling, element_type=element.spelling, dims=dims,
                       extern=storage == "EXTERN", span=unit.span(cursor, template))


def _written_dims(unit: Unit, cursor) -> tuple[str, ...] | None:
    name = cursor.spelling
    at = cursor.location.offset
    source = unit.ctx.source
    if unit.macros.call_at(at) is not None or source[at : at + len(name)] != name.encode():
        return None
    text = source[at + len(name) : at + len(name) + 4096].decode("utf-8", errors="replace")
    dims, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text) or text[pos] != "[":
            return tuple(dims)
        end = group_end(text, pos)
        dims.append(text[pos + 1 : end - 1].strip())
        pos = end


def _file_scope_shared(unit: Unit) -> dict[str, tuple]:
    """``__shared__`` variables declared outside functions, by name: (cursor, template)."""
    found = {}
    for index, node in enumerate(unit.items):
        if node.kind == "VAR_DECL" and unit.owner(index) < 0:
            if "CUDASHARED_ATTR" in unit.attrs(node.cursor):
                found[node.cursor.spelling] = (node.cursor, node.template)
    return found


def _device_call(unit: Unit, index: int, template: str | None,
                 device_names: set[str]) -> DeviceCall | None:
    cursor = unit.items[index].cursor
    name = unit.call_name(index)
    if not name or name in CONFIG_CALLS:
        return None
    ref = cursor.referenced
    ref_kind = ref.kind.name if ref is not None else None
    if ref_kind in ("CONSTRUCTOR", "DESTRUCTOR") or (
            name.startswith("operator") and _implicit_operator(ref)):
        return None
    if ref is not None and ref_kind in FUNCTION_KINDS:
        attrs = unit.attrs(ref)
        if "CUDAGLOBAL_ATTR" in attrs:  # a launch from device code: out of scope
            category = "other"
        else:
            user = not ref.location.is_in_system_header and ref.location.file is not None
            category = _group_sync(ref, cursor) or \
                device_call_category(name, user and "CUDADEVICE_ATTR" in attrs)
            if category == "other" and _declared_in_math_header(ref, name):
                category = "math"
    else:
        category = device_call_category(name, name in device_names)
    span, args = unit.call_args(index, template)
    return DeviceCall(name=name, category=category, args=args, span=span)


def _group_sync(ref, cursor) -> str | None:
    """The barrier a cooperative groups ``sync`` is, from the declaration the call resolves
    to: ``cta.sync()`` or ``cg::sync(cta)`` on a thread block (or a thread group) is the
    block's barrier (``syncthreads``, as ``__syncthreads``), on a tile or a coalesced group
    a warp's (``warp``); a grid's is neither (None: ``other``, as before)."""
    if ref.spelling != "sync":
        return None
    scopes, parent = [], ref.semantic_parent
    while parent is not None and parent.kind.name != "TRANSLATION_UNIT":
        scopes.append(parent.spelling)
        parent = parent.semantic_parent
    if "cooperative_groups" not in scopes:
        return None
    if ref.kind.name == "CXX_METHOD":
        group = scopes[0]
    else:
        arguments = list(cursor.get_arguments())
        group = arguments[0].type.get_canonical().spelling if arguments else ""
    if "grid" in group:
        return None
    return "warp" if "tile" in group or "coalesced" in group else "syncthreads"


def _implicit_operator(ref) -> bool:
    """Operators nobody wrote: ``a = b`` on a float4 is an implicit copy assignment."""
    return ref is None or ref.location.is_in_system_header or (
        ref.kind.name == "CXX_METHOD" and ref.is_default_method())


def _declared_in_math_header(ref, name: str) -> bool:
    where = ref.location.file
    if where is None or name in NOT_MATH or not ref.location.is_in_system_header:
        return False
    return os.path.basename(where.name) in MATH_HEADERS


# --- launches ------------------------------------------------------------------------------


def extract_launches(ctx: ExtractContext) -> tuple[Launch, ...]:
    """Every ``kernel<<<...>>>(args)`` in host code (launches from device code are skipped)."""
    unit = unit_of(ctx)
    launches = []
    for index, node in enumerate(unit.items):
        if node.kind != "CALL_EXPR" or spelling_of(node.cursor) not in CONFIG_CALLS:
            continue
        launch = unit.parent(index)
        if launch < 0 or unit.items[launch].kind != "CALL_EXPR" or unit.is_device_only(
                unit.owner(launch)):
            continue
        launches.append(_launch(unit, launch, index))
    return tuple(sorted(launches, key=_start))


def _launch(unit: Unit, index: int, config_index: int) -> Launch:
    node = unit.items[index]
    template = node.template
    cursor, config = node.cursor, unit.items[config_index].cursor
    span = unit.span(cursor, template)
    config_span = unit.span(config, template)
    config_args = list(config.get_arguments())
    plain = span.macro is None
    exprs: list[Expr | None] = [
        unit.expr(a, template, plain) if has_file(a) else None for a in config_args[:4]]
    exprs += [None] * (4 - len(exprs))
    args = [unit.expr(a, template, plain) for a in cursor.get_arguments() if has_file(a)]
    callee = _callee_text(unit, cursor, span)
    if span.macro is None:
        exprs = _checked_config(unit, exprs, config_span, template)
    elif _incomplete(exprs, args):
        exprs, args, callee = _launch_from_macro(unit, index, config_index, span, exprs, args,
                                                 callee)
    forwarded = span.macro is not None and _forwarded(unit, span, exprs, args)
    frame, why = None, ""
    if span.macro is not None and not forwarded:
        frame, why = _framed(unit, span, exprs, args)
        if frame is None:
            unit.ctx.warn(f"launch inside macro '{span.macro}' cannot be rewritten (the macro is "
                          f"more than the launch; {why}); it will be left as is",
                          "launch-in-macro", span)
        else:
            unit.ctx.warn(f"launch inside macro '{span.macro}': the macro is more than the "
                          "launch; s2s mgpu rewrites it (in the #define when this file has it, "
                          "else by the macro's text at the call), the other passes leave it as "
                          "is", "launch-in-macro", span)
    kernel, template_args = _kernel_name(cursor, callee)
    grid, block, shared_bytes, stream = exprs
    empty = Expr("", span)
    deduced = None if template_args else deduced_arguments(cursor.referenced)
    instances: tuple[str, ...] = ()
    if node.template is not None and deduced is None:
        deduced, instances = _in_template(unit, index, cursor, kernel, template_args)
    resolved = deduced_arguments(cursor.referenced)
    types = () if resolved is None else tuple(
        a.type.spelling for a in cursor.referenced.get_arguments())
    return Launch(kernel=kernel, span=span, config_span=config_span, grid=grid or empty,
                  block=block or empty, shared_bytes=shared_bytes, stream=stream,
                  args=tuple(args), function=unit.function_name(index),
                  template_args=template_args, deduced_args=deduced, instances=instances,
                  resolved_args=resolved, instance_types=types, forwarded=forwarded,
                  macro_frame=frame, macro_why="" if frame else why,
                  through_pointer=_through_pointer(cursor))


def _through_pointer(cursor) -> bool:
    """Whether the launch's callee is a variable, parameter or member (a function pointer)."""
    ref = cursor.referenced
    return ref is not None and ref.kind.name in ("VAR_DECL", "PARM_DECL", "FIELD_DECL")


def _forwarded(unit: Unit, span: SourceSpan, exprs, args) -> bool:
    """The launch is a whole call of a macro that is only the launch, its texts all known."""
    call = unit.macros.call_at(span.start)
    if call is None or call.name != span.macro or (call.start, call.end) != (span.start, span.end):
        return False
    known = all(e is not None and e.text for e in exprs[:2]) and all(a.text for a in args)
    return known and unit.macros.forwards_launch(call)


def _framed(unit: Unit, span: SourceSpan, exprs, args) -> tuple[tuple[str, str] | None, str]:
    """The frame of a launch in a macro that does more than the launch (Launch.macro_frame),
    or None and why not, when the launch is the whole call and its texts are all known."""
    call = unit.macros.call_at(span.start)
    if call is None or (call.start, call.end) != (span.start, span.end):
        return None, "the launch is not the whole macro call"
    frame, why = launch_frame(unit.macros, call, span.macro)
    if frame is not None and not (all(e is not None and e.text for e in exprs[:2])
                                  and all(a.text for a in args)):
        return None, "the launch's texts are not known from the call"
    return frame, why


def _in_template(unit: Unit, index: int, cursor, kernel: str, written: str | None
                 ) -> tuple[str | None, tuple[str, ...]]:
    """A launch inside a function template: its kernel arguments in the template's terms
    (deduced ones only; written ones stay in the text) and the kernel instantiations of the
    file's instantiations of the template (s2s/frontend/cuda/templates.py)."""
    owner = unit.owner(index)
    template = find_kernel_template(unit, kernel, cursor)
    if owner < 0 or template is None:
        return None, ()
    caller = unit.functions[owner].node.cursor
    if kind_of(caller) != "FUNCTION_TEMPLATE":
        return None, ()
    arguments = written or kernel_arguments(
        template, [a.type.spelling for a in cursor.get_arguments()])
    if arguments is None:
        return None, ()
    instances = tuple(dict.fromkeys(
        substitute(arguments, values)
        for values in caller_instances(unit, caller, deduced_arguments)))
    return (None if written else arguments), instances


def deduced_arguments(function) -> str | None:
    """The template arguments of the specialization a call resolved to, as C++ text ('float,
    128'): types by their canonical spelling, integral values as numbers; None when the callee
    is no specialization (a plain function, or a call still dependent inside a template) or an
    argument is of another kind (a template, a pack, a declaration)."""
    if function is None or function.kind.name not in FUNCTION_KINDS:
        return None
    count = function.get_num_template_arguments()
    if count <= 0:
        return None
    parts = []
    for at in range(count):
        kind = function.get_template_argument_kind(at).name
        if kind == "TYPE":
            parts.append(function.get_template_argument_type(at).get_canonical().spelling)
        elif kind == "INTEGRAL":
            parts.append(str(function.get_template_argument_value(at)))
        else:
            return None
    return ", ".join(parts)


def _callee_text(unit: Unit, cursor, span: SourceSpan) -> str:
    children = list(cursor.get_children())
    if not children:
        return ""
    callee = unit.expr(children[0], None)
    return callee.text


def _kernel_name(cursor, callee: str) -> tuple[str, str | None]:
    """The kernel's name and explicit template arguments (``k<float, 256>`` -> 'float, 256')."""
    template_args = None
    head = callee
    if "<" in callee and callee.rstrip().endswith(">"):
        head, _, rest = callee.partition("<")
        template_args = rest.rstrip()[:-1].strip()
    ref = cursor.referenced
    if ref is not None and ref.kind.name in FUNCTION_KINDS and ref.spelling:
        return ref.spelling, template_args
    match = IDENT_AT_END.search(head)
    return (match.group(1) if match else head.strip()), template_args


def _checked_config(unit: Unit, exprs, config_span: SourceSpan, template: str | None):
    """Keep the config arguments libclang placed inside ``<<<...>>>``; re-split the text when a
    present argument has an odd extent (seen in dependent template code)."""
    present = [e for e in exprs if e is not None]
    if all(config_span.start < e.span.start <= e.span.end < config_span.end and e.text
           for e in present):
        return exprs
    text = unit.ctx.index.text(config_span.start, config_span.end)
    inner = text[3:-3] if text.startswith("<<<") and text.endswith(">>>") else text
    pieces = split_top(blank_literals(inner), 0, len(inner))
    out: list[Expr | None] = []
    for i, expr in enumerate(exprs):
        if i < len(pieces):
            start, end = (config_span.start + 3 + p for p in pieces[i])
            out.append(Expr(inner[pieces[i][0] : pieces[i][1]],
                            unit.span_of(start, end, template)))
        else:
            out.append(None if expr is None else expr)
    return out


def _incomplete(exprs, args) -> bool:
    return any(e is not None and not e.text for e in exprs) or any(not a.text for a in args)


def _launch_from_macro(unit: Unit, index: int, config_index: int, span: SourceSpan, exprs,
                       args, callee: str):
    """Fill the texts libclang cannot give (code of the macro's body) from its expansion."""
    call = unit.macros.call_at(span.start)
    expansion = unit.macros.expansion(call) if call else None
    parsed = None
    if expansion is not None:
        parsed = parse_launch_text(expansion, unit.occurrence(config_index, call))
    if parsed is None:
        return exprs, args, callee
    exprs = [e if e is None or e.text or i >= len(parsed.config)
             else Expr(parsed.config[i].strip(), e.span) for i, e in enumerate(exprs)]
    if len(parsed.args) == len(args):
        args = [a if a.text else Expr(t.strip(), a.span) for a, t in zip(args, parsed.args, strict=True)]
    if not callee:
        callee = parsed.kernel + (f"<{parsed.template_args}>" if parsed.template_args else "")
    return exprs, args, callee


# --- runtime API calls ---------------------------------------------------------------------


def extract_api_calls(ctx: ExtractContext) -> tuple[ApiCall, ...]:
    """Every call of a CUDA runtime function in host code, with its category."""
    unit = unit_of(ctx)
    calls = []
    for index, node in enumerate(unit.items):
        if node.kind != "CALL_EXPR":
            continue
        name = unit.call_name(index)
        if not name.startswith("cuda") or unit.is_device_only(unit.owner(index)):
            continue
        ref = node.cursor.referenced
        if ref is not None and ctx.in_main_file(ref):
            continue  # the user's own cuda* helper
        if ref is not None and ref.kind.name in ("CONSTRUCTOR", "CONVERSION_FUNCTION"):
            continue  # a CUDA type's construction (cudaDeviceProp prop;), not a call
        if ref is None and name not in API_CATEGORY:
            continue
        span, args = unit.call_args(index, node.template)
        calls.append(ApiCall(name=name, category=api_category(name), args=args, span=span,
                             function=unit.function_name(index)))
    return tuple(sorted(calls, key=_start))


__all__ = ["api_category", "device_call_category", "extract_api_calls", "extract_kernels",
           "extract_launches"]
