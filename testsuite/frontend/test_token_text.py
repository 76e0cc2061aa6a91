"""Bytes that are not UTF-8 inside tokens (comments, strings) never make an internal error.

Found by the fuzzer (``python scripts/bench_fuzz.py --seeds 467``: a ``/* \\xff\\xfe */``
comment in backprop_layer.c): ``clang.cindex.Token.spelling`` decodes strictly, and three
walks over a cursor's tokens reached such a comment: the integer literal of a macro
(``a[N]``: its token range runs from the ``#define`` to the use), the ``for`` header of a
kernel loop, and a ``threadIdx.x`` member. Each gave "internal error while processing this
file: UnicodeDecodeError" for the whole file, in every subcommand.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from s2s.cli.main import main
from s2s.frontend.core import token_text

CASES = {
    "macro_literal.c": b"#define N 4\nvoid f(double *a) {\n  for (int k = 0;\n/* \xff */\n"
                       b" k < N; ++k)\n    a[N] = k;\n}\n",
    "for_header.cu": b"__global__ void k(float *a, int n) {\n"
                     b"  for (int i = threadIdx.x; /* \xff */ i < n; i += blockDim.x)\n"
                     b"    a[i] = 0;\n}\n",
    "macro_builtin.cu": b"#define TX threadIdx.x /* \xe9 */\n__global__ void k(float *a) {\n"
                        b"  a[TX] = 0;\n}\n",
    "member.cu": b"__global__ void k(float *a) {\n  a[threadIdx /* \xc0\xaf */ .x] = 0;\n}\n",
}


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("command", ["inspect", "omp", "mgpu"])
def test_bad_utf8_in_a_token_is_no_internal_error(tmp_path, name, command):
    path = tmp_path / name
    path.write_bytes(CASES[name])
    code, _out, err = _run([command, "--cuda-path", "shim", str(path)])
    assert "[internal]" not in err and "UnicodeDecodeError" not in err, err
    assert code == 0, err


def test_kernels_are_read_through_the_bad_comment():
    from s2s.frontend.core.parse import ParseOptions
    from s2s.frontend.core.toolchain import default_toolchain
    from s2s.frontend.extract import load

    options = ParseOptions(toolchain=default_toolchain(None))
    for name in ("for_header.cu", "member.cu"):
        loaded = load(name, options, source=CASES[name])
        assert loaded.model is not None
        assert not [d for d in loaded.diagnostics if d.id == "internal"]
        assert [k.name for k in loaded.model.kernels] == ["k"]


def test_spelling_keeps_the_bytes(tmp_path):
    from clang import cindex

    from s2s.frontend.core.toolchain import configure_libclang

    configure_libclang()
    path = tmp_path / "t.c"
    path.write_bytes(b"int x; /* caf\xe9 */\n")
    unit = cindex.Index.create().parse(str(path), options=0x01)  # detailed preprocessing
    texts = [token_text.spelling(t) for t in unit.cursor.get_tokens()]
    assert texts[:3] == ["int", "x", ";"]
    assert texts[3].encode("utf-8", "surrogateescape") == b"/* caf\xe9 */"
