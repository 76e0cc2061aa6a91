"""The GPU backend's nvcc -cubin build gets no path a shell would act on (issue 16, item 1).

nvcc runs cicc and ptxas through ``sh -c``; ``-I`` values keep backquotes active. The build
needs nvcc only (no GPU), so it runs here.
"""

from __future__ import annotations

import shutil

import pytest

from runtime.cuda.device import build_cubin

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")


@pytest.mark.parametrize("evil", ["b`touch PWNED`x", "d$(touch PWNED)x", "s;touch PWNED;t"])
def test_include_dirs_and_names_with_shell_syntax(tmp_path, monkeypatch, evil):
    include = tmp_path / evil
    include.mkdir()
    (include / "scale.h").write_text("#define SCALE 3.0f\n")
    monkeypatch.setenv("S2S_CPU_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    text = '#include "scale.h"\n__global__ void k(float *a) { a[threadIdx.x] *= SCALE; }\n'
    cubin = build_cubin(text, f'{evil}"\\\n.cu', [], [str(include)], "sm_90")
    assert cubin[:4] == b"\x7fELF"
    assert not list(tmp_path.rglob("PWNED*"))
    assert build_cubin(text, f'{evil}"\\\n.cu', [], [str(include)], "sm_90") == cubin  # cached
