"""``s2s mgpu`` on the layouts of Rodinia's programs that it refused or could not parse
(issue 29): launches written with spaced brackets (``k << < g, b >> > (...)``, which nvcc
accepts and clang does not), launches in a ``.cu`` file included as text (hotspot3D's
``#include "opt1.cu"``), and a header whose only CUDA is a launch (left silently on CUDA
before: now refused with the reason). Source-level checks; the corpus program
``included_relax`` builds and runs the same forms on 2 and 4 cpu devices."""

from __future__ import annotations

import re
from pathlib import Path

from mgpu_support import write_rewrite

from runtime.cpu.source import inline_included_sources, prepare
from s2s.driver import RunOptions, process_file
from s2s.model.launch_syntax import closed_up, spaced_brackets
from s2s.transform.fuse import run_fuse
from s2s.transform.mgpu import run_mgpu
from s2s.transform.transfers import run_transfers

KERNEL = """\
__global__ void twice(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
"""
DRIVER = """\
static void run(float *h, int n)
{
    float *d;
    cudaMalloc((void **)&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaFuncSetCacheConfig(twice, cudaFuncCachePreferL1);
    twice << < (n + 63) / 64, 64 >> > (d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
}
"""
MAIN = """\
#include <stdio.h>
#include "kernel.cu"
#include "driver.cu"
int main()
{
    float h[100];
    for (int i = 0; i < 100; ++i) h[i] = i;
    run(h, 100);
    printf("%f\\n", h[99]);
    return 0;
}
"""


def _program(tmp_path, main: str = MAIN, driver: str = DRIVER, name: str = "driver.cu"):
    (tmp_path / "kernel.cu").write_text(KERNEL)
    (tmp_path / name).write_text(driver)
    path = tmp_path / "main.cu"
    path.write_text(main)
    return path


def test_spaced_brackets_are_closed_up_to_the_same_length():
    text = b"k << < g, b >> > (x); a << <b>>(); /* k << < c >> > */ m<< <1, 2>> >(y);"
    assert len(closed_up(text)) == len(text)
    assert closed_up(text).count(b"<<<") == 2 and closed_up(text).count(b">>>") == 2
    assert b"a << <b>>" in closed_up(text)          # no closing '>> >': not a launch
    assert spaced_brackets(b"std::cout << <int>x; y >> > z;") == []
    assert closed_up(b"k<<<g, b>>>(x);") == b"k<<<g, b>>>(x);"


def test_a_launch_in_an_included_cu_file_is_rewritten_in_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _program(tmp_path)
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "ok", [d.headline() for d in result.diagnostics]
    after = result.change.after.decode()
    # the runtime's header and the redirections come before the included text that uses them
    assert after.index("#include <s2s_mgpu.h>") < after.index('#include "kernel.cu"')
    assert "#define cudaFuncSetCacheConfig s2s_mgpu::FuncSetCacheConfig" in after
    changed = {Path(c.path).name: c.after.decode() for c in result.generated}
    assert set(changed) == {"driver.cu", "main.cu.s2s_mgpu.h"}
    driver = changed["driver.cu"]
    launch = "s2s_mgpu_launch(twice, (n + 63) / 64, 64) (d, n);"   # the brackets' blanks gone
    assert launch in driver and "<<" not in driver and ">>" not in driver
    assert driver.replace(launch, "") == DRIVER.replace("twice << < (n + 63) / 64, 64 >> > (d, n);", "")
    out = tmp_path / "out"
    out.mkdir()
    write_rewrite(result, out / "main.cu")
    (out / "kernel.cu").write_text(KERNEL)
    monkeypatch.chdir(out)
    again = process_file(str(out / "main.cu"), RunOptions(), run_mgpu)
    assert again.loaded.ok and not again.changed


def test_a_spaced_launch_in_the_file_itself(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    main = MAIN.replace('#include "driver.cu"\n', DRIVER)
    path = _program(tmp_path, main)
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "ok", [d.headline() for d in result.diagnostics]
    assert "s2s_mgpu_launch(twice, (n + 63) / 64, 64) (d, n);" in result.change.after.decode()


def test_a_header_with_a_launch_and_no_kernel_is_refused_not_left_on_cuda(tmp_path,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _program(tmp_path, MAIN.replace("driver.cu", "driver.h"), name="driver.h")
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "failed"
    first = result.diagnostics[0]
    assert first.id == "mgpu-launch" and "in a project header" in first.message
    assert first.location.file.endswith("driver.h")


def test_the_runtime_blanks_the_host_code_of_an_included_cu_file(tmp_path):
    (tmp_path / "driver.cu").write_text(DRIVER)
    text = "#include <stdio.h>\n" + KERNEL + '#include "driver.cu"\nint after;\n'
    inlined = inline_included_sources(text, "main.cu", [str(tmp_path)])
    assert f'#line 1 "{tmp_path / "driver.cu"}"' in inlined
    assert inlined.endswith('#line 8 "main.cu"\nint after;\n')   # the line after the include
    source = prepare(inlined, "main.cu")
    assert source.kernels == ["twice"]
    assert "cudaMalloc" not in source.text and "<< <" not in source.text


def test_fuse_and_transfers_say_what_they_leave_in_an_included_cu_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _program(tmp_path)
    fused = process_file(str(path), RunOptions(), run_fuse)
    moved = process_file(str(path), RunOptions(), run_transfers)
    for result, wanted in ((fused, "fuse-unfused"), (moved, "transfers-included-source")):
        said = [d for d in result.diagnostics if d.id == wanted]
        assert not result.changed and len(said) == 1, [d.headline() for d in result.diagnostics]
        assert said[0].location.file.endswith("driver.cu")
        assert "a .cu file included as text, are left as written" in said[0].message
    assert any(re.match(r"1 launches in \S*driver\.cu,", d.message) for d in fused.diagnostics)
    assert any(re.match(r"4 CUDA copies and allocations in \S*driver\.cu,", d.message)
               for d in moved.diagnostics)


def test_a_cu_file_included_from_a_folder_below_is_rewritten_there(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    main = MAIN.replace('#include "driver.cu"', '#include "src/driver.cu"')
    path = _program(tmp_path, main, name="src/driver.cu")
    monkeypatch.chdir(tmp_path)
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "ok", [d.headline() for d in result.diagnostics]
    changed = {str(Path(c.path).relative_to(tmp_path)) if Path(c.path).is_absolute() else c.path
               for c in result.generated}
    assert changed == {"src/driver.cu", "main.cu.s2s_mgpu.h"}
    # a copy of the rewrite keeps the folder: the includer's quoted #include finds it there
    out = tmp_path / "out"
    write_rewrite(result, out / "main.cu")
    assert "s2s_mgpu_launch(twice" in (out / "src" / "driver.cu").read_text()
    assert not (out / "driver.cu").exists()


def test_a_cu_file_included_from_outside_the_folder_is_refused_with_the_reason(tmp_path,
                                                                               monkeypatch):
    (tmp_path / "common").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "common" / "driver.cu").write_text(DRIVER.replace(" << < ", "<<<").replace(
        " >> > ", ">>>"))     # (spaced brackets are closed up in the includer's folder only)
    (tmp_path / "app" / "kernel.cu").write_text(KERNEL)
    path = tmp_path / "app" / "main.cu"
    path.write_text(MAIN.replace('#include "driver.cu"', '#include "../common/driver.cu"'))
    monkeypatch.chdir(tmp_path / "app")
    result = process_file(str(path), RunOptions(), run_mgpu)
    assert result.status == "failed"
    first = result.diagnostics[0]
    assert first.id == "mgpu-launch" and first.location.file.endswith("driver.cu")
    assert "may be another program's too" in first.message
