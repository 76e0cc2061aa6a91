"""cudaGetDeviceProperties through the C interface (issue 18 item 3): on the cuda backend the GPU's own
name and properties (a fake pycuda device here: no GPU in CI), on cpu devices nothing (the documented
fixed values of s2s_device_prop.h stand)."""

from __future__ import annotations

import ctypes
import re
from types import SimpleNamespace

import pytest
from rt_support import REPO

from runtime import capi
from runtime.api import Runtime

H200 = {"MAX_SHARED_MEMORY_PER_BLOCK": 49152, "MAX_REGISTERS_PER_BLOCK": 65536, "WARP_SIZE": 32,
        "MAX_PITCH": 2147483647, "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024,
        "MAX_BLOCK_DIM_Y": 1024, "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2147483647,
        "MAX_GRID_DIM_Y": 65535, "MAX_GRID_DIM_Z": 65535, "TOTAL_CONSTANT_MEMORY": 65536,
        "TEXTURE_ALIGNMENT": 512, "MULTIPROCESSOR_COUNT": 132, "MAX_THREADS_PER_MULTIPROCESSOR": 2048,
        "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472, "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
        "L2_CACHE_SIZE": 52428800, "GLOBAL_MEMORY_BUS_WIDTH": 6144, "CONCURRENT_KERNELS": 1,
        "UNIFIED_ADDRESSING": 1}


class _FakeGpu:
    """pycuda.driver.Device as gpu_properties uses it."""

    def name(self):
        return "NVIDIA H200 (fake)"

    def total_memory(self):
        return 150_000_000_000

    def compute_capability(self):
        return (9, 0)

    def get_attribute(self, attribute):
        return H200[attribute]


def _cuda_device():
    attributes = SimpleNamespace(**{key: key for key in H200})
    return SimpleNamespace(backend="cuda", gpu=_FakeGpu(), drv=SimpleNamespace(device_attribute=attributes))


def _query(monkeypatch, devices, name_len=256):
    monkeypatch.setitem(capi._state, "runtime", SimpleNamespace(devices=devices))
    name = ctypes.create_string_buffer(b"\x7f" * name_len, name_len)
    values = (ctypes.c_longlong * len(capi.DEVICE_PROPERTIES))(*([-1] * len(capi.DEVICE_PROPERTIES)))
    own = capi.device_properties(ctypes.addressof(name), name_len, ctypes.addressof(values),
                                 len(values))
    return own, name.value, dict(zip((f for f, _ in capi.DEVICE_PROPERTIES), values, strict=True))


def test_cuda_backend_reports_the_gpus_own_properties(monkeypatch):
    own, name, values = _query(monkeypatch, [_cuda_device()])
    assert own == 1 and name == b"NVIDIA H200 (fake)"
    assert values["totalGlobalMem"] == 150_000_000_000 and values["multiProcessorCount"] == 132
    assert (values["major"], values["minor"]) == (9, 0)
    assert values["maxThreadsDim[2]"] == 64 and values["l2CacheSize"] == 52428800
    assert -1 not in values.values()
    _own, short, _ = _query(monkeypatch, [_cuda_device()], name_len=6)
    assert short == b"NVIDI"                     # cut to the field, always terminated


def test_cpu_devices_keep_the_documented_values(monkeypatch):
    own, name, values = _query(monkeypatch, Runtime("cpu", 2).devices)
    assert own == 0 and set(values.values()) == {-1}   # nothing written


def test_header_and_runtime_list_the_same_fields_in_the_same_order():
    header = (REPO / "runtime" / "include" / "s2s_device_prop.h").read_text()
    setter = header[header.index("#define S2S_SET_DEVICE_PROP"):]
    fields = re.findall(r"\(p\)->([A-Za-z0-9]+(?:\[\d\])?) = \([a-z_ ]+\)\(v\)\[(\d+)\]", setter)
    assert [(f, int(k)) for f, k in fields] == [(f, k) for k, (f, _) in
                                                 enumerate(capi.DEVICE_PROPERTIES)]
    count = re.search(r"#define S2S_DEVICE_PROP_COUNT (\d+)", header)
    assert int(count.group(1)) == len(capi.DEVICE_PROPERTIES)


def test_header_runtime_mismatch_is_an_error(monkeypatch):
    monkeypatch.setitem(capi._state, "runtime", SimpleNamespace(devices=[_cuda_device()]))
    values = (ctypes.c_longlong * 3)()
    name = ctypes.create_string_buffer(16)
    with pytest.raises(capi.ConfigError, match="header and runtime"):
        capi.device_properties(ctypes.addressof(name), 16, ctypes.addressof(values), 3)
