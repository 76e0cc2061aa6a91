"""Misuse of device memory through the C interface and runtime.api: impossible allocation sizes, use
after free, double free, copies past the end of an allocation, device addresses used as host memory.

Each misuse is an error code (the cudaError_t value real CUDA returns: cudaErrorMemoryAllocation for
sizes, cudaErrorInvalidValue for pointers and byte counts, cudaErrorInvalidMemcpyDirection for a bad
kind) with a message, never a crash or a silent success, and the runtime stays usable afterwards.  The
C cases run one per process, so a crash fails only its own case.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest
from rt_support import CUDA_SAMPLES, REPO, Helper

from runtime import buffers, capi
from runtime.api import Runtime
from runtime.capi_build import program_flags
from runtime.cpu.source import source_bytes
from runtime.errors import AddressError, ConfigError, MemcpyKindError, OutOfMemory

PROGRAM = REPO / "testsuite" / "runtime" / "c_program" / "memory_errors.c"
MGPU_PROGRAM = REPO / "testsuite" / "runtime" / "c_program" / "mgpu_errors.cpp"
SAXPY = CUDA_SAMPLES / "saxpy" / "saxpy.cu"
INVALID_VALUE, MEMORY_ALLOCATION, INVALID_MEMCPY_DIRECTION = 1, 2, 21
SIZE_MAX = 2**64 - 1


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if not shutil.which("gcc"):
        pytest.skip("no C compiler (gcc) on this machine")
    exe = tmp_path_factory.mktemp("memerr") / "memory_errors"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(exe), str(PROGRAM), *program_flags()],
                   check=True)
    return exe


def run_case(program, *argv: str, **env: str) -> dict[str, str]:
    """Run one case; its ``key=value`` lines (rc, error, usable, ...) as a dict."""
    environ = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES="2", **env)
    proc = subprocess.run([str(program), *argv], capture_output=True, text=True, env=environ, timeout=120)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stdout}{proc.stderr}"
    return dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)


@pytest.mark.parametrize("size", [SIZE_MAX, SIZE_MAX - 255, 2**63, 2**64 - buffers.VIRTUAL_BASE,
                                  2**64 - buffers.VIRTUAL_BASE - 256, 2**48, 2**45 + 1])
def test_impossible_allocation_sizes_fail_with_memory_allocation(program, size):
    out = run_case(program, "malloc", str(size))
    assert int(out["rc"]) == MEMORY_ALLOCATION, out
    assert "OutOfMemory" in out["error"] and out["usable"] == "1"


def test_allocations_beyond_device_memory_fail_and_free_gives_it_back(program):
    """S2S_DEVICE_MEMORY=1 MiB + 8 KiB (the case's own 4 KiB buffer is live): 256 KiB allocations fit 4
    times, the fifth fails; once they are freed, allocating works again (``usable``)."""
    out = run_case(program, "fill", str(256 << 10), S2S_DEVICE_MEMORY=str((1 << 20) + 4096 + 4096))
    assert out["allocations"] == "4" and int(out["rc"]) == MEMORY_ALLOCATION, out
    assert "device memory" in out["error"] and out["usable"] == "1"


@pytest.mark.parametrize("case", ["freed_h2d", "freed_d2h", "freed_d2d_src", "freed_d2d_dst",
                                  "freed_default_src", "freed_default_dst", "freed_default_d2d",
                                  "freed_memset", "double_free"])
def test_use_after_free_is_invalid_value(program, case):
    out = run_case(program, case)
    assert int(out["rc"]) == INVALID_VALUE, out
    assert "freed" in out["error"] and out["usable"] == "1"


def test_launch_with_a_freed_pointer_is_invalid_value(program):
    out = run_case(program, "freed_launch", str(SAXPY))
    assert int(out["rc"]) == INVALID_VALUE, out
    assert "freed" in out["error"] and out["usable"] == "1"


@pytest.mark.parametrize("case", ["free_inside", "past_end_h2d", "past_end_d2h", "past_end_d2d",
                                  "past_end_memset", "past_end_default", "size_max_h2d", "size_max_d2h",
                                  "size_max_d2d", "size_max_memset", "wrapped_offset", "h2h_device",
                                  "d2h_into_device", "h2d_from_device"])
def test_bad_addresses_and_counts_are_invalid_value(program, case):
    out = run_case(program, case)
    assert int(out["rc"]) == INVALID_VALUE, out
    assert "AddressError" in out["error"] and out["usable"] == "1"


def test_bad_memcpy_kind_is_invalid_direction(program):
    out = run_case(program, "bad_kind")
    assert int(out["rc"]) == INVALID_MEMCPY_DIRECTION, out
    assert out["usable"] == "1"


def test_rewritten_program_sees_the_cuda_error_codes(tmp_path):
    """cudaMalloc/cudaMemcpy/... of a program rewritten by ``s2s mgpu`` (s2s_mgpu.h, compiled against a
    stand-in cuda_runtime.h with CUDA's values): the codes CUDA returns, kept until cudaGetLastError,
    and cudaGetErrorString gives the runtime's message."""
    if not shutil.which("g++"):
        pytest.skip("no C++ compiler (g++) on this machine")
    exe = tmp_path / "mgpu_errors"
    subprocess.run(["g++", "-std=c++14", "-Wall", "-Werror", f"-I{MGPU_PROGRAM.parent / 'fake_cuda'}", "-o",
                    str(exe), str(MGPU_PROGRAM), *program_flags()], check=True)
    out = run_case(exe)
    assert out == {"malloc_size_max": "2", "last_error": "2", "last_error_again": "0", "malloc": "0",
                   "memcpy": "0", "free": "0", "memcpy_default_after_free": "1", "message": out["message"],
                   "memset_after_free": "1", "double_free": "1", "bad_kind": "21", "free_null": "0",
                   "malloc_after": "0", "free_after": "0"}
    assert "freed allocation" in out["message"]


# ---- the same through runtime.api and runtime.capi, in this process ----

@pytest.fixture
def rt(monkeypatch):
    monkeypatch.delenv("S2S_DEVICE_MEMORY", raising=False)
    return Runtime("cpu", devices=2)


def test_impossible_sizes_raise_out_of_memory_and_change_nothing(rt):
    buf = rt.malloc(1000)
    for size in (SIZE_MAX, 2**63, 2**64 - buffers.VIRTUAL_BASE, buffers.VIRTUAL_END - buffers.VIRTUAL_BASE,
                 rt.space.capacity + 1):
        with pytest.raises(OutOfMemory, match="cannot allocate"):
            rt.malloc(size)
    assert rt.space.live_bytes == 1000
    after = rt.malloc(1000)
    assert after.addr + after.nbytes < buffers.VIRTUAL_END and rt.space.resolve(after.addr).buffer is after
    assert rt.space.resolve(buf.addr + 999).offset == 999


def test_cpu_device_memory_is_the_host_memory(rt):
    pages = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert rt.space.capacity == pages == rt.devices[1].memory()


def test_live_allocations_must_fit_device_memory(monkeypatch):
    monkeypatch.setenv("S2S_DEVICE_MEMORY", str(1 << 20))
    rt = Runtime("cpu", devices=2)
    first = rt.malloc(600 << 10)
    with pytest.raises(OutOfMemory, match="device memory"):
        rt.malloc(600 << 10)
    rt.free(first)
    rt.free(rt.malloc(1 << 20))
    assert rt.space.live_bytes == 0


@pytest.mark.parametrize("text", ["0", "-5", "1e9", "lots"])
def test_bad_device_memory_setting_is_refused(monkeypatch, text):
    monkeypatch.setenv("S2S_DEVICE_MEMORY", text)
    with pytest.raises(ConfigError, match="S2S_DEVICE_MEMORY"):
        Runtime("cpu", devices=1)


def test_virtual_address_space_runs_out_before_any_address_overflows():
    """3 TiB of addresses, never reused: a 2 TiB allocation fits once (no memory behind it here: the
    address space alone), then the space says so, and small allocations still fit after the free."""
    space = buffers.AddressSpace()
    big = space.allocate(2 << 40, [])
    with pytest.raises(OutOfMemory, match="virtual address space"):
        space.allocate(2 << 40, [])
    space.remove(big)
    small = space.allocate(64, [])
    assert big.addr < small.addr < small.addr + 64 < buffers.VIRTUAL_END
    with pytest.raises(AddressError, match="freed"):
        space.resolve(big.addr + 5)


def test_use_after_free_is_an_error_for_every_operation(rt):
    helper = Helper(rt)
    mod = helper.module("saxpy")
    x = helper.put(np.arange(256, dtype=np.float32))
    y = helper.put(np.zeros(256, dtype=np.float32))
    rt.free(y)
    host = np.zeros(256, dtype=np.float32)
    operations = [lambda: rt.memcpy_htod(y, host), lambda: rt.memcpy_htod(y.addr + 16, host, 16),
                  lambda: rt.memcpy_dtoh(host, y), lambda: rt.memcpy_dtoh(host, y + 4, 8),
                  lambda: rt.memcpy_dtod(x, y, 64), lambda: rt.memcpy_dtod(y.addr, x, 64),
                  lambda: rt.memset(y, 0, 16), lambda: rt.memset(y.addr + 8, 0, 16),
                  lambda: rt.free(y), lambda: rt.free(y.addr),
                  lambda: rt.launch(mod["saxpy"], 1, 256, [256, 2.0, x, y]),
                  lambda: rt.launch(mod["saxpy"], 1, 256, [256, 2.0, x, y.addr])]
    for operation in operations:
        with pytest.raises(AddressError, match="freed"):
            operation()
    assert np.array_equal(helper.get(x, np.float32, 256), np.arange(256, dtype=np.float32))


def test_counts_and_offsets_outside_an_allocation_are_refused_before_any_byte_moves(rt):
    data = np.arange(64, dtype=np.uint8)
    buf = Helper(rt).put(data)
    other = rt.malloc(64)
    host = np.zeros(64, dtype=np.uint8)
    refused = [lambda: rt.memcpy_htod(buf + 1, np.full(64, 7, np.uint8)),
               lambda: rt.memcpy_htod(buf, np.full(64, 7, np.uint8).ctypes.data, 65),
               lambda: rt.memcpy_htod(buf, host.ctypes.data, -1),
               lambda: rt.memcpy_htod(buf + (-1), host.ctypes.data, 4),
               lambda: rt.memcpy_dtoh(host, buf + 60, 8), lambda: rt.memcpy_dtoh(host, buf, -8),
               lambda: rt.memcpy_dtoh(host.ctypes.data, buf.addr + 65, 0),
               lambda: rt.memcpy_dtoh(host.ctypes.data, buf, SIZE_MAX),
               lambda: rt.memcpy_dtod(buf + 8, other, 64), lambda: rt.memcpy_dtod(other, buf, -1),
               lambda: rt.memset(buf + 32, 7, 33), lambda: rt.memset(buf.addr - 1, 7, 1),
               lambda: rt.memset(buf, 7, SIZE_MAX),
               lambda: rt.memcpy_dtoh(other.addr, buf, 8),           # a device address as host memory
               lambda: rt.memcpy_htod(buf, buf.addr + 8, 8)]
    for operation in refused:
        with pytest.raises(AddressError):
            operation()
    rt.memcpy_dtoh(host, buf)
    assert np.array_equal(host, data)


def test_error_codes_are_the_cuda_ones():
    assert capi.error_code(OutOfMemory("x")) == capi.error_code(MemoryError()) == MEMORY_ALLOCATION
    assert capi.error_code(AddressError("x")) == INVALID_VALUE
    assert capi.error_code(MemcpyKindError("x")) == INVALID_MEMCPY_DIRECTION
    assert capi.error_code(ConfigError("x")) == capi.error_code(ValueError()) == 999


def test_capi_copies_never_dereference_device_addresses(rt, monkeypatch):
    """In this process, so a crash would take the test run with it: cudaMemcpyDefault with a freed
    pointer, host-to-host with a device pointer, and a bad kind are errors; cudaFree(NULL) is not."""
    monkeypatch.setitem(capi._state, "runtime", rt)
    host = np.zeros(16, dtype=np.uint8)
    dead = capi.malloc(16)
    capi.free(dead)
    for dst, src, kind in [(dead, host.ctypes.data, capi.DEFAULT), (host.ctypes.data, dead, capi.DEFAULT),
                           (dead, host.ctypes.data, capi.HOST_TO_HOST),
                           (host.ctypes.data, dead + 4, capi.HOST_TO_HOST)]:
        with pytest.raises(AddressError):
            capi.memcpy(dst, src, 16, kind)
    with pytest.raises(MemcpyKindError):
        capi.memcpy(host.ctypes.data, host.ctypes.data, 16, 5)
    assert capi.free(0) == 0
    with pytest.raises(AddressError, match="freed"):
        capi.free(dead)


# ---- NULL pointer arguments and special files (issue 32, item 6) ----

NULL_CASES = {
    "null_malloc": "s2s_malloc: ptr is NULL",
    "null_device_count": "s2s_get_device_count: count is NULL",
    "null_properties_own": "s2s_device_properties: own is NULL",
    "null_properties_name": "s2s_device_properties: name (with name_len > 0) is NULL",
    "null_properties_values": "s2s_device_properties: values (with count > 0) is NULL",
    "null_h2d_src": "s2s_memcpy: src is NULL",
    "null_d2h_dst": "s2s_memcpy: dst is NULL",
    "null_default_src": "s2s_memcpy: src is NULL",
    "null_h2h_dst": "s2s_memcpy: dst is NULL",
    "null_memset": "s2s_memset: ptr is NULL",
    "null_module": "s2s_module_load: module is NULL",
    "null_module_path": "s2s_module_load: path is NULL",
    "null_module_source": "s2s_module_load_source: source is NULL",
    "null_symbol": "s2s_memcpy_symbol: symbol is NULL",
    "null_access": "s2s_set_access: access_json is NULL",
    "null_launch_kernel": "s2s_launch: kernel is NULL",
    "null_launch_args": "args is NULL, but the kernel takes 4 argument(s)",
    "null_launch_entry": "args[2] is NULL",
}


@pytest.mark.parametrize("case", sorted(NULL_CASES))
def test_a_null_pointer_argument_is_invalid_value_not_a_crash(program, case):
    out = run_case(program, case, str(SAXPY))
    assert int(out["rc"]) == INVALID_VALUE, out
    assert NULL_CASES[case] in out["error"] and out["usable"] == "1"


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "directory"])
def test_module_load_reads_regular_files_only(program, tmp_path, kind):
    path = {"fifo": tmp_path / "kernels.cu", "dev_zero": "/dev/zero", "directory": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    out = run_case(program, "load_file", str(path))  # a FIFO blocked, /dev/zero filled memory
    assert int(out["rc"]) == INVALID_VALUE, out
    assert "is not a regular file" in out["error"] and out["usable"] == "1"


def test_module_sources_are_read_up_to_a_bound(tmp_path, monkeypatch):
    from runtime import api

    path = tmp_path / "kernels.cu"
    path.write_text("__global__ void k(int *x) { *x = 1; }\n" * 10)
    assert api.read_source_file(path).startswith("__global__")
    with pytest.raises(api.SourceFileError, match="larger than 100 bytes"):
        api.read_source_file(path, limit=100)
    path.write_bytes(b"/* \xff\xfe */ int x;")  # legal for the compilers: kept byte for byte
    assert source_bytes(api.read_source_file(path)) == b"/* \xff\xfe */ int x;"


def test_kernel_sources_with_crlf_and_bytes_that_are_not_utf8_load(program, tmp_path):
    """Both are legal for nvcc and g++ (fuzz seeds 78224579 and 78225232): the kernel loader found
    no kernel in a CRLF file and raised UnicodeDecodeError on a byte in a comment, through the C
    interface (source text) and from a path."""
    out = run_case(program, "null_free_crlf_latin1_source")
    assert int(out["rc"]) == 0, out
    path = tmp_path / "saxpy.cu"
    data = SAXPY.read_bytes().replace(b"\n", b"\r\n").replace(b"*/", b"\xff */", 1)
    path.write_bytes(data)
    rt = Runtime("cpu", 1)
    module = rt.load_module(path=str(path))
    assert module.kernel_names == ["saxpy"]
