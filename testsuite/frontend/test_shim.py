"""The bundled headers (s2s/frontend/shim) stand in for the CUDA toolkit and clang's omp.h.

Every bundled sample must parse with them without a libclang error and give the same picture
of the program as the real headers where those are installed, so that analysis works on a
machine with neither.
"""

from __future__ import annotations

import pytest
from conftest import REPO, sample_dirs, sample_meta

from s2s.frontend.core.parse import ParseOptions
from s2s.frontend.core.toolchain import Toolchain, default_toolchain
from s2s.frontend.extract import load

SHIM_ONLY = Toolchain(cuda_path=None, omp_include=None)


def _sources(language):
    return [pytest.param(d / s, id=f"{d.name}/{s}") for d in sample_dirs(language)
            for s in sample_meta(d)["sources"]]


def _picture(model):
    """What later stages rely on, without positions (system headers may shift nothing here)."""
    return {
        "kernels": [(k.name, tuple(p.type for p in k.params)) for k in model.kernels],
        "device_functions": [k.name for k in model.device_functions],
        "launches": [(x.kernel, x.grid.text, x.block.text, tuple(a.text for a in x.args))
                     for x in model.launches],
        "api_calls": [(c.name, c.category) for c in model.api_calls],
        "allocations": [(a.name, a.kind, a.element_type) for a in model.allocations],
        "directives": [(d.name, tuple(c.name for c in d.clauses)) for d in model.directives],
        "functions": [(f.name, len(f.calls)) for f in model.functions],
    }


@pytest.mark.parametrize("path", _sources("cuda") + _sources("openmp"))
def test_sample_parses_with_shim_headers(path):
    shim = load(str(path.relative_to(REPO)), ParseOptions(toolchain=SHIM_ONLY))
    errors = [d.headline() for d in shim.diagnostics if d.is_error]
    assert errors == []
    assert shim.model is not None
    real_toolchain = default_toolchain()
    if real_toolchain.cuda_path is None and real_toolchain.omp_include is None:
        pytest.skip("no CUDA toolkit or clang omp.h here to compare the shim with")
    real = load(str(path.relative_to(REPO)), ParseOptions(toolchain=real_toolchain))
    assert real.model is not None
    assert _picture(shim.model) == _picture(real.model)


def test_shim_declares_the_openmp_runtime_api(tmp_path):
    src = tmp_path / "api.c"
    src.write_text("#include <omp.h>\n"
                   "int main(void) {\n"
                   "  double t = omp_get_wtime();\n"
                   "  int dev = omp_get_default_device(), host = omp_get_initial_device();\n"
                   "  void *p = omp_target_alloc(64, dev);\n"
                   "  omp_target_memcpy(p, &t, sizeof t, 0, 0, dev, host);\n"
                   "  omp_target_free(p, dev);\n"
                   "  omp_lock_t lock; omp_init_lock(&lock); omp_destroy_lock(&lock);\n"
                   "  return omp_get_num_devices() + omp_get_thread_num();\n"
                   "}\n")
    loaded = load(str(src), ParseOptions(toolchain=SHIM_ONLY))
    assert [d.headline() for d in loaded.diagnostics if d.is_error] == []
    assert [c.name for c in loaded.model.functions[0].calls][:3] == [
        "omp_get_wtime", "omp_get_default_device", "omp_get_initial_device"]


def test_the_cuda_flag_constants_have_one_home():
    """cudaHostAllocMapped, cudaStreamNonBlocking, ...: s2s's parse headers, verify's host shim
    and the cpu backend's kernel compile take them from runtime/include/s2s_cuda_flags.h, so a
    value cannot differ between the parse and the builds that run the program."""
    import re

    home = REPO / "runtime" / "include" / "s2s_cuda_flags.h"
    flag = re.compile(r"^#define (cuda\w+) (?:0x[0-9a-fA-F]+|\(\(\w+\)-?\w+\))$", re.M)
    assert len(flag.findall(home.read_text())) >= 40
    others = {path.relative_to(REPO).as_posix(): flag.findall(path.read_text())
              for root in ("s2s", "runtime") for path in (REPO / root).rglob("*.h")
              if path != home}
    assert not {path: names for path, names in others.items() if names}
    including = [path for path in ("s2s/frontend/shim/driver_types.h",
                                   "s2s/verify/cuda_shim/cuda_runtime.h",
                                   "runtime/cpu/include/s2s_host_api.h")
                 if "s2s_cuda_flags.h\"" in (REPO / path).read_text()]
    assert len(including) == 3
