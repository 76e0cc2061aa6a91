"""``--format json`` and ``--format sarif`` of the rewriting commands (issue 20, items 1-2).

Both are printers of the edit set that ``--diff`` prints and ``-o DIR`` writes: applying the
edits of the JSON, or the fixes of the SARIF log, to the original bytes must give exactly the
file s2s writes. Every document is validated against the schema shipped in the package (and
the SARIF log against the schema of the SARIF subset s2s writes).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import jsonschema
import pytest

from s2s.cli.main import main
from s2s.printers.json_doc import SCHEMA_FILE, load_schema
from s2s.printers.sarif import SUBSET_SCHEMA_FILE, _Columns
from testsuite.printers.program import write_program
from testsuite.printers.sarif_checks import code_scanning_problems, full_schema_errors

REPO = Path(__file__).resolve().parents[2]
VADD = REPO / "samples" / "cuda" / "vadd" / "vadd.cu"

SCHEMA = load_schema()
SARIF_SCHEMA = json.loads(SUBSET_SCHEMA_FILE.read_text())


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def validate(document: dict) -> None:
    jsonschema.validate(document, SCHEMA, format_checker=jsonschema.FormatChecker())


def apply_json_edits(entry: dict, source: bytes) -> bytes:
    """The file the JSON's edits make of ``source`` (edits are in application order)."""
    out, pos = [], 0
    for edit in entry["edits"]:
        assert source[edit["offset"]:edit["offset"] + edit["length"]].decode() == edit["old"]
        out.append(source[pos:edit["offset"]])
        out.append(edit["new"].encode())
        pos = edit["offset"] + edit["length"]
    return b"".join(out) + source[pos:]


def apply_sarif_fixes(log: dict, uri: str, source: bytes) -> bytes:
    replacements = []
    for result in log["runs"][0]["results"]:
        for fix in result.get("fixes", ()):
            for change in fix["artifactChanges"]:
                if change["artifactLocation"]["uri"] == uri:
                    replacements += change["replacements"]
    out, pos = [], 0
    for r in replacements:        # in the order of the results: the edit set's order
        offset, length = r["deletedRegion"]["byteOffset"], r["deletedRegion"]["byteLength"]
        out.append(source[pos:offset])
        out.append(r["insertedContent"]["text"].encode())
        pos = offset + length
    return b"".join(out) + source[pos:]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", ["transfers", "fuse", "mgpu"])
def test_cuda_passes_json_and_sarif_are_the_written_rewrite(command, in_tmp, capsys):
    shutil.copy(VADD, in_tmp / "vadd.cu")
    code, out, err = run(capsys, command, "--format", "json", "vadd.cu")
    assert code == 0, err
    document = json.loads(out)
    validate(document)
    assert document["command"] == command and document["summary"]["changed"] == 1
    (entry,) = document["files"]
    assert entry["changed"] and entry["edits"]
    if command == "transfers":   # no groups: each edit takes its function's closest note
        assert all(e["explanation"] for e in entry["edits"])
        assert "4 cudaMemcpy calls become 2" in entry["edits"][0]["explanation"][0]
    code, _, err = run(capsys, command, "-o", "out", "vadd.cu")
    assert code == 0, err
    written = (in_tmp / "out" / "vadd.cu").read_bytes()
    original = (in_tmp / "vadd.cu").read_bytes()
    assert apply_json_edits(entry, original) == written
    code, out, err = run(capsys, command, "--format", "sarif", "vadd.cu")
    assert code == 0, err
    log = json.loads(out)
    jsonschema.validate(log, SARIF_SCHEMA, format_checker=jsonschema.FormatChecker())
    assert full_schema_errors(log) == []
    assert code_scanning_problems(log, len(out.encode())) == []
    assert apply_sarif_fixes(log, "vadd.cu", original) == written
    fixes = [r for r in log["runs"][0]["results"] if r.get("fixes")]
    generated = entry.get("generated", [])        # mgpu: the kernel table, one created file
    assert [g["created"] for g in generated] == ([True] if command == "mgpu" else [])
    assert len(fixes) == len(entry["edits"]) + len(generated)
    assert all(r["ruleId"] == f"{command}-rewrite" for r in fixes)
    for created in generated:
        table = (in_tmp / "out" / created["path"]).read_text()
        assert apply_sarif_fixes(log, created["path"], b"").decode() == table


def test_whole_program_json_lists_every_file_with_its_edits_and_reasons(in_tmp, capsys):
    main_c, solver_c = write_program(in_tmp)
    code, out, err = run(capsys, "omp", "--format", "json", "main.c", "solver.c")
    assert code == 0, err
    document = json.loads(out)
    validate(document)
    by_path = {f["path"]: f for f in document["files"]}
    assert set(by_path) == {"main.c", "solver.c"}
    assert by_path["solver.c"]["edits"] == [] and not by_path["solver.c"]["changed"]
    edits = by_path["main.c"]["edits"]
    news = [e["new"].strip() for e in edits]
    assert news[0].startswith("#pragma omp target enter data map(to: u[0:(size_t)n]")
    assert "#pragma omp target exit data map(release: u[0:(size_t)n]" in news[-1]
    # each edit says why: the region's note where the region starts, also for its exit
    assert all(e["explanation"] for e in edits), edits
    assert all(e["group"] == "the data mapping of 'main'" for e in edits)
    assert "maps u[0:(size_t)n] (to/release)" in edits[-1]["explanation"][0]
    assert edits[0]["start"] == {"line": 15, "column": 1}
    assert document["summary"] == {"files": 2, "changed": 1, "failed": 0,
                                   "counts": {"target regions mapped": 2, "mapped per construct": 0, "left unmapped": 0}}
    # the same edit set as the in-place rewrite of the program
    original = main_c.read_bytes()
    code, _, err = run(capsys, "omp", "--in-place", "main.c", "solver.c")
    assert code == 0, err
    assert apply_json_edits(by_path["main.c"], original) == main_c.read_bytes()
    # a second run has nothing to do: no edits in any file
    code, out, _ = run(capsys, "omp", "--format", "json", "main.c", "solver.c")
    assert all(f["edits"] == [] for f in json.loads(out)["files"])


LEFT_ALONE = """#include <stdlib.h>
void kernel_of(double *a, int n);
int main(void)
{
    int n = 1000;
    double *bufs[2];
    bufs[0] = (double *)malloc(n * sizeof(double));
    bufs[1] = (double *)malloc(n * sizeof(double));
    for (int t = 0; t < 4; t++) {
        double *p = bufs[t % 2];
        #pragma omp target teams distribute parallel for
        for (int i = 0; i < n; i++)
            p[i] = i;
    }
    return 0;
}
"""


def test_sarif_shows_what_was_left_alone_as_warnings(in_tmp, capsys):
    (in_tmp / "left.c").write_text(LEFT_ALONE)
    code, out, err = run(capsys, "omp", "--format", "sarif", "left.c")
    log = json.loads(out)
    jsonschema.validate(log, SARIF_SCHEMA)
    warnings = [r for r in log["runs"][0]["results"] if r["level"] == "warning"]
    assert warnings, out
    for result in warnings:
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and "fixes" not in result
        assert result["ruleId"] in {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    # the same warnings on stderr, and in the JSON's diagnostics; --silence hides them in all
    code, out, _ = run(capsys, "omp", "--format", "json", "left.c")
    ids = {d["id"] for d in json.loads(out)["files"][0]["diagnostics"]}
    assert ids == {r["ruleId"] for r in warnings}
    code, out, _ = run(capsys, "omp", "--format", "sarif", *(f"--silence={i}" for i in ids),
                       "left.c")
    assert not [r for r in json.loads(out)["runs"][0]["results"] if r["level"] == "warning"]


def test_sarif_paths_are_relative_to_srcroot_and_columns_count_characters(in_tmp, capsys):
    directory = in_tmp / "my src"
    directory.mkdir()
    write_program(directory)
    text = (directory / "main.c").read_text().replace(
        "    clock_t start", "    /* é */ clock_t start")
    (directory / "main.c").write_text(text)
    code, out, err = run(capsys, "omp", "--format", "sarif", "my src/main.c", "my src/solver.c")
    assert code == 0, err
    log = json.loads(out)
    run_ = log["runs"][0]
    assert run_["originalUriBaseIds"]["SRCROOT"]["uri"] == in_tmp.resolve().as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in run_["results"]}
    assert uris == {"my%20src/main.c"}
    # a byte column after a two-byte character is one character less
    columns = _Columns("    /* \u00e9 */ x = 1;\n".encode())
    assert columns.column(1, 16) == 15 and columns.column(1, 5) == 5


def test_inspect_json_has_the_same_envelope(in_tmp, capsys):
    shutil.copy(VADD, in_tmp / "vadd.cu")
    code, out, _ = run(capsys, "inspect", "--format", "json", "vadd.cu")
    assert code == 0
    document = json.loads(out)
    validate(document)
    assert document["command"] == "inspect" and document["schema_version"].startswith("1.")


def test_failed_file_is_in_the_document_with_its_error(in_tmp, capsys):
    (in_tmp / "bad.c").write_text("int main(void) { int x = ; }\n")
    write_program(in_tmp)
    code, out, _ = run(capsys, "omp", "--format", "json", "bad.c", "main.c", "solver.c")
    assert code == 1
    document = json.loads(out)
    validate(document)
    bad = next(f for f in document["files"] if f["path"] == "bad.c")
    assert bad["status"] == "failed" and bad["diagnostics"][0]["id"] == "clang-error"
    code, out, _ = run(capsys, "omp", "--format", "sarif", "bad.c")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["level"] == "error" and result["ruleId"] == "clang-error"


def test_schema_ships_in_the_package():
    assert SCHEMA_FILE.is_file() and SUBSET_SCHEMA_FILE.is_file()
    assert str(SCHEMA_FILE.relative_to(REPO)).startswith("s2s" + os.sep)
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator.check_schema(SARIF_SCHEMA)


def test_verify_json_has_the_same_envelope(in_tmp, capsys):
    from s2s.verify import omp_harness

    problem = omp_harness.toolchain_problem()
    if problem:
        pytest.skip(problem)
    write_program(in_tmp)
    code, out, err = run(capsys, "verify", "--format", "json", "--ignore-lines", "^Time: ",
                         "main.c", "solver.c")
    assert code == 0, err
    document = json.loads(out)
    validate(document)
    (program,) = document["programs"]
    assert program["ok"] and program["changed"] == ["main.c"]
    assert [(f["path"], f["changed"]) for f in document["files"]] == [("main.c", True),
                                                                      ("solver.c", False)]
    # the rewrite moves less: per-kernel copies in become the data region's one copy in
    assert program["rewritten"]["copies"]["h2d_count"] < program["original"]["copies"]["h2d_count"]
