"""The C interface: a C program allocates, copies, launches and reads back through libs2s_runtime.so,
on 1 to 4 emulated devices (the data is spread over all of them by the linear host-to-device copies and
gathered back by the device-to-host copies)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from rt_support import CUDA_SAMPLES, REPO

from runtime import capi
from runtime.capi_build import program_flags
from runtime.errors import ConfigError

PROGRAM = REPO / "testsuite" / "runtime" / "c_program" / "through_capi.c"


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    if not shutil.which("gcc"):
        pytest.skip("no C compiler (gcc) on this machine")
    exe = tmp_path_factory.mktemp("capi") / "through_capi"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(PROGRAM), *program_flags()], check=True)
    return exe


@pytest.mark.parametrize("devices", [1, 2, 3, 4])
def test_c_program_through_the_c_interface(program, devices):
    env = dict(os.environ, S2S_BACKEND="cpu", S2S_DEVICES=str(devices))
    proc = subprocess.run([str(program), str(CUDA_SAMPLES / "saxpy" / "saxpy.cu"),
                           str(CUDA_SAMPLES / "block_reduction" / "block_reduction.cu"),
                           str(CUDA_SAMPLES / "template_launch" / "template_launch.cu")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"devices={devices} sum=468750.375 mismatches=0" in proc.stdout
    assert "bogus free: AddressError: address 0x10 belongs to no device allocation" in proc.stdout


def test_set_access_without_access_package_says_so(monkeypatch):
    monkeypatch.setattr(capi, "_access_class", lambda: None)  # as in an install without runtime.access
    with pytest.raises(ConfigError, match="runtime.access"):
        capi.set_access(0, "k", "{}")


def test_launch_arguments_are_decoded_by_layout():
    """``void **args`` decoding (prepared once per parameter list): every scalar kind and size, pointers,
    structs as raw bytes, twice with the same parameter list, and an unknown layout refused."""
    import ctypes
    from types import SimpleNamespace as P

    cases = [(P(kind="pointer", size=8), ctypes.c_uint64(0x5200_0000_0010), 0x5200_0000_0010),
             (P(kind="signed", size=1), ctypes.c_int8(-5), -5), (P(kind="signed", size=2), ctypes.c_int16(-300), -300),
             (P(kind="signed", size=4), ctypes.c_int32(-70000), -70000),
             (P(kind="signed", size=8), ctypes.c_int64(-(1 << 40)), -(1 << 40)),
             (P(kind="unsigned", size=1), ctypes.c_uint8(250), 250),
             (P(kind="unsigned", size=2), ctypes.c_uint16(65000), 65000),
             (P(kind="unsigned", size=4), ctypes.c_uint32(4_000_000_000), 4_000_000_000),
             (P(kind="unsigned", size=8), ctypes.c_uint64(1 << 63), 1 << 63),
             (P(kind="float", size=4), ctypes.c_float(0.1), float(ctypes.c_float(0.1).value)),
             (P(kind="float", size=8), ctypes.c_double(0.1), 0.1),
             (P(kind="struct", size=12), (ctypes.c_char * 12)(*b"abcdefghijkl"), b"abcdefghijkl")]
    params = tuple(p for p, _, _ in cases)
    values = [v for _, v, _ in cases]
    argv = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
    for _ in range(2):
        assert capi._read_args(params, ctypes.addressof(argv)) == [want for _, _, want in cases]
    odd = (P(kind="bool", size=1),)
    flag = ctypes.c_bool(True)
    odd_argv = (ctypes.c_void_p * 1)(ctypes.addressof(flag))  # kept alive while it is read
    with pytest.raises(KeyError):
        capi._read_args(odd, ctypes.addressof(odd_argv))
