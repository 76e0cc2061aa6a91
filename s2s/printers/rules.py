"""Every diagnostic id s2s can emit, with what it means and what to do: the one source of the
SARIF rules (short and full description, help, help URI) and of ``docs/diagnostics.md``
(written by ``scripts/diagnostics_doc.py``; a test fails when an id the code emits is missing
here or when the page is out of date).

An id with ``*`` stands for a family (``verify-timeout-original``, ``clang-unused-variable``).
"""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass
from pathlib import Path

import tomllib

from s2s import __version__

#: the label of docs/diagnostics.md's address in pyproject.toml's [project.urls]
DOCS_LABEL = "Diagnostics"


@dataclass(frozen=True)
class Rule:
    id: str
    title: str     # the short description: one line
    meaning: str   # what the message means (the full description)
    action: str    # what to do about it
    example: str   # a message as s2s prints it
    group: str     # the section of docs/diagnostics.md


def _rules(group: str, *entries: tuple[str, str, str, str, str]) -> tuple[Rule, ...]:
    return tuple(Rule(*entry, group=group) for entry in entries)


RULES: tuple[Rule, ...] = (
    *_rules(
        "Rewrites (SARIF results with a fix)",
        ("omp-rewrite", "a change s2s omp suggests",
         "An OpenMP data-mapping directive s2s omp inserts, changes or removes: a target data "
         "region, an enter/exit data pair, a target update, or a map clause made narrower.",
         "Review the change and the reason given with it; apply it with --in-place or from "
         "the diff.",
         "scale.c:16:5: note: s2s omp inserts `#pragma omp target enter data map(to: a)`: "
         "target enter/exit data region in 'main' maps a (to/release) (part of the data "
         "mapping of 'main') [omp-rewrite]"),
        ("transfers-rewrite", "a change s2s transfers suggests",
         "A cudaMemcpy or cudaMalloc call s2s transfers moves, merges or removes so that each "
         "value crosses between host and device once.",
         "Review the change and its reason; apply it with --in-place or from the diff.",
         "main.cu:40:5: note: s2s transfers removes 64 bytes: the copy of 'd_a' back to the "
         "host is never read [transfers-rewrite]"),
        ("fuse-rewrite", "a change s2s fuse suggests",
         "Launches of kernels that s2s fuse merges into one launch of a fused kernel, and the "
         "fused kernel it adds.",
         "Review the fused kernel and the launch that replaces the sequence.",
         "k.cu:88:3: note: s2s fuse replaces `scale<<<g, b>>>(x, n);` with `s2s_fused_scale_"
         "add<<<g, b>>>(x, y, n);` [fuse-rewrite]"),
        ("mgpu-rewrite", "a change s2s mgpu suggests",
         "A launch or CUDA API call s2s mgpu rewrites to run the program on several GPUs "
         "through the s2s runtime.",
         "Review the change; the program then needs the s2s runtime (see docs/mgpu.md).",
         "k.cu:52:5: note: s2s mgpu replaces `cudaMalloc(&d, n)` with `s2s_malloc(&d, n)` "
         "[mgpu-rewrite]"),
    ),
    *_rules(
        "Inputs and usage",
        ("usage", "bad command line",
         "The command line cannot be used as given: an unknown option, a missing file "
         "argument, options that exclude each other.",
         "Read the message and 's2s COMMAND --help'; nothing was read or written (exit 2).",
         "error: --diff prints the changes; --in-place and -o write them: give one [usage]"),
        ("config-invalid", "the configuration file cannot be used",
         "A .s2s.toml or [tool.s2s] table does not parse or holds a value of the wrong type.",
         "Fix the file named in the message; nothing was done (exit 2).",
         "error: .s2s.toml: 'flags' must be a list of strings, not 3 [config-invalid]"),
        ("config-unknown-key", "unknown key in the configuration file",
         "The configuration file has a key s2s does not know; it is ignored.",
         "Check its spelling against the keys the message lists.",
         "warning: .s2s.toml: unknown key 'flag' ignored (known: passes, nvcc, ...) "
         "[config-unknown-key]"),
        ("no-such-file", "input file not found",
         "A file named on the command line (or in compile_commands.json) does not exist or is "
         "a directory where a file was expected.",
         "Check the path; directories are searched only when named as inputs.",
         "error: no such file: src/mian.c [no-such-file]"),
        ("not-a-regular-file", "input is not a regular file",
         "The input is a FIFO, device or socket; s2s reads only plain files (or '-' for stdin).",
         "Name the source file itself, or pipe it in with '-' and --stdin-filename.",
         "error: not a regular file (a FIFO): /tmp/pipe [not-a-regular-file]"),
        ("unreadable", "input file cannot be read",
         "The file exists but reading it failed (permissions, I/O error).",
         "Check the file's permissions.",
         "error: cannot read a.c: Permission denied [unreadable]"),
        ("file-too-large", "input file too large",
         "The file is larger than s2s reads from one source; it is left alone.",
         "Split the file, or leave it out of the run.",
         "error: big.c is 80,000,000 bytes, more than the 64,000,000 bytes s2s reads from one "
         "source file [file-too-large]"),
        ("binary-file", "input is not text",
         "The file contains a NUL byte: it is not C, C++ or CUDA source.",
         "Leave the file out of the run (--exclude, or a narrower directory).",
         "a.o:1:17: error: binary file: NUL byte found; not a C, C++ or CUDA source "
         "[binary-file]"),
        ("empty-file", "empty input file",
         "The file is empty or blank; there is nothing to analyse.",
         "Nothing to do; silence with --silence empty-file if expected.",
         "e.c:1:1: warning: file is empty or blank: nothing to analyse [empty-file]"),
        ("invalid-utf8", "input is not valid UTF-8",
         "The file has bytes that are not UTF-8. It is kept byte for byte; only messages may "
         "show such bytes as '?'.",
         "Nothing is lost; convert the file to UTF-8 for readable messages.",
         "a.c:3:12: warning: invalid UTF-8 byte; the file is kept byte for byte but messages "
         "may show it as '?' [invalid-utf8]"),
        ("input", "input file problem",
         "An input file could not be used (the message says why).",
         "Read the message; the file is left as it was.",
         "error: cannot stat a.c: No such file or directory [input]"),
        ("not-in-database", "file missing from compile_commands.json",
         "The file is not in the compilation database given with -p, so it is parsed with "
         "default flags (its -D and -I flags are unknown).",
         "Regenerate compile_commands.json, or pass the flags after '--'.",
         "warning: tools/x.c is not in build/compile_commands.json; parsing with default flags "
         "[not-in-database]"),
        ("unknown-flag", "flag from compile_commands.json ignored",
         "A compiler flag of the compilation database is not on s2s's allow-list of flags that "
         "reach the parser; it is dropped.",
         "Usually harmless (optimisation and warning flags); if it defines macros or include "
         "paths the parse needs, pass them after '--'.",
         "warning: ignoring unknown flag '-fplugin=x.so' from compile_commands.json "
         "[unknown-flag]"),
        ("stdin-header-not-rewritten", "a header would change but stdin was rewritten alone",
         "With '-' only the text read from stdin is rewritten; the pass also wanted to change "
         "a project header it includes.",
         "Run s2s on the files (not through stdin) to rewrite the header too.",
         "inc/k.h:1:1: warning: inc/k.h would change too, but with '-' only the text read "
         "from stdin is rewritten; run s2s on the files to rewrite it "
         "[stdin-header-not-rewritten]"),
        ("stdin-generated-file", "a pass generates a file beside the text read from stdin",
         "s2s mgpu puts a file's kernel table into a generated file beside it "
         "(k.cu.s2s_mgpu.h), which the rewrite includes; stdout carries one text only, so "
         "the text read from stdin comes back unchanged.",
         "Run s2s mgpu on the file (--in-place or -o DIR), or use --diff to see both files.",
         "k.cu:1:1: error: s2s mgpu generates k.cu.s2s_mgpu.h beside k.cu, which stdout "
         "cannot carry; the text is printed unchanged [stdin-generated-file]"),
    ),
    *_rules(
        "Parsing",
        ("parse-error", "the file does not parse",
         "The front end could not build a model of the file; s2s does not rewrite a file "
         "whose model would be wrong.",
         "Fix the error, or give the flags the file needs (-D, -I) after '--' or with -p.",
         "a.c:1:1: error: ... [parse-error]"),
        ("parse-failed", "libclang could not parse the file",
         "libclang gave no translation unit at all, usually because of a flag it cannot use.",
         "Check the flags after '--' or in compile_commands.json; the message lists them.",
         "error: libclang could not parse a.c with these flags (...); check the flags after -- "
         "or in compile_commands.json: -x c ... [parse-failed]"),
        ("clang-error", "error reported by clang",
         "The parser (libclang) found an error in the file; the file is not rewritten.",
         "Fix the code, or give the -D / -I flags the file needs.",
         "a.c:3:1: error: unknown type name 'sizet' [clang-error]"),
        ("clang", "warning reported by clang",
         "A warning of the parser without a flag of its own.",
         "As for the compiler's own warning.",
         "a.c:9:5: warning: ... [clang]"),
        ("clang-*", "warning reported by clang (with its -W flag)",
         "A warning of the parser; the id is 'clang-' followed by clang's flag for it "
         "(clang-unused-variable for -Wunused-variable).",
         "As for the compiler's own warning; silence with --silence clang-FLAG.",
         "a.c:4:9: warning: unused variable 'i' [clang-unused-variable]"),
        ("clang-syntax", "the OpenMP rewrite does not pass clang-16",
         "With clang-16 on PATH an OpenMP rewrite is also checked with 'clang-16 "
         "-fsyntax-only' and offloading (it rejects some clauses libclang accepts); the edits "
         "it rejects are dropped.",
         "Report it as a bug of s2s with the file; the rest of the rewrite is kept.",
         "a.c:20:24: error: expected addressable lvalue in 'map' clause [clang-syntax]"),
        ("nvcc-error", "the rewritten file does not compile with nvcc",
         "A CUDA rewrite was compiled with 'nvcc -c' before it was emitted and nvcc refused "
         "it; the part that fails is dropped.",
         "Report it as a bug of s2s; --no-nvcc-check skips the check (not recommended).",
         "k.cu:30:1: error: nvcc: identifier \"s2s_fused\" is undefined [nvcc-error]"),
        ("nvcc-original-error", "the original does not compile with nvcc",
         "nvcc rejects the file as written (e.g. cudaThreadSynchronize, removed in CUDA 13); "
         "the rewrite is checked only for errors of its own: the same error at the same "
         "(mapped) line belongs to the original.",
         "Fix the original, or pass -D flags that map the old call (honoured, not a conflict).",
         "k.cu:40:5: warning: the original does not compile with nvcc (identifier "
         "\"cudaFoo\" is undefined); the rewrite is checked for errors of its own only "
         "[nvcc-original-error]"),
        ("cuda-toolkit-rejects", "the CUDA toolkit's headers reject the file",
         "The toolkit's headers reject the file as written (it uses what CUDA 13 removed, such "
         "as cudaDeviceProp::clockRate) and s2s's own CUDA headers, which keep those members, "
         "accept it: the file is analysed against s2s's headers. nvcc of this toolkit rejects "
         "the original too; the compile check of a rewrite counts only the errors it "
         "introduces, and mgpu maps cudaDeviceProp to the runtime's struct that keeps them.",
         "Update the program for the toolkit, or build it with the toolkit it was written for.",
         "gaussian.cu:120:30: warning: the CUDA toolkit's headers reject this file (no member "
         "named 'clockRate' in 'cudaDeviceProp'); it is analysed against s2s's CUDA headers, "
         "which keep what CUDA 13 removed: nvcc of this toolkit rejects the original too "
         "[cuda-toolkit-rejects]"),
        ("nesting-too-deep", "code nested too deeply",
         "The code nests deeper than s2s's analysis can follow; the file is left as it is.",
         "Nothing to do, or simplify the nesting.",
         "gen.c:1:1: error: code nested too deeply for s2s (more than about 20000 levels); "
         "the file is left as it is [nesting-too-deep]"),
        ("json-depth", "the model nests too deeply for JSON",
         "`inspect --format json`: the file's model nests deeper than JSON readers follow "
         "(Python's json stops near 1000 levels); the parts below 400 levels are left out of "
         "the document as {\"type\": \"Omitted\"}.",
         "Nothing to do, or simplify the nesting.",
         "a.c:1:1: warning: the model nests deeper than 400 levels; 1 part left out of the "
         "JSON document [json-depth]"),
        ("header-contexts-differ", "a header means something else in two includers",
         "A project header is analysed in the context of the first file that includes it; "
         "another includer defines a macro or type it uses differently, so the header's "
         "model differs there.",
         "Check the header's rewrite in both includers (s2s checks that it compiles in each); "
         "make the header mean the same thing wherever it is included.",
         "ops.h:1:1: warning: project header analysed in the context of a.c, its first "
         "includer; b.c includes it where its macros or types mean something else: its "
         "rewrite is checked in both [header-contexts-differ]"),
        ("include-not-regular", "an include names a special file",
         "An #include or -include may resolve to a device, a FIFO or a socket; the file is "
         "failed before libclang reads anything (/dev/zero would fill memory, a FIFO hang).",
         "Include regular files only.",
         "a.c:2:10: error: '#include \"/dev/zero\"' names a special file (a character "
         "device); the file is not read [include-not-regular]"),
        ("flags-dropped", "user flags dropped by the allow-list",
         "Flags that load code or write files (-fplugin=, -Xclang -load, -MD -MF, -o, "
         "--save-temps, ...) or are not known to be safe never reach the tools s2s runs.",
         "Nothing to do; the note names what was dropped. The compiler wrapper's real build "
         "keeps your flags.",
         "note: flags dropped (they load code or write files, or are not on s2s's list): "
         "-fplugin=x.so [flags-dropped]"),
        ("program-name-clash", "files analysed one by one",
         "The input files define the same function, so they are not one program; each is "
         "analysed on its own.",
         "Give the files of one program per run (or several runs).",
         "warning: analysed on its own, not as part of the program of 2 files: 'squash' is "
         "defined in a.c and in b.c [program-name-clash]"),
        ("launch-in-macro", "kernel launch inside a macro",
         "A launch written in the body of a macro that is more than the launch (it also "
         "checks the error, or holds several statements) cannot be rewritten at its call: "
         "fuse leaves it out. s2s mgpu rewrites it: in the `#define` when the file defines "
         "the macro, else (a project header's macro) by replacing the call with the macro's "
         "text around the rewritten launch, when the body's launch names only the macro's "
         "parameters. A macro that is only the launch (`#define LAUNCH(k, g, b, ...) "
         "k<<<g, b>>>(__VA_ARGS__)`) is no such case: its calls are rewritten as launches.",
         "Launch through a macro that only forwards `<<<...>>>` and check the error after it, "
         "or write the launch out.",
         "k.cu:40:3: warning: launch inside macro 'LAUNCH_CHECKED' cannot be rewritten (the "
         "macro is more than the launch); it will be left as is [launch-in-macro]"),
        ("unsupported", "construct s2s cannot rewrite safely",
         "A construct s2s cannot analyse or rewrite safely; it is left as it was.",
         "Nothing to do; the message names the construct.",
         "a.c:7:3: warning: ... left as written [unsupported]"),
    ),
    *_rules(
        "OpenMP directives (s2s omp)",
        ("omp-parse", "malformed OpenMP directive",
         "An OpenMP directive's clauses could not be read (an empty list, unbalanced "
         "parentheses, stray text).",
         "Fix the directive; clang usually rejects it too.",
         "a.c:6:45: warning: empty list in 'map' clause [omp-parse]"),
        ("omp-unknown-directive", "unknown OpenMP directive",
         "The words after '#pragma omp' name no directive s2s knows; it is ignored.",
         "Check its spelling.",
         "a.c:6:1: warning: unknown OpenMP directive: 'targt' after '#pragma omp'; it is "
         "ignored [omp-unknown-directive]"),
        ("omp-unknown-clause", "unknown OpenMP clause",
         "A clause s2s does not know; the directive is read without it.",
         "Check its spelling.",
         "a.c:6:30: warning: unknown OpenMP clause 'mapp' [omp-unknown-clause]"),
        ("omp-no-statement", "OpenMP directive without its statement",
         "A directive that needs a statement is followed by something else.",
         "Put the loop or block right after the directive.",
         "a.c:9:5: warning: '#pragma omp target' is followed by '}', not by a statement "
         "[omp-no-statement]"),
        ("omp-attribute-syntax", "[[omp::directive]] not supported",
         "C++ attribute syntax for OpenMP is not read; the directive is ignored.",
         "Use '#pragma omp' for the directives s2s should analyse.",
         "a.cpp:5:3: warning: OpenMP attribute syntax ([[omp::directive(...)]]) is not "
         "supported; this directive is ignored [omp-attribute-syntax]"),
        ("omp-pragma-operator", "_Pragma(\"omp ...\") not supported",
         "A directive written with the _Pragma operator is not read; it is ignored.",
         "Write it as '#pragma omp' where s2s should analyse it.",
         "a.c:5:3: warning: _Pragma(\"omp ...\") is not supported; this directive is ignored "
         "[omp-pragma-operator]"),
        ("omp-section-stride", "array section stride ignored",
         "An array section with a stride (a[0:n:2]); the stride is ignored by the analysis.",
         "Nothing to do if the mapping is left as written; check the region otherwise.",
         "a.c:6:40: warning: array section stride is not supported; the stride is ignored "
         "[omp-section-stride]"),
        ("omp-internal", "internal error reading a directive",
         "s2s failed on one directive (a bug); the directive is ignored, the file goes on.",
         "Report it with the directive.",
         "a.c:6:1: warning: internal error while reading this OpenMP directive (...); it is "
         "ignored [omp-internal]"),
        ("omp-existing-mapping", "hand-written data mapping kept",
         "The function already maps the arrays its target regions use; s2s keeps that "
         "mapping, and says where its own plan would differ.",
         "Compare the two plans the message names; nothing was changed.",
         "expert.c:42:1: warning: 'main' has its own data mapping for the arrays its target "
         "regions use; kept as written [omp-existing-mapping]"),
        ("omp-redundant-copy", "hand-written copy not needed",
         "A copy of the hand-written mapping is read on no path; s2s's plan drops it.",
         "Accept the rewrite, or keep the copy if something s2s cannot see reads it.",
         "a.c:30:5: warning: the exit copy of tmp[0:n] is not needed on any path that reads "
         "the copy it makes; s2s's plan drops it [omp-redundant-copy]"),
        ("omp-suspect-mapping", "hand-written mapping misses a copy",
         "The hand-written mapping never makes a copy the analysis finds needed; it is kept "
         "as written.",
         "Check the mapping: the program may read stale data.",
         "a.c:20:1: warning: the hand-written data mapping of 'main' never makes the copy of "
         "b back to the host, which the analysis finds needed; kept as written: check it "
         "[omp-suspect-mapping]"),
        ("omp-unsupported", "data mapping of a function left as written",
         "The function's data mapping could not be planned (the message says why); its "
         "regions keep their own mapping.",
         "Nothing to do; the message names what stopped the analysis.",
         "a.c:12:1: warning: data mapping of 'solve' left as written: a pointer escapes into "
         "'store' [omp-unsupported]"),
        ("omp-not-mapped", "an array keeps its per-kernel mapping",
         "One array could not be mapped across regions; it keeps its per-kernel mapping.",
         "Nothing to do; the message says why.",
         "a.c:12:5: warning: 'p' keeps its per-kernel mapping: its size is unknown "
         "[omp-not-mapped]"),
        ("omp-left-unmapped", "target region uses a pointer with no mapping",
         "A target region uses a pointer that neither the original nor the rewrite maps (an "
         "implicit zero-length section): right on the host device, wrong on a GPU; or "
         "reads a scalar member of a struct mapped member by member that no clause names "
         "(its device copy holds no value). --strict fails on it.",
         "Add a map clause with the section's size (or the member).",
         "a.c:6:5: warning: this target region still uses 'p' without a mapping (an implicit "
         "zero-length section: wrong on a GPU): its size is unknown [omp-left-unmapped]"),
        ("omp-per-construct", "a target region mapped on its own (safety net)",
         "The program-wide plan was refused for this construct; it gets map clauses of its "
         "own over the range its kernel touches (to, from or tofrom by what it reads and "
         "writes): correct on a GPU, but copies may repeat each time it runs.",
         "Read the reason; where it names a pattern s2s cannot follow, hand-written target "
         "data around the loop saves the repeated copies.",
         "a.c:40:5: warning: 'u' is mapped per construct: its element count is not known "
         "[omp-per-construct]"),
        ("omp-in-macro", "mapping would have to be edited inside a macro",
         "The data mapping of the function lies in a macro or template s2s does not edit; it "
         "is left as written.",
         "Write the directive out of the macro if you want it rewritten.",
         "a.c:12:1: warning: the data mapping of 'main' would have to be edited inside macro "
         "'OFFLOAD'; left as written [omp-in-macro]"),
        ("omp-rewrite-invalid", "the OpenMP rewrite does not compile",
         "A part of the rewrite failed the compile check and is dropped; the rest is kept.",
         "Report it as a bug with the file.",
         "a.c:14:5: warning: the data mapping of 'main' does not compile: ...; left as "
         "written [omp-rewrite-invalid]"),
        ("omp-explain", "why an OpenMP directive is there",
         "With --explain: the access that needs each inserted or removed directive.",
         "Informational.",
         "a.c:14:5: note: map(to: a): 'a' is read at line 7 before any write on the device "
         "[omp-explain]"),
    ),
    *_rules(
        "CUDA transfers (s2s transfers)",
        ("transfers-escape", "pointer not followed",
         "The pointer of a CUDA buffer is passed where s2s cannot follow it; the region's "
         "transfers are left as written.",
         "Nothing to do; keep the buffer's uses in the function if you want them optimised.",
         "m.cu:20:5: warning: cannot follow the pointer allocated by 'cudaMalloc(&d, n)' "
         "[transfers-escape]"),
        ("transfers-wrapper", "copies behind a wrapper left as written",
         "A host function whose statements each make one cudaMemcpy/cudaMemset (or check an "
         "error), in the file or a project header, is followed to its calls: each call is the "
         "copy at the call site. This warning says the followed copies still stay as written "
         "(with the reasons the pass gave at the calls), or why the wrapper is not followed "
         "(it returns a value, takes a reference, does more than copy).",
         "Nothing to do; the reasons name what keeps the copies apart.",
         "m.cu:47:5: warning: the copies of 'copy_to_device' (io.h:19) are followed to its "
         "calls (line 47, 48) and left as written there: 'd_u' is aliased or reassigned "
         "[transfers-wrapper]"),
        ("transfers-included-source", "copies in a .cu file included as text",
         "A .cu file the file includes as text (#include \"driver.cu\") holds CUDA copies or "
         "allocations; s2s transfers edits the file given only, so they stay as written.",
         "Nothing to do; move the host code into the file given if you want it optimised.",
         "main.cu:3:1: warning: 12 CUDA copies and allocations in driver.cu, a .cu file "
         "included as text, are left as written [transfers-included-source]"),
        ("transfers-member", "buffer is a class member",
         "The buffer is a data member whose storage lives across member functions; only "
         "buffers one function allocates and frees are pooled and merged.",
         "Nothing to do.",
         "m.cu:30:5: warning: 'd_x' is a data member allocated in 'init': ... "
         "[transfers-member]"),
        ("transfers-unsupported-call", "CUDA call s2s does not model",
         "A CUDA API call on a buffer of the region that s2s does not model; the region is "
         "left as written.",
         "Nothing to do.",
         "m.cu:44:5: warning: 'cudaMemset' of host buffer 'h' [transfers-unsupported-call]"),
        ("transfers-copy-kind", "copy kind not handled",
         "A device-to-device copy (or an unexpected copy kind) in the region.",
         "Nothing to do.",
         "m.cu:50:5: warning: a device-to-device copy of 'd_b' [transfers-copy-kind]"),
        ("transfers-partial-copy", "copy may not cover the buffer",
         "A copy's byte count may differ from the buffer's size; merging it could lose data.",
         "Use the buffer's size expression in the copy if it is meant to cover all of it.",
         "m.cu:41:5: warning: the copy of 'n / 2 * sizeof(float)' bytes may not cover 'd_a' "
         "('n * sizeof(float)' bytes) [transfers-partial-copy]"),
        ("transfers-in-macro", "CUDA call inside a macro",
         "A CUDA call comes from a macro body; it cannot be edited where it is.",
         "Write the call out at its use if you want it rewritten (a CHECK(...) wrapper "
         "around the call is fine).",
         "m.cu:20:5: warning: 'cudaMemcpy' comes from the body of macro 'COPY' "
         "[transfers-in-macro]"),
        ("transfers-realloc", "buffer reallocated or freed by the C library",
         "A host buffer of the region is passed to realloc or free inside it.",
         "Nothing to do.",
         "m.cu:60:5: warning: 'h' is passed to realloc [transfers-realloc]"),
        ("transfers-stream", "stream work the plan cannot order",
         "Launches and copies on a blocking stream the function creates are planned around; "
         "a non-blocking stream, one chosen at run time, or two streams' work ordered only by "
         "a copy the plan moves is not provably ordered with the planned copies; the region's "
         "transfers are left as written.",
         "Create the stream with cudaStreamCreate, or synchronise the first stream before the "
         "second uses its result.",
         "m.cu:33:5: warning: 'cudaMemcpyAsync' on stream 's1': stream 's1' is created at line 20 "
         "with flags 'cudaStreamNonBlocking': a non-blocking stream is not ordered with the "
         "default stream's copies the plan places, ... [transfers-stream]"),
        ("transfers-control-flow", "transfer would have to move into a loop",
         "The planned place of a transfer lies inside a loop or branch; the region is left as "
         "written.",
         "Nothing to do.",
         "warning: 'd_a' would have to move inside a loop [transfers-control-flow]"),
        ("transfers-placement", "no place for a planned copy",
         "No statement between the allocations and frees of the buffers can hold the copy.",
         "Nothing to do.",
         "m.cu:70:5: warning: no place between the allocations and frees of the buffers for a "
         "planned copy [transfers-placement]"),
        ("transfers-unknown-buffer", "transfer of an unknown buffer",
         "A transfer names a buffer s2s did not see allocated.",
         "Nothing to do.",
         "m.cu:45:5: warning: unknown buffer 'p' in the transfer region "
         "[transfers-unknown-buffer]"),
        ("transfers-space", "buffer used in the other memory space",
         "A host buffer is used as a device operand or the other way round.",
         "Check the copy's direction.",
         "m.cu:45:5: warning: 'h' is a host buffer used as a device operand [transfers-space]"),
        ("transfers-aliased-buffers", "value copied between buffers that alias",
         "A value moves through several buffers in a way one transfer per value cannot "
         "express.",
         "Nothing to do.",
         "m.cu:50:5: warning: the value 'd_b' holds came from 'h_a' and is copied on to ... "
         "[transfers-aliased-buffers]"),
        ("transfers-use-after-free", "buffer used after it was freed",
         "The region uses a buffer after cudaFree or free: a bug in the program, or a path "
         "s2s cannot tell apart.",
         "Check the program.",
         "m.cu:80:5: warning: 'd_a' is used after it was freed [transfers-use-after-free]"),
        ("transfers-uninitialized", "buffer read before it is written",
         "A local buffer is read before anything is written to it.",
         "Check the program.",
         "m.cu:22:5: warning: 'd_t' is read before anything is written to it "
         "[transfers-uninitialized]"),
        ("transfers-device-reuse", "a buffer returns to an earlier value",
         "A value comes back to a buffer after the buffer held another one; one transfer per "
         "value cannot express that.",
         "Nothing to do.",
         "m.cu:60:5: warning: a value returns to 'd_a' after the buffer held another one; a "
         "single transfer per value cannot express that [transfers-device-reuse]"),
        ("transfers-reload", "host value copied back after the host overwrote it",
         "The device copy would be read back after the host changed the buffer.",
         "Nothing to do.",
         "m.cu:66:5: warning: 'h_a' gets back a host value after the host overwrote it; ... "
         "[transfers-reload]"),
        ("transfers-window", "transfers of a region cannot be planned",
         "A value is needed on the host at two separate times; the region is left as written.",
         "Nothing to do.",
         "warning: cannot plan the transfers of this region: ... [transfers-window]"),
        ("transfers-explain", "why a transfer moved",
         "With --explain: the reason for each moved, merged or removed call.",
         "Informational.",
         "m.cu:30:5: note: the 3 allocations share one pool [transfers-explain]"),
    ),
    *_rules(
        "CUDA kernel fusion (s2s fuse)",
        ("fuse-explain", "why kernels were or were not fused",
         "With --explain: each kernel's class and each fusion made or refused, with the "
         "reason.",
         "Informational.",
         "k.cu:40:3: note: refused: scale + reduce: reduce reads what scale writes in another "
         "block [fuse-explain]"),
        ("fuse-invalid", "a fusion does not compile",
         "The rewrite of a sequence of launches failed the compile check and is dropped; the "
         "launches stay as written.",
         "Report it as a bug with the file.",
         "k.cu:40:3: warning: the fusion of the launches from scale in 'main' does not "
         "compile: ...; left as written [fuse-invalid]"),
        ("fuse-unfused", "launches left unfused, and why",
         "A run of two or more launches (or a launch that could join one) is not fused; the "
         "message names the dependence or other reason. --strict fails on it.",
         "Nothing to do where the dependence is real; otherwise restructure as the reason says.",
         "k.cu:48:5: warning: 2 launches left unfused: 'relax' reads 'u' that 'smooth' "
         "writes at another index (needs a global barrier) [fuse-unfused]"),
    ),
    *_rules(
        "Multi-GPU partitioning (s2s mgpu)",
        ("mgpu-launch", "launch cannot be rewritten",
         "A kernel launch cannot be rewritten for the runtime; the program is not partitioned "
         "there.",
         "Nothing to do; the message says why.",
         "k.cu:52:5: warning: launch of 'k' cannot be rewritten: its grid is not a dim3 or "
         "integer expression [mgpu-launch]"),
        ("mgpu-api", "CUDA call cannot be rewritten",
         "A CUDA API call cannot be mapped onto the runtime's.",
         "Nothing to do; the message says why.",
         "k.cu:20:5: warning: 'cudaMemcpyToSymbol' cannot be rewritten: its symbol is not a "
         "variable's plain name [mgpu-api]"),
        ("mgpu-explain", "why an mgpu edit is made",
         "A note with each mgpu edit (the prologue, each launch, the epilogue) saying what it "
         "does and why.",
         "Nothing to do; it is the reason shown next to the change.",
         "k.cu:30:5: note: the launch of 'scale' runs over the runtime's devices, split by "
         "rows of 'a' [mgpu-explain]"),
        ("mgpu-one-device", "kernel runs on one device",
         "The kernel's accesses cannot be partitioned; it runs whole on one device.",
         "Nothing to do; the message says why.",
         "k.cu:60:5: note: kernel 'scan' runs on one device (not partitioned): its writes "
         "depend on other blocks [mgpu-one-device]"),
        ("mgpu-run-time-check", "the runtime decides whether a launch is split",
         "The kernel's writes are injective for some sizes and not for others (on a sample "
         "launch two blocks write one element; with large sizes none do, as in "
         "out[y * width + x] launched with width threads per row). The runtime checks each "
         "launch's own grid, block and integer arguments: a launch whose writes are injective "
         "is split, one that is not runs whole on one device.",
         "Nothing to do; launches whose sizes cover the grid exactly are split.",
         "k.cu:40:5: warning: kernel 'k' runs on one device at a launch whose sizes make two "
         "blocks write one element: ... [mgpu-run-time-check]"),
        ("mgpu-other-file", "kernel defined in another file",
         "The launched kernel is defined in another .cu file, which must be rewritten by s2s "
         "mgpu too, or the program stops at this launch.",
         "Rewrite that file with s2s mgpu as well.",
         "main.cu:30:5: warning: kernel 'k' is defined in another file: ... [mgpu-other-file]"),
        ("mgpu-table-file-taken", "the name of the file's kernel table is taken",
         "s2s mgpu generates each rewritten file's kernel table beside it (k.cu -> "
         "k.cu.s2s_mgpu.h, starting with '/* Generated by s2s mgpu'). A file of that name "
         "which s2s did not generate (it lacks that first line), or which cannot be read, is "
         "never overwritten: the source is left as it was.",
         "Rename or move the file that has the table's name (or the source file).",
         "k.cu:1:1: error: k.cu.s2s_mgpu.h exists and is not a kernel table s2s mgpu "
         "generated (...); s2s does not overwrite it: rename it, or rename this file; the file "
         "is left as it was [mgpu-table-file-taken]"),
        ("mgpu-rewrite-invalid", "the mgpu rewrite does not compile",
         "The rewrite of the file for the runtime failed the compile check; the file is left "
         "as written.",
         "Report it as a bug with the file.",
         "k.cu:1:1: warning: the file for the s2s runtime does not compile: ...; left as "
         "written [mgpu-rewrite-invalid]"),
        ("rewrite-invalid", "a rewrite does not compile",
         "A group of edits failed the compile check and is dropped.",
         "Report it as a bug with the file.",
         "a.c:9:5: warning: ... does not compile: ...; left as written [rewrite-invalid]"),
    ),
    *_rules(
        "Writing files",
        ("in-place-refused", "file not rewritten in place",
         "--in-place leaves a read-only file, or one with several hard links, alone.",
         "Use --force, or -o DIR to write a copy.",
         "error: a.c is read-only; not rewritten (--force rewrites it and keeps its "
         "permissions) [in-place-refused]"),
        ("file-name-encoding", "a file name that is not UTF-8",
         "libclang reads file names as UTF-8 only; a name with other bytes is refused (the "
         "file fails, the others go on).",
         "Rename the file, or give a symbolic link with a UTF-8 name.",
         "error: the file name bad\\xff.c is not valid UTF-8, and libclang reads UTF-8 names "
         "only: rename the file (or link it under a UTF-8 name) [file-name-encoding]"),
        ("write-failed", "a file could not be written",
         "Writing the rewritten file failed (full disk, read-only directory); the original "
         "is left as it was.",
         "Fix the cause named in the message and run again.",
         "error: cannot write out/a.c: No space left on device; a.c is left as it was "
         "[write-failed]"),
        ("output-not-regular", "an output path is not a regular file",
         "s2s writes regular files only: a device node, a FIFO or a directory named as an "
         "output is refused and left as it is.",
         "Name a regular file (or a new path) as the output.",
         "error: not a regular file (a character device): /dev/null; left as it is "
         "[output-not-regular]"),
        ("file-changed", "a file changed while s2s ran",
         "Just before replacing a file, --in-place found its size, time or contents changed "
         "since s2s read it (an editor saved it); the new text is kept and the file fails.",
         "Run s2s again on the saved file.",
         "error: a.c changed while s2s was running (size 1200 -> 1230); it is left as it is "
         "[file-changed]"),
        ("edit-conflict", "two planned edits overlap",
         "Two edits of one run overlap; applying either would corrupt the file, so neither "
         "is applied.",
         "Report it as a bug with the file.",
         "a.c:5:1: error: edits overlap ... [edit-conflict]"),
        ("edit-in-macro", "edit inside a macro expansion refused",
         "An edit would fall inside a macro expansion; s2s never edits there.",
         "Nothing to do; the construct is left as it was.",
         "a.c:5:1: error: refusing to edit inside the expansion of macro 'M' [edit-in-macro]"),
        ("edit-in-template", "edit inside a template instantiation refused",
         "An edit would fall inside a template instantiation; s2s never edits there.",
         "Nothing to do; the construct is left as it was.",
         "k.cu:5:1: error: refusing to edit inside template 'apply<float>' "
         "[edit-in-template]"),
    ),
    *_rules(
        "Verification (s2s verify)",
        ("verify-output", "outputs differ",
         "The rewritten program printed something else than the original.",
         "Report it with the program: the rewrite changed behaviour. Use --tolerance or "
         "--ignore-lines for output that varies between runs (timings).",
         "error: outputs differ in 1 place(s); first: line 3: 'sum 10' vs 'sum 12' "
         "[verify-output]"),
        ("verify-exit-status", "exit statuses differ",
         "The two programs exited with different statuses.",
         "Report it with the program.",
         "error: exit status differs: original 0, rewritten 1 [verify-exit-status]"),
        ("verify-original-fails", "the original program fails",
         "The original program exits with an error: there is nothing to compare.",
         "Give the program the arguments it needs (--args) or fix it.",
         "error: the original program exits with 2: nothing to compare ... "
         "[verify-original-fails]"),
        ("verify-exit-message", "what a failing program said",
         "The last lines a failing program wrote on stderr.",
         "Read them for the cause of the failure.",
         "note: the rewritten program exited with status 1: s2s runtime: ... "
         "[verify-exit-message]"),
        ("verify-one-device", "the rewritten program ran on one device",
         "Under --devices N, the passes did not rewrite the program for the s2s runtime (only "
         "mgpu does): a plain CUDA program runs on one cpu device, as the original does.",
         "Add mgpu to --passes to run the program on N devices; nothing to fix otherwise.",
         "note: the rewritten program ran on 1 cpu device, as the original did, not on the 2 "
         "asked for: the passes (fuse) did not rewrite it for the s2s runtime ... "
         "[verify-one-device]"),
        ("verify-unmapped", "rewritten program uses unmapped memory",
         "The rewritten program uses a pointer with no device mapping: right on the host "
         "device, wrong on a GPU.",
         "Report it with the program.",
         "error: the rewritten program uses 0x7f.. with no device mapping: right on the host "
         "device, wrong on a GPU [verify-unmapped]"),
        ("verify-unmapped-original", "original program uses unmapped memory",
         "The original program already uses a pointer with no device mapping.",
         "Fix the original's mapping (s2s omp may do it).",
         "warning: the original program uses 0x7f.. with no device mapping "
         "[verify-unmapped-original]"),
        ("verify-build-*", "a version of the program does not build",
         "verify-build-original or verify-build-rewritten: the compiler refused one version.",
         "For the original: give the build flags after '--'. For the rewritten one: report it.",
         "error: the rewritten program does not build: k.cu:3: error: ... "
         "[verify-build-rewritten]"),
        ("verify-build-original", "the original program does not build",
         "The original program does not compile with the flags given.",
         "Give the build flags after '--' (-I, -D, libraries).",
         "error: the original program does not build: a.c:1: fatal error: x.h: No such file "
         "[verify-build-original]"),
        ("verify-build-rewritten", "the rewritten program does not build",
         "The rewrite compiles on its own but the program does not build.",
         "Report it with the program.",
         "error: the rewritten program does not build: ... [verify-build-rewritten]"),
        ("verify-timeout-*", "a program ran too long",
         "verify-timeout-original or verify-timeout-rewritten: a run exceeded --timeout.",
         "Raise --timeout, or give smaller inputs with --args.",
         "error: the rewritten program ran longer than 120 s [verify-timeout-rewritten]"),
        ("verify-output-truncated", "a program printed more than verify keeps",
         "verify keeps at most 32 MiB of each output stream of a program; the rest is read, "
         "counted and dropped, and the comparison covers what was kept.",
         "Print less, or compare the rest yourself.",
         "warning: the original printed 1,073,741,824 bytes on stdout; the first 33,554,432 "
         "were compared [verify-output-truncated]"),
        ("verify-rewrite-incomplete", "a pass asked for dropped its rewrite",
         "A pass verify was asked to run dropped its rewrite (it did not compile, or an error "
         "stopped it): what verify ran is not what was asked, so the verdict fails.",
         "Read the pass's own error above it.",
         "error: mgpu produced no rewrite of k.cu ([mgpu-rewrite-invalid]); the verdict "
         "does not cover it [verify-rewrite-incomplete]"),
        ("verify-signal-*", "a program was killed by a signal",
         "verify-signal-original or verify-signal-rewritten: a run ended by a signal "
         "(a crash).",
         "For the rewritten one: report it with the program.",
         "error: the rewritten program was killed by SIGSEGV [verify-signal-rewritten]"),
        ("verify-header", "the rewrite changes a project header",
         "The passes would change a project header, which verify cannot build yet.",
         "Verify the files that include it with the header rewritten by hand, or skip verify.",
         "error: the rewrite changes the project header inc/k.h, which verify cannot build "
         "yet [verify-header]"),
        ("verify-unavailable", "the program cannot be verified here",
         "This kind of program cannot be verified by this s2s; nothing was run (exit 2).",
         "Read the message for what is missing.",
         "error: ... nothing was built or run [verify-unavailable]"),
        ("verify-*-unavailable", "no backend for this kind of program",
         "verify-openmp-unavailable or verify-cuda-unavailable: no verifier is registered.",
         "Install the full s2s package.",
         "error: this s2s cannot verify cuda programs (no backend is registered) "
         "[verify-cuda-unavailable]"),
        ("verify-cuda-unsupported", "the CUDA program cannot run on the host shim",
         "verify runs CUDA programs on cpu devices; this one uses something the shim lacks, "
         "or was given non-.cu files.",
         "Verify on a machine with a GPU, or with the .cu files of the program.",
         "error: a CUDA program is verified from its .cu files; got main.c: ... "
         "[verify-cuda-unsupported]"),
        ("verify-no-nvcc", "no nvcc to build the mgpu rewrite",
         "The mgpu rewrite is built with nvcc against the runtime; none was found.",
         "Install the CUDA toolkit or set S2S_REAL_NVCC.",
         "error: the mgpu rewrite is built with nvcc against the s2s runtime, and no nvcc was "
         "found (set S2S_REAL_NVCC) ... [verify-no-nvcc]"),
        ("verify-no-mpi", "--ranks cannot run",
         "--ranks needs a program rewritten for the runtime and an MPI installation.",
         "Run mgpu among the passes, install MPI, or drop --ranks.",
         "error: --ranks runs a program rewritten for the s2s runtime (the mgpu pass); the "
         "passes did not make one [verify-no-mpi]"),
    ),
    *_rules(
        "Compiler wrapper (s2s nvcc, s2s COMPILER)",
        ("wrapper-no-compiler", "the real compiler is not found",
         "The wrapper cannot find the compiler it stands for.",
         "Put it on PATH or name it in .s2s.toml ('nvcc').",
         "error: nvcc: the configured real nvcc '/opt/x/nvcc' is not an executable "
         "[wrapper-no-compiler]"),
        ("wrapper-config", "wrapper settings problem",
         "A setting of the wrapper (S2S_PASSES, .s2s.toml) could not be used; the build goes "
         "on without it.",
         "Fix the setting the message names.",
         "warning: unknown pass 'omq' in S2S_PASSES [wrapper-config]"),
        ("wrapper-pass-unavailable", "a pass is not available",
         "A pass asked for is unknown or not available in this s2s; the build compiles "
         "without it.",
         "Check the pass names.",
         "warning: nvcc: pass 'xyz' unknown; compiling without it "
         "[wrapper-pass-unavailable]"),
        ("wrapper-fallback", "compiled the original sources",
         "The rewrite could not be made; the wrapper compiled the original sources unchanged.",
         "Read the reason; the build is the original one.",
         "warning: nvcc: a.cu does not parse; compiled the original sources unchanged "
         "[wrapper-fallback]"),
        ("wrapper-rewrite-failed", "the rewrite did not compile",
         "The compiler refused the rewritten sources; the original sources were compiled "
         "instead.",
         "Report it with the file.",
         "warning: nvcc: the rewritten sources did not compile (...); compiled the original "
         "sources instead [wrapper-rewrite-failed]"),
        ("wrapper-deps", "dependency file not fixed",
         "The compiler's dependency output could not be mapped back to the original paths.",
         "Rebuilds may miss a change; report it with the command line.",
         "warning: nvcc: ... [wrapper-deps]"),
    ),
    *_rules(
        "s2s itself",
        ("toolchain", "a required tool is missing",
         "libclang, clang-16 or nvcc is missing or unusable (exit 2).",
         "Run scripts/setup.sh, or install what the message names.",
         "error: cannot build OpenMP offload programs here: clang-16 not found [toolchain]"),
        ("internal", "internal error",
         "A bug in s2s; the file (or program) is left as it was. -vv shows the traceback.",
         "Report it with the file and the traceback of -vv.",
         "error: internal error while processing this file: KeyError: 'x' [internal]"),
        ("error", "error",
         "An error without a more specific id.",
         "Read the message.",
         "error: ... [error]"),
    ),
)

_BY_ID = {rule.id: rule for rule in RULES}


def rule_for(diagnostic_id: str) -> Rule | None:
    """The rule of an id: its own, else its family's (``verify-timeout-*``)."""
    rule = _BY_ID.get(diagnostic_id)
    if rule is not None:
        return rule
    families = [r for r in RULES if "*" in r.id and fnmatch.fnmatchcase(diagnostic_id, r.id)]
    return max(families, key=lambda r: len(r.id.replace("*", "")), default=None)


def anchor(rule_id: str) -> str:
    """The id's anchor in docs/diagnostics.md (GitHub's: lower case, '*' dropped)."""
    return rule_id.lower().replace("*", "")


def help_uri(rule_id: str) -> str | None:
    """The link to the id's entry in docs/diagnostics.md (None: no address is known)."""
    base = docs_url()
    return f"{base}#{anchor(rule_id)}" if base else None


def docs_url() -> str | None:
    """Where docs/diagnostics.md is published: ``S2S_DOCS_URL`` (a fork or a mirror), else
    the ``Diagnostics`` address of pyproject.toml's [project.urls], its one source."""
    return os.environ.get("S2S_DOCS_URL") or project_docs_url()


@functools.cache
def project_docs_url() -> str | None:
    """The ``Diagnostics`` project URL: from pyproject.toml beside the package (a checkout:
    always the current text), else from the installed distribution's metadata (a wheel, whose
    ``Project-URL`` lines pyproject.toml wrote); None when neither names it."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == "s2s":
            return project.get("urls", {}).get(DOCS_LABEL)
    except (OSError, ValueError):
        pass
    from importlib import metadata  # (a wheel only: a run that needs no URL skips it)

    try:
        meta = metadata.metadata("s2s")
    except metadata.PackageNotFoundError:
        return None
    if meta.get("Version") != __version__:      # another distribution named s2s
        return None
    for entry in meta.get_all("Project-URL") or ():
        label, _, url = entry.partition(",")
        if label.strip() == DOCS_LABEL:
            return url.strip()
    return None
