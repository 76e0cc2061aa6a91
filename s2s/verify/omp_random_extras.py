"""Helper functions of the random OpenMP programs that use newer patterns of ``s2s omp``.

Why a module of its own: :mod:`s2s.verify.omp_random` writes the program's main function;
these are the self-contained helper definitions it calls, each a C text with the same
exactness rules (small integers in doubles, ``fmod`` by the program's modulus, a kernel
writes element ``i`` only and reads what it writes only at ``i``):

* function-local arrays used by kernels (:func:`local_helper`): a VLA ``double tmp[len]``,
  fixed arrays ``double w[16]``, ``static`` tables filled once behind a flag (``s2s omp``
  enters those once), refilled on every call or changed again after the fill (it must not),
  and a ``static`` accumulator the kernels write;
* struct members pulled into local pointers (:func:`struct_helper`): ``double *a = f->a;``
  then a kernel on the locals, as in LULESH;
* host functions called after the device work (:func:`tail_helper`): ones that touch no
  array, another array, a global, or that read a mapped array through a parameter.

Standard library only.
"""

from __future__ import annotations

LOCAL_KINDS = ("vla", "vla_init", "vla_loop", "fixed", "static_once", "static_once_modified",
               "static_every", "static_acc")
STRUCT_KINDS = ("axpy", "smooth", "sum")
TAIL_KINDS = ("note", "bump", "peek", "glob", "member")

_DIRECTIVE = "#pragma omp target teams distribute parallel for"


def local_helper(kind: str, name: str, mod: int, to: str, variant: int) -> list[str]:
    """``static double name(int len, double *dst, const double *src)`` with a local array of
    kind ``kind`` that its kernels use; returns a value the host read from the local array
    (so a missing copy back shows). ``to``: the map type of read-only arrays; ``variant``
    (0..3) picks small variations (partial writes, a second kernel, the host read)."""
    head = [f"static double {name}(int len, double *dst, const double *src)", "{"]
    maps = f"map(tofrom: dst[0:len]) map({to}: src[0:len])"
    if kind in ("vla", "vla_init"):
        lo = "1" if kind == "vla_init" and variant % 2 else "0"
        keep = "tmp[i] + " if kind == "vla_init" and variant >= 2 else ""
        body = ["    double tmp[len];"]
        if kind == "vla_init":
            body += ["    for (int i = 0; i < len; ++i)", "        tmp[i] = (double)(i % 5);"]
        body += [f"{_DIRECTIVE} map({to}: src[0:len])",
                 f"    for (int i = {lo}; i < len; ++i)",
                 f"        tmp[i] = fmod({keep}3.0 * src[i] + 1.0, {mod}.0);",
                 f"{_DIRECTIVE} map(tofrom: dst[0:len])",
                 "    for (int i = 0; i < len; ++i)",
                 f"        dst[i] = fmod(dst[i] + tmp[(i * 7 + 3) % len], {mod}.0);"]
        back = "tmp[len / 2] + tmp[0]" if variant != 1 else "0.0"
        return head + body + [f"    return {back};", "}", ""]
    if kind == "vla_loop":
        lo = "1" if variant % 2 else "0"
        body = ["    double tmp[len];", "    for (int i = 0; i < len; ++i)",
                "        tmp[i] = (double)(i % 3);",
                "    for (int pass = 0; pass < 2; ++pass) {",
                f"{_DIRECTIVE} map(tofrom: dst[0:len])",
                "        for (int i = 0; i < len; ++i)",
                f"            dst[i] = fmod(dst[i] + tmp[(i * 5 + pass) % len], {mod}.0);",
                f"{_DIRECTIVE} map({to}: src[0:len])",
                f"        for (int i = {lo}; i < len; ++i)",
                f"            tmp[i] = fmod(tmp[i] + src[i] + pass, {mod}.0);"]
        if variant >= 2:
            body += [f"        tmp[0] = fmod(tmp[0] + 1.0, {mod}.0);"]
        back = "tmp[1]" if variant % 2 else "0.0"
        return head + body + ["    }", f"    return {back};", "}", ""]
    if kind == "fixed":
        body = ["    double w[16];", "    double part[16];",
                "    for (int k = 0; k < 16; ++k)", f"        w[k] = (double)((k * 3 + {variant}) % 7 + 1);",
                f"{_DIRECTIVE} map({to}: src[0:len])",
                "    for (int b = 0; b < 16; ++b) {", "        double s = 0.0;",
                "        for (int i = b; i < len; i += 16)", "            s += src[i];",
                f"        part[b] = fmod(s, {mod}.0);", "    }",
                f"{_DIRECTIVE} {maps}",
                "    for (int i = 0; i < len; ++i)",
                f"        dst[i] = fmod(dst[i] + w[i % 16] * src[i] + part[i % 16], {mod}.0);",
                "    double got = 0.0;", "    for (int b = 0; b < 16; ++b)", "        got += part[b];"]
        return head + body + ["    return got;", "}", ""]
    if kind in ("static_once", "static_once_modified", "static_every"):
        body = ["    static double tab[32];"]
        if kind == "static_every":
            body += ["    static int calls = 0;", "    ++calls;",
                     "    for (int k = 0; k < 32; ++k)",
                     "        tab[k] = (double)((k * 5 + calls) % 11);"]
        else:
            body += ["    static int ready = 0;", "    if (!ready) {",
                     "        for (int k = 0; k < 32; ++k)",
                     f"            tab[k] = (double)((k * 5 + {variant + 3}) % 11);",
                     "        ready = 1;", "    }"]
            if kind == "static_once_modified":
                body += ["    static int calls = 0;",
                         "    tab[calls % 32] = fmod(tab[calls % 32] + 1.0, 11.0);", "    ++calls;"]
        body += [f"{_DIRECTIVE} {maps}",
                 "    for (int i = 0; i < len; ++i)",
                 f"        dst[i] = fmod(dst[i] + tab[i % 32] + src[i], {mod}.0);"]
        back = "tab[3]" if variant % 2 == 0 else "0.0"
        return head + body + [f"    return {back};", "}", ""]
    if kind == "static_acc":
        keep = "acc[b] + " if variant % 2 else ""
        body = ["    static double acc[16];",
                f"{_DIRECTIVE} map({to}: src[0:len])",
                "    for (int b = 0; b < 16; ++b)",
                f"        acc[b] = fmod({keep}src[b * (len / 16)] + 1.0, {mod}.0);",
                f"{_DIRECTIVE} {maps}",
                "    for (int i = 0; i < len; ++i)",
                f"        dst[i] = fmod(dst[i] + acc[i % 16], {mod}.0);"]
        back = "acc[0] + acc[15]" if variant < 2 else "0.0"
        return head + body + [f"    return {back};", "}", ""]
    raise ValueError(kind)


def struct_type(type_name: str, members: list[str]) -> list[str]:
    return ["typedef struct {", f"    double {', '.join('*' + m for m in members)};",
            "    int n;", f"}} {type_name};", ""]


def struct_helper(kind: str, name: str, type_name: str, dst: str, src: str, mod: int,
                  to: str) -> list[str]:
    """A helper taking ``type_name *f`` that pulls members ``dst``/``src`` into locals and
    runs a kernel on them (``sum``: a reduction over ``dst`` returned to the caller)."""
    if kind == "sum":
        return [f"static double {name}({type_name} *f)", "{",
                f"    const double *{dst} = f->{dst};", "    const int len = f->n;",
                "    double s = 0.0;",
                f"{_DIRECTIVE} reduction(+:s) map(tofrom: s) map({to}: {dst}[0:len])",
                "    for (int i = 0; i < len; ++i)", f"        s += {dst}[i];",
                "    return s;", "}", ""]
    pull = [f"    double *{dst} = f->{dst}, *{src} = f->{src};", "    const int len = f->n;"]
    maps = f"map(tofrom: {dst}[0:len]) map({to}: {src}[0:len])"
    if kind == "axpy":
        loop = ["    for (int i = 0; i < len; ++i)",
                f"        {dst}[i] = fmod({dst}[i] + 2.0 * {src}[i] + 1.0, {mod}.0);"]
    else:
        loop = ["    for (int i = 1; i < len - 1; ++i)",
                f"        {dst}[i] = fmod({src}[i - 1] + 2.0 * {src}[i] + {src}[i + 1], {mod}.0);"]
    return [f"static void {name}({type_name} *f)", "{", *pull, f"{_DIRECTIVE} {maps}", *loop,
            "}", ""]


def tail_helper(kind: str, name: str, mod: int, glob: str | None = None,
                type_name: str | None = None, member: str | None = None) -> list[str]:
    """A host function called after the device work: ``note`` touches no array, ``bump``
    rewrites the array it gets, ``peek`` reads two elements of it, ``glob`` reads the
    global ``glob``, ``member`` reads an element of the struct member ``member``."""
    if kind == "note":
        return [f"static void {name}(int steps)", "{",
                '    printf("finished after %d steps\\n", steps);', "}", ""]
    if kind == "bump":
        return [f"static void {name}(int len, double *x)", "{",
                "    for (int i = 0; i < len; ++i)",
                f"        x[i] = fmod(x[i] + (double)(i % 3) + 1.0, {mod}.0);", "}", ""]
    if kind == "peek":
        return [f"static double {name}(const double *x, int len)", "{",
                "    return x[len / 3] + 2.0 * x[len - 2];", "}", ""]
    if kind == "glob":
        return [f"static double {name}(void)", "{", f"    return {glob}[5] + {glob}[GN - 1];",
                "}", ""]
    if kind == "member":
        return [f"static double {name}(const {type_name} *f)", "{",
                f"    return f->{member}[1] + f->{member}[f->n / 2];", "}", ""]
    raise ValueError(kind)
