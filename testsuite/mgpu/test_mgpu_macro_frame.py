"""``s2s mgpu`` on launches through a project header's macro that does more than the launch
(issue 29, item 4): the call is replaced by the macro's text around the rewritten launch when
the body's launch names only the macro's parameters, else refused with the reason."""

from __future__ import annotations

from dataclasses import replace

import pytest

from s2s.driver import RunOptions, process_file
from s2s.frontend.core.parse import ParseOptions
from s2s.transform.mgpu import run_mgpu

HEADER = """\
#pragma once
#include <cstdio>
static void check_launch(const char *name)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) fprintf(stderr, "%s:  %s\\n", name, cudaGetErrorString(e));
}
#define LAUNCH_CHECK(k, g, b, ...)            \\
    do {                                      \\
        k<<<g, b>>>(__VA_ARGS__);             \\
        check_launch(#k);                     \\
    } while (0)
#define LAUNCH_FIXED(k, n, ...)               \\
    do {                                      \\
        k<<<((n) + 127) / 128, 128>>>(__VA_ARGS__); \\
        check_launch(#k);                     \\
    } while (0)
"""
MAIN = """\
#include "util.cuh"
__global__ void scale(float *x, float a, int n)
{{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}}
void run(float *d, int n)
{{
    {call};
}}
"""


def _rewrite(tmp_path, call: str):
    (tmp_path / "inc").mkdir(exist_ok=True)
    (tmp_path / "inc" / "util.cuh").write_text(HEADER)
    path = tmp_path / "main.cu"
    path.write_text(MAIN.format(call=call))
    parse = replace(ParseOptions(), user_flags=("-Iinc",))
    return process_file(str(path), RunOptions(parse=parse), run_mgpu)


def test_call_replaced_by_the_macro_text_around_the_rewritten_launch(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _rewrite(tmp_path, "LAUNCH_CHECK(scale, (n + 127) / 128, 128, d, 2.0f, n)")
    assert result.change.changed
    after = result.change.after.decode()
    assert ('    do { s2s_mgpu_launch(scale, (n + 127) / 128, 128)(d, 2.0f, n); '
            'check_launch("scale"); } while (0);\n') in after
    assert "LAUNCH_CHECK" not in after
    assert not [d for d in result.diagnostics if d.id == "mgpu-launch"]
    assert (tmp_path / "inc" / "util.cuh").read_text() == HEADER      # the header untouched


def test_body_launch_with_its_own_text_is_refused_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _rewrite(tmp_path, "LAUNCH_FIXED(scale, n, d, 2.0f, n)")
    said = [d.message for d in result.diagnostics if d.id == "mgpu-launch"]
    assert len(said) == 1
    assert "the launch uses '((n) + 127) / 128', which is not one of the macro's parameters" \
        in said[0]
    assert getattr(result, "change", None) is None or not result.change.changed


@pytest.mark.parametrize("body, args, why", [
    ("k<<<g, b>>>(__VA_ARGS__); k<<<g, b>>>(__VA_ARGS__)", "x, n", "holds 2 launches"),
    ("do { k ## _v<<<g, b>>>(__VA_ARGS__); } while (0)", "x, n", "pastes tokens"),
    ("do { k<<<g, b>>>(x, __VA_ARGS__); } while (0)", "n", "the launch uses 'x'"),
])
def test_frame_refusals_name_the_cause(load_source, body, args, why):
    source = (f"#define RUN(k, g, b, ...) {body}\n"
              "__global__ void k(float *x, int n) { }\n__global__ void k_v(float *x, int n) { }\n"
              f"void f(float *x, int n) {{ RUN(k, n / 32, 32, {args}); }}\n")
    loaded = load_source(source)
    assert all(launch.macro_frame is None for launch in loaded.model.launches)
    said = [d.message for d in loaded.diagnostics if d.id == "launch-in-macro"]
    assert said and all(why in m for m in said), said
