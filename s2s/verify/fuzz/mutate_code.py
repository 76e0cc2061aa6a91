"""Mutations of code: damaged ``#pragma omp`` lines and ``<<<...>>>`` launches, and
changes that mostly keep the program valid (statements, operators, OpenMP maps, CUDA calls)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from s2s.verify.fuzz.mutate_bytes import Mutant, m_delete_tokens, m_preprocessor, split_lines, token_spans

PRAGMA_LINE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+omp\b(?:[^\n]*\\\r?\n)*[^\n]*", re.M)
_CLAUSE = re.compile(rb"\b\w+\s*\((?:[^()]|\([^()]*\))*\)")


def m_pragma(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Damage one or two ``#pragma omp`` directives (OpenMP files)."""
    pragmas = list(PRAGMA_LINE.finditer(data))
    if not pragmas:
        return m_preprocessor(rng, data, m)
    for _ in range(rng.randint(1, 2)):
        pragmas = list(PRAGMA_LINE.finditer(data))
        if not pragmas:
            break
        match = rng.choice(pragmas)
        start, end = match.span()
        text = match.group()
        clauses = list(_CLAUSE.finditer(text))
        op = rng.choice(["drop-clause", "dup-clause", "bad-map-type", "unclose", "garbage",
                         "split", "drop-omp", "rename", "empty-clause", "section", "move",
                         "duplicate", "dangling", "map-self", "unknown-var", "to-pragma-op"])
        m.steps.append(f"pragma at {start}: {op}")
        if op == "drop-clause" and clauses:
            c = rng.choice(clauses)
            text = text[:c.start()] + text[c.end():]
        elif op == "dup-clause" and clauses:
            c = rng.choice(clauses)
            text = text + b" " + c.group()
        elif op == "bad-map-type":
            new = rng.choice([b"tofrom", b"to", b"from", b"alloc", b"release", b"delete",
                              b"always, to", b"frmo", b"", b"present, alloc", b"to:from"])
            text = re.sub(rb"map\s*\(\s*[\w ,]*:", b"map(" + new + b":", text, count=1)
        elif op == "unclose":
            at = text.rfind(b")")
            if at >= 0:
                text = text[:at] + text[at + 1:]
        elif op == "garbage":
            text = text + b" " + rng.choice([b"map(", b")", b"((", b"nowait nowait", b"if(",
                                             b"collapse(0)", b"collapse(-1)", b"depend(in:",
                                             b"reduction(+:", b"num_teams()", b"\\"])
        elif op == "split":
            cut = rng.randrange(len(text) + 1)
            text = text[:cut] + rng.choice([b" \\\n", b" \\\r\n", b"\\\n", b" \\ \n"]) + text[cut:]
        elif op == "drop-omp":
            text = text.replace(b"omp", b"", 1)
        elif op == "rename":
            text = re.sub(rb"\b(target|data|teams|distribute|parallel|for|update|enter|exit)\b",
                          lambda w: rng.choice([b"targte", b"", w.group() + w.group(), b"simd",
                                                b"end", b"declare"]), text, count=1)
        elif op == "empty-clause":
            text = re.sub(rb"\(([^()]*)\)", b"()", text, count=1)
        elif op == "section":
            new = rng.choice([b"[0:]", b"[:]", b"[-1:n]", b"[0:n:2]", b"[n]", b"[0:0]",
                              b"[][]", b"[0:n][0:m]", b"[", b"[0:99999999999999999999]"])
            text = re.sub(rb"\[[^\]]*\]", new, text, count=1)
        elif op == "map-self":
            text = text + b" map(tofrom: " + text.split()[-1] + b")"
        elif op == "unknown-var":
            text = text + b" map(to: s2s_nowhere[0:10])"
        elif op == "to-pragma-op":
            inner = text.split(b"pragma", 1)[1].replace(b"\\\n", b" ").replace(b'"', b'\\"')
            text = b'_Pragma("' + inner.strip() + b'")'
        elif op in ("move", "duplicate", "dangling"):
            lines = split_lines(data[:start] + data[end:] if op == "move" else data)
            where = rng.randrange(len(lines) + 1)
            if op == "dangling":  # a directive right before a closing brace or at the end
                closers = [i for i, line in enumerate(lines) if line.strip() == b"}"]
                where = rng.choice(closers) if closers else len(lines)
            lines.insert(where, text)
            data = b"\n".join(lines)
            continue
        data = data[:start] + text + data[end:]
    return data


_LAUNCH = re.compile(rb"<<<(.*?)>>>", re.S)


def m_launch(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Damage one ``<<<...>>>`` kernel launch (CUDA files)."""
    launches = list(_LAUNCH.finditer(data))
    if not launches:
        return m_delete_tokens(rng, data, m)
    match = rng.choice(launches)
    op = rng.choice(["empty", "one", "five", "garbage", "split", "unclose", "drop-args",
                     "nested", "template", "twice"])
    m.steps.append(f"launch at {match.start()}: {op}")
    config = match.group(1)
    new = {
        "empty": lambda: b"<<<>>>",
        "one": lambda: b"<<<" + config.split(b",")[0] + b">>>",
        "five": lambda: b"<<<" + config + b", 0, 0, 0>>>",
        "garbage": lambda: b"<<<" + config + b" ;{ >>>",
        "split": lambda: b"<< <" + config + b">> >",
        "unclose": lambda: b"<<<" + config,
        "drop-args": lambda: b"<<<" + config + b">>>;",
        "nested": lambda: b"<<<" + config + b">>>(0)<<<1, 1>>>",
        "template": lambda: b"<float><<<" + config + b">>>",
        "twice": lambda: b"<<<" + config + b">>><<<" + config + b">>>",
    }[op]()
    end = match.end()
    if op == "drop-args":  # also remove the argument list
        close = data.find(b")", end)
        end = close + 1 if close >= 0 else end
    return data[:match.start()] + new + data[end:]


_KEYWORDS = frozenset((
    "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch typedef "
    "union unsigned void volatile while bool true false class new delete template typename this "
    "namespace using operator public private protected virtual size_t dim3 nullptr NULL "
    "__global__ __device__ __host__ __shared__ __restrict__ threadIdx blockIdx blockDim gridDim "
    "pragma omp include define printf malloc free main").split())
_DECL_START = re.compile(rb"^\s*(?:const\s+|static\s+|unsigned\s+|struct\s+)*(?:int|float|double|"
                         rb"char|long|short|size_t|bool|auto|dim3|void|cudaError_t|cudaStream_t|"
                         rb"cudaEvent_t|[A-Z]\w*)\b[\s*&]*\w")


def _balanced(line: bytes) -> bool:
    depth = 0
    for start, end in token_spans(line):
        token = line[start:end]
        if token in (b"(", b"[", b"{"):
            depth += 1
        elif token in (b")", b"]", b"}"):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _statement_lines(lines: list[bytes], declarations: bool = True) -> list[int]:
    """Lines holding one whole statement (``...;`` with balanced brackets, no directive)."""
    out = []
    for i, line in enumerate(lines):
        text = line.strip()
        if not text.endswith(b";") or text.startswith((b"#", b"//", b"/*", b"}", b"*")):
            continue
        if text.startswith((b"for", b"while", b"if", b"else", b"do", b"typedef", b"extern",
                            b"return")) or b"//" in text:
            continue
        if not declarations and _DECL_START.match(line):
            continue
        if _balanced(line):
            out.append(i)
    return out


def _indent(line: bytes) -> bytes:
    return line[:len(line) - len(line.lstrip())]


def m_statements(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Statement-level changes that mostly keep the file compiling (they reach the analyses)."""
    lines = split_lines(data)
    op = rng.choice(["delete", "duplicate", "swap", "wrap-if", "wrap-if0", "wrap-loop",
                     "wrap-do", "wrap-block", "goto", "move", "else"])
    candidates = _statement_lines(lines, declarations=op in ("delete", "swap", "move"))
    if not candidates:
        return m_delete_tokens(rng, data, m)
    i = rng.choice(candidates)
    line = lines[i]
    pad = _indent(line)
    m.steps.append(f"{op} line {i + 1}")
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, line)
    elif op == "swap":
        near = [j for j in candidates if j != i and abs(j - i) <= 6]
        if near:
            j = rng.choice(near)
            lines[i], lines[j] = lines[j], lines[i]
    elif op == "move":
        near = [j for j in candidates if j != i and abs(j - i) <= 25]
        if near:
            lines.insert(rng.choice(near), lines.pop(i))
    elif op == "goto":
        lines[i] = line + b" goto s2s_fz_" + str(i).encode() + b"; s2s_fz_" + \
            str(i).encode() + b": ;"
    else:
        head, tail = {
            "wrap-if": (b"if (sizeof(int) == 4) {", b"}"),
            "wrap-if0": (b"if (0) {", b"}"),
            "wrap-loop": (b"for (int s2s_r = 0; s2s_r < 2; ++s2s_r) {", b"}"),
            "wrap-do": (b"do {", b"} while (0);"),
            "wrap-block": (b"{", b"}"),
            "else": (b"if (sizeof(int) != 4) { ; } else {", b"}"),
        }[op]
        lines[i] = pad + head + b" " + line.strip() + b" " + tail
    return b"\n".join(lines)


_OPERATOR_SWAPS = {
    b"+": (b"-",), b"-": (b"+",), b"/": (b"*",), b"%": (b"/",),
    b"<": (b"<=", b">", b"!="), b"<=": (b"<", b">="), b">": (b">=", b"<"), b">=": (b">",),
    b"==": (b"!=",), b"!=": (b"==", b"<"), b"&&": (b"||",), b"||": (b"&&",),
    b"++": (b"--",), b"--": (b"++",), b"+=": (b"-=", b"="), b"-=": (b"+=",), b"*=": (b"+=",),
}
_CONSTANTS = (b"0", b"1", b"2", b"3", b"-1", b"7", b"64", b"1024", b"65536", b"2147483647",
              b"4294967296", b"(1 << 20)", b"0x7fffffff")
def m_operators(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Swap operators, numbers, and array or index names used nearby (often still valid)."""
    tokens = token_spans(data)
    spans: dict[str, list[tuple[int, int]]] = {"operator": [], "number": [], "array": [],
                                               "index": []}
    directive_lines = {i for i, line in enumerate(split_lines(data))
                       if line.lstrip().startswith(b"#") and b"pragma" not in line}
    line_of = _line_index(data)
    text = [data[a:b] for a, b in tokens]
    scope: dict[int, int] = {}  # token start -> number of the top-level block holding it
    depth, block = 0, -1
    for k, (start, end) in enumerate(tokens):
        token = text[k]
        if token == b"{":
            depth += 1
            block += depth == 1
        elif token == b"}":
            depth = max(depth - 1, 0)
        scope[start] = block if depth else -1
        if line_of(start) in directive_lines:
            continue
        nxt = text[k + 1] if k + 1 < len(text) else b""
        prev = text[k - 1] if k else b""
        if token in _OPERATOR_SWAPS:
            spans["operator"].append((start, end))
        elif re.fullmatch(rb"\d+[uUlL]*", token):
            spans["number"].append((start, end))
        elif re.fullmatch(rb"[A-Za-z_]\w*", token) and token.decode() not in _KEYWORDS:
            if nxt == b"[":
                spans["array"].append((start, end))
            elif prev in (b"[", b"<", b"<=", b"+", b"-") or nxt in (b"]", b"<", b"<="):
                spans["index"].append((start, end))
    edits = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice([k for k, v in spans.items() if v] or ["operator"])
        if not spans.get(kind):
            break
        start, end = rng.choice(spans[kind])
        token = data[start:end]
        if kind == "operator":
            new = rng.choice(_OPERATOR_SWAPS[token])
        elif kind == "number":
            new = rng.choice(_CONSTANTS)
        else:
            near = sorted({data[a:b] for a, b in spans[kind]
                           if scope[a] == scope[start] >= 0} - {token})
            new = rng.choice(near) if near else token
        edits.append((start, end, new))
        m.steps.append(f"{token.decode(errors='replace')} -> {new.decode()} at {start}")
    for start, end, new in sorted(set(edits), reverse=True):
        data = data[:start] + new + data[end:]
    return data


def _line_index(data: bytes) -> Callable[[int], int]:
    import bisect

    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 0x0A]
    return lambda offset: bisect.bisect_right(starts, offset) - 1


_MAP_TYPE = re.compile(rb"(map\s*\(\s*(?:always\s*,\s*)?)(tofrom|to|from|alloc)\s*:")
_MAP_CLAUSE = re.compile(rb"\s*\bmap\s*\((?:[^()]|\([^()]*\))*\)")
_ZERO_SECTION = re.compile(rb"\[(\s*0\s*):([^\]]+)\]")
_KERNEL_WORDS = re.compile(rb"target teams distribute parallel for simd|target teams distribute "
                           rb"parallel for|target parallel for|target teams loop")
_MAP_ITEM = re.compile(rb"\b(map|to|from)\s*\(([^():]*:)?\s*(\w+)\s*\[")


def m_pragma_valid(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """Changes of ``#pragma omp`` lines that keep them valid OpenMP (OpenMP files)."""
    pragmas = list(PRAGMA_LINE.finditer(data))
    arrays = sorted({g.group(3) for p in pragmas for g in _MAP_ITEM.finditer(p.group())})
    lines = split_lines(data)
    op = rng.choice(["map-type", "drop-map", "add-clause", "section", "directive",
                     "insert-update", "insert-data", "unpaired-enter", "if-clause"])
    if not pragmas or (not arrays and op in ("insert-update", "insert-data", "unpaired-enter")):
        return m_statements(rng, data, m)
    m.steps.append(op)
    if op in ("insert-update", "insert-data", "unpaired-enter"):
        array = rng.choice(arrays)
        section = rng.choice([b"[0:1]", b"[0:2]", b"[1:1]", b"[:1]"])
        candidates = _statement_lines(lines, declarations=False)
        if not candidates:
            return data
        i = rng.choice(candidates)
        pad = _indent(lines[i])
        if op == "insert-update":
            clause = rng.choice([b"from", b"to"])
            lines.insert(i + 1, pad + b"#pragma omp target update " + clause + b"(" + array
                         + section + b")")
        elif op == "unpaired-enter":
            lines.insert(i, pad + b"#pragma omp target enter data map(to: " + array + section
                         + b")")
        else:
            lines[i] = (pad + b"#pragma omp target data map(tofrom: " + array + section
                        + b")\n" + pad + b"{ " + lines[i].strip() + b" }")
        m.steps[-1] += f" {array.decode()}{section.decode()} at line {i + 1}"
        return b"\n".join(lines)
    applies = {"map-type": _MAP_TYPE, "drop-map": _MAP_CLAUSE, "section": _ZERO_SECTION,
               "directive": _KERNEL_WORDS, "add-clause": re.compile(rb"target(?! update)"),
               "if-clause": re.compile(rb"target(?! (?:update|data|enter|exit))")}[op]
    fitting = [p for p in pragmas if applies.search(p.group())]
    if not fitting:
        fitting, op = pragmas, "add-clause"
        m.steps[-1] = op
    match = rng.choice(fitting)
    start, end = match.span()
    text = match.group()
    if op == "map-type":
        text = _MAP_TYPE.sub(lambda g: g.group(1) + rng.choice(
            [t for t in (b"to", b"from", b"tofrom", b"alloc") if t != g.group(2)]) + b":",
            text, count=1)
    elif op == "drop-map":
        text = _MAP_CLAUSE.sub(b"", text, count=1)
    elif op == "add-clause":
        text = text + b" " + rng.choice([b"nowait", b"num_teams(4)", b"thread_limit(64)",
                                         b"collapse(1)", b"if(1)", b"if(target: 0)"])
    elif op == "if-clause":
        text = text + rng.choice([b" if(0)", b" if(1)", b" device(0)"])
    elif op == "section":
        text = _ZERO_SECTION.sub(lambda g: rng.choice(
            [b"[0:(" + g.group(2) + b")/2]", b"[1:(" + g.group(2) + b")-1]", b"[0:1]",
             b"[:" + g.group(2) + b"]", b"[" + g.group(2) + b"-1:1]"]), text, count=1)
    elif op == "directive":
        text = _KERNEL_WORDS.sub(lambda g: rng.choice(
            [w for w in (b"target parallel for", b"target teams distribute parallel for",
                         b"target teams loop", b"target teams distribute parallel for simd")
             if w != g.group()]), text, count=1)
    m.steps[-1] += f" at {start}"
    return data[:start] + text + data[end:]


_MEMCPY_KIND = re.compile(rb"cudaMemcpy(HostToDevice|DeviceToHost|DeviceToDevice|Default)\b")
_MALLOC_TARGET = re.compile(rb"cudaMalloc\s*\(\s*(?:\(\s*void\s*\*\*\s*\)\s*)?&\s*(\w+)")


def m_cuda_valid(rng: random.Random, data: bytes, m: Mutant) -> bytes:
    """CUDA host-code and kernel changes that mostly keep the file compiling (CUDA files)."""
    lines = split_lines(data)
    op = rng.choice(["memcpy-kind", "memcpy-swap", "launch-config", "dup-launch", "drop-call",
                     "sync", "syncthreads", "early-return", "alias", "dup-memcpy"])
    m.steps.append(op)
    if op == "memcpy-kind":
        kinds = list(_MEMCPY_KIND.finditer(data))
        if kinds:
            k = rng.choice(kinds)
            new = rng.choice([b"HostToDevice", b"DeviceToHost", b"DeviceToDevice", b"Default"])
            return data[:k.start(1)] + new + data[k.end(1):]
    elif op == "memcpy-swap":
        calls = list(re.finditer(rb"cudaMemcpy\s*\(\s*([^,()]+),\s*([^,()]+),", data))
        if calls:
            c = rng.choice(calls)
            return data[:c.start(1)] + c.group(2) + b", " + c.group(1) + data[c.end(2):]
    elif op == "launch-config":
        launches = list(_LAUNCH.finditer(data))
        if launches:
            launch = rng.choice(launches)
            parts = launch.group(1).split(b",")
            new = rng.choice([b"1, 1", b"1, 32", b"dim3(2, 2), dim3(8, 8)",
                              parts[0] + b", " + (parts[1] if len(parts) > 1 else b"1") + b", 256",
                              launch.group(1) + (b", 0, 0" if len(parts) < 3 else b""),
                              b"(" + parts[0] + b") * 2, " + (parts[1] if len(parts) > 1
                                                              else b"1")])
            return data[:launch.start(1)] + new + data[launch.end(1):]
    elif op in ("dup-launch", "dup-memcpy", "drop-call"):
        pattern = {b"dup-launch": rb"<<<", b"dup-memcpy": rb"cudaMemcpy\w*\s*\(",
                   b"drop-call": rb"cuda(?:Memcpy|Free|Malloc|DeviceSynchronize)\w*\s*\("}[
            op.encode()]
        found = [i for i, line in enumerate(lines) if re.search(pattern, line)
                 and line.rstrip().endswith(b";") and _balanced(line)]
        if found:
            i = rng.choice(found)
            if op == "drop-call":
                del lines[i]
            else:
                lines.insert(i, lines[i])
            m.steps[-1] += f" line {i + 1}"
            return b"\n".join(lines)
    elif op in ("syncthreads", "early-return"):
        kernels = [k.end() for k in re.finditer(rb"__global__[^{;]*\{", data)]
        if kernels:
            at = rng.choice(kernels)
            text = b" __syncthreads(); " if op == "syncthreads" else \
                b" if (threadIdx.x == 7) return; "
            return data[:at] + text + data[at:]
    elif op == "alias":
        targets = list(_MALLOC_TARGET.finditer(data))
        if targets:
            t = rng.choice(targets)
            eol = data.find(b"\n", t.end())
            eol = len(data) if eol < 0 else eol
            name = t.group(1)
            return (data[:eol] + b"\n{ __typeof__(" + name + b") s2s_alias = " + name + b"; "
                    + name + b" = s2s_alias; }" + data[eol:])
    elif op == "sync":
        candidates = _statement_lines(lines, declarations=False)
        if candidates:
            i = rng.choice(candidates)
            lines.insert(i + 1, _indent(lines[i]) + b"cudaDeviceSynchronize();")
            return b"\n".join(lines)
    return m_statements(rng, data, m)
