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


def test_set_access_without_access_package_says_so():
    if capi.KernelAccess is not None:
        pytest.skip("runtime.access is installed")
    with pytest.raises(ConfigError, match="runtime.access"):
        capi.set_access(0, "k", "{}")
