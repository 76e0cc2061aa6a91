"""``s2s transfers`` through copy wrappers and device buffers in structs (issue 29, item 4
(b), (d); item 6): a call of a void function whose statements each copy is the copy at the
call site; where the plan through the calls changes nothing, a warning says why; a buffer in
a struct a helper fills is refused with the precise reason."""

from __future__ import annotations

from pathlib import Path

from s2s.driver import RunOptions, process_file
from s2s.transform.fuse_wrappers import CallSite, lines_as_written
from s2s.transform.transfers import run_transfers

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "cuda"
HEADER = """\
#pragma once
static void upload(float *dst, const float *src, int count)
{
    cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyHostToDevice);
}
static void download(float *dst, const float *src, int count)
{
    cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyDeviceToHost);
}
static int upload_checked(float *dst, const float *src, int count)
{
    return (int)cudaMemcpy(dst, src, count * sizeof(float), cudaMemcpyHostToDevice);
}
"""
SOURCE = """\
#include <cstdio>
#include <cstdlib>
#include "io.h"
__global__ void add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
int main()
{
    int n = 4096;
    float *h_a = (float *)malloc(n * sizeof(float));
    float *h_b = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) { h_a[i] = i; h_b[i] = 1; }
    float *d_a, *d_b, *d_c;
    cudaMalloc((void **)&d_a, n * sizeof(float));
    cudaMalloc((void **)&d_b, n * sizeof(float));
    cudaMalloc((void **)&d_c, n * sizeof(float));
    upload(d_a, h_a, n);
    UPLOAD_B;
    add<<<(n + 255) / 256, 256>>>(d_c, d_a, d_b, n);
    download(h_a, d_c, n);
    printf("%f\\n", h_a[7]);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(h_a);
    free(h_b);
    return 0;
}
"""


def _transfers(tmp_path, upload_b: str = "upload(d_b, h_b, n)"):
    (tmp_path / "io.h").write_text(HEADER)
    path = tmp_path / "add.cu"
    path.write_text(SOURCE.replace("UPLOAD_B", upload_b))
    return process_file(str(path), RunOptions(), run_transfers)


def test_copies_behind_wrappers_are_merged_at_their_calls(tmp_path):
    result = _transfers(tmp_path)
    after = result.change.after.decode()
    main = after.split("int main()")[1]
    # before: 3 cudaMemcpy through 3 wrapper calls and 3 cudaMalloc; after: the two uploads
    # are one copy of the pooled host buffers, the download stays one copy
    assert "upload(" not in main and main.count("cudaMemcpy(") == 2
    assert main.count("cudaMalloc(") == 1
    assert not [d for d in result.diagnostics if d.id == "transfers-wrapper"]
    assert (tmp_path / "io.h").read_text() == HEADER


def test_a_wrapper_returning_a_value_is_not_followed_with_the_reason(tmp_path):
    result = _transfers(tmp_path, "if (upload_checked(d_b, h_b, n)) return 1")
    said = [d.message for d in result.diagnostics if d.id == "transfers-wrapper"]
    assert any("the copies of 'upload_checked'" in m and "it returns 'int'" in m
               for m in said), said


def test_wrapped_copies_left_as_written_are_never_silent(tmp_path):
    """wrapper_copies with its buffers from an allocation helper that does more than allocate
    (it also clears the buffer): main's copies stay as they are; each wrapper says its copies
    were followed to its calls and why they stay, and the helper why it is not followed."""
    program = CORPUS / "wrapper_copies"
    header = (program / "device_io.h").read_text().replace(
        "    return p;\n", "    cudaMemset(p, 0, n * sizeof(float));\n    return p;\n", 1)
    (tmp_path / "device_io.h").write_text(header)
    path = tmp_path / "heat1d.cu"
    path.write_text((program / "heat1d.cu").read_text())
    result = process_file(str(path), RunOptions(), run_transfers)
    said = {d.message.split("'")[1]: d for d in result.diagnostics if d.id == "transfers-wrapper"}
    assert set(said) == {"copy_to_device", "copy_to_host", "device_alloc"}
    assert said["copy_to_device"].location.line == 47
    assert "followed to its calls (line 47, 48) and left as written there: 'd_u' is aliased or " \
           "reassigned" in said["copy_to_device"].message
    assert "is not followed to its calls: its statement at line 16 calls more than cudaMalloc" \
        in said["device_alloc"].message


def test_buffers_of_a_struct_a_helper_fills_are_refused_with_the_reason():
    path = CORPUS / "struct_buffers" / "particles.cu"
    result = process_file(str(path), RunOptions(), run_transfers)
    [said] = [d.message for d in result.diagnostics if d.id == "transfers-member"]
    assert said.startswith("'b.pos' is a member of the struct 'b' that 'make_buffers' fills and "
                           "returns (copied in 'main'; freed in 'free_buffers')")


def test_explain_notes_name_the_lines_of_the_file_as_written():
    """The plan is made on the file with the wrapper and helper calls inlined (12 lines
    longer here): its notes name lines of the file the user has, not of that copy."""
    result = process_file(str(CORPUS / "wrapper_copies" / "heat1d.cu"), RunOptions(),
                          run_transfers)
    notes = {d.message: d.location.line for d in result.diagnostics
             if d.id == "transfers-explain"}
    assert notes["upload h_u, h_q in one cudaMemcpy before 'loop at line 49' (line 47)"] == 47
    assert notes["download h_u in one cudaMemcpy before 'host code at line 58' (line 56)"] == 56


def test_lines_named_in_an_inlined_files_message_are_moved_back():
    source = b"a\nb\n    call(p);\nc\nd\n"
    start = source.index(b"call")
    site = CallSite("call", start, start + len(b"call(p);"), "x(p);\n    y(p);\n    z(p);", 3)
    # the copy: a, b, x, y, z, c, d (lines 1-7): x, y and z are the call's line 3
    said = "at line 6, lines 4, 7 and line 2 (a line 99 is no line of the copy: kept)"
    assert lines_as_written(said, source, [site]) == \
        "at line 4, lines 3, 5 and line 2 (a line 99 is no line of the copy: kept)"
    assert lines_as_written(said, source, []) == said
