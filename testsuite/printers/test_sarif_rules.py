"""SARIF for code scanning: every id the code can emit has a rule (short and full
description, help, a link into docs/diagnostics.md), the page lists them all and is up to
date, every result has a region, messages are never cut, and the log passes the SARIF schema
and the checks GitHub code scanning applies when it ingests a file."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import jsonschema
import pytest

from s2s.cli.main import main
from s2s.printers.rules import RULES, anchor, help_uri, rule_for
from s2s.printers.sarif import SUBSET_SCHEMA_FILE
from testsuite.printers.sarif_checks import code_scanning_problems, full_schema_errors

REPO = Path(__file__).resolve().parents[2]
ID_SHAPE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9*]+)+$")
#: id-shaped strings in id positions that are no diagnostic id: configuration keys and the
#: transfers analysis's event kinds
NOT_IDS = {"cuda-path", "gpu-arch", "nvcc-check", "copy-loop", "device-alloc", "device-free",
           "host-alloc", "host-free", "exact-path", "null-init", "null-test", "opaque-copy",
           "element-loop", "device-call", "reaching-call"}


def _literal(node: ast.AST) -> str | None:
    """A string constant, or an f-string as a glob (``verify-timeout-*``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
    return None


def emitted_ids() -> dict[str, str]:
    """Every id the code can emit, with a place that emits it: second argument of a call
    (``Diagnostic.warning(message, id)``, ``ctx.warn``, ``Refusal``), ``id=`` keywords,
    later items of tuples (``(message, id, span)``), names ending in ID / _id, and the
    exception classes' ``default_id``. The fuzzer (its own mutation names) is left out."""
    found: dict[str, str] = {}
    for path in sorted((REPO / "s2s").rglob("*.py")):
        if path.is_relative_to(REPO / "s2s" / "verify" / "fuzz"):
            continue                       # the fuzzer's mutation names
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            candidates, default = [], False
            if isinstance(node, ast.Call):
                candidates = node.args[1:] + [k.value for k in node.keywords
                                              if k.arg in ("id", "invalid_id")]
            elif isinstance(node, ast.Tuple):
                candidates = node.elts[1:]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [getattr(t, "id", getattr(t, "attr", "")) for t in targets]
                default = "default_id" in names
                if default or any(n.endswith(("ID", "_id", "SKIPPED")) for n in names):
                    candidates = [node.value]
            for candidate in candidates:
                text = _literal(candidate)
                if text and (default or ID_SHAPE.match(text)) and text not in NOT_IDS:
                    found.setdefault(text, f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_the_extraction_finds_the_ids_it_should():
    """A guard on the guard: ids of each kind of place are found."""
    ids = emitted_ids()
    for expected in ("omp-left-unmapped", "omp-redundant-copy", "transfers-member", "mgpu-api",
                     "verify-timeout-*", "parse-error", "internal", "nvcc-original-error",
                     "write-failed", "omp-pragma-operator", "fuse-invalid"):
        assert expected in ids, expected
    assert len(ids) > 80


def test_every_id_the_code_emits_has_a_rule():
    missing = {i: where for i, where in emitted_ids().items() if rule_for(i) is None}
    assert not missing, f"add these ids to s2s/printers/rules.py: {missing}"


def test_docs_page_is_generated_from_the_rules_and_up_to_date():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import diagnostics_doc
    finally:
        sys.path.remove(str(REPO / "scripts"))
    text = (REPO / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    assert text == diagnostics_doc.render(), "run python scripts/diagnostics_doc.py"
    for rule in RULES:
        assert f'<a id="{anchor(rule.id)}"></a>\n### {rule.id}\n' in text
        assert rule.example.rstrip().endswith("]") and rule.meaning and rule.action


NAMES = """\
#include <stdio.h>
#define N 4096

static void relax(double *temperature_of_each_cell, double *previous_temperature_of_cell,
                  int n)
{
    #pragma omp target teams distribute parallel for map(to: previous_temperature_of_cell[0:n]) map(from: temperature_of_each_cell[0:n])
    for (int i = 1; i < n - 1; ++i)
        temperature_of_each_cell[i] = 0.5 * (previous_temperature_of_cell[i - 1]
                                             + previous_temperature_of_cell[i + 1]);
}

int main(void)
{
    static double temperature_of_each_cell[N], previous_temperature_of_cell[N];
    for (int i = 0; i < N; ++i)
        previous_temperature_of_cell[i] = i % 7;
    for (int step = 0; step < 8; ++step) {
        relax(temperature_of_each_cell, previous_temperature_of_cell, N);
        relax(previous_temperature_of_cell, temperature_of_each_cell, N);
    }
    printf("%f\\n", previous_temperature_of_cell[N / 2]);
    return 0;
}
"""


def test_the_full_schema_and_the_ingestion_checks_catch_what_they_should():
    """A guard on the guards: a log with the faults they look for fails both."""
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "s2s", "rules": [
        {"id": "omp-rewrite", "shortDescription": {"text": "a change"}}]}}, "results": [
        {"ruleId": "omp-rewrite", "message": {"text": "x"}, "level": "loud",
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "/abs/k.c"}}}]},
        {"ruleId": "unknown-id", "message": {"text": " "}}]}]}
    assert any("loud" in e for e in full_schema_errors(log))
    problems = code_scanning_problems(log, 100)
    for expected in ("rule omp-rewrite: no fullDescription", "rule omp-rewrite: no helpUri",
                     "omp-rewrite: uri '/abs/k.c' is not relative to the checkout",
                     "omp-rewrite: no region with startLine >= 1",
                     "unknown-id: no rule of that id in the driver", "unknown-id: empty message",
                     "unknown-id: 0 locations"):
        assert expected in problems


def test_sarif_log_passes_the_schema_and_code_scanning_checks(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "heat.c").write_text(NAMES)
    (tmp_path / "src" / "again.c").write_text(NAMES)      # a program-level warning (clash)
    (tmp_path / "src" / "empty.c").write_text("\n")         # a file-level warning
    code = main(["omp", "--format", "sarif", "src"])
    out = capsys.readouterr().out
    log = json.loads(out)
    assert code == 0
    schema = json.loads(SUBSET_SCHEMA_FILE.read_text())
    jsonschema.validate(log, schema, format_checker=jsonschema.FormatChecker())
    assert full_schema_errors(log) == []
    assert code_scanning_problems(log, len(out.encode())) == []
    results = log["runs"][0]["results"]
    rule_ids = {r["ruleId"] for r in results}
    assert {"omp-rewrite", "program-name-clash", "empty-file"} <= rule_ids
    clash = next(r for r in results if r["ruleId"] == "program-name-clash")
    assert clash["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["omp-rewrite"]["helpUri"] == help_uri("omp-rewrite")
    assert rules["omp-rewrite"]["helpUri"].endswith("/docs/diagnostics.md#omp-rewrite")
    assert "s2s diagnostic" not in json.dumps(rules)           # no placeholder descriptions
    # messages are never cut: the inserted directive is quoted whole
    source = (tmp_path / "src" / "heat.c").read_bytes()
    for result in results:
        if result["ruleId"] != "omp-rewrite":
            continue
        inserted = result["fixes"][0]["artifactChanges"][0]["replacements"][0][
            "insertedContent"]["text"].strip().splitlines()[0].strip()
        assert f"`{inserted}`" in result["message"]["text"]
        assert "..." not in result["message"]["text"].split("`")[1]
    assert any(len(r["message"]["text"]) > 100 for r in results if r["ruleId"] == "omp-rewrite")
    assert source == NAMES.encode()


def test_every_emitted_rule_of_the_samples_is_documented(tmp_path, capsys):
    """The rules of a CUDA run (transfers warnings, explanations) come from the registry."""
    sample = REPO / "samples" / "cuda" / "vadd" / "vadd.cu"
    if not sample.exists():
        pytest.skip("samples/cuda/vadd is not in this checkout")
    main(["transfers", "--format", "sarif", "--explain", str(sample)])
    log = json.loads(capsys.readouterr().out)
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        assert rule_for(rule["id"]) is not None and rule["fullDescription"]["text"]


def test_help_links_come_from_the_project_urls_and_the_environment_overrides(monkeypatch):
    """pyproject.toml's [project.urls] Diagnostics is the one source of every helpUri (the
    wheel carries it in its metadata: test_installed_venv checks that copy)."""
    import tomllib

    from s2s.printers import rules

    urls = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]
    page = urls[rules.DOCS_LABEL]
    assert page.startswith(urls["Repository"] + "/") and page.endswith("/docs/diagnostics.md")
    monkeypatch.delenv("S2S_DOCS_URL", raising=False)
    assert rules.project_docs_url() == page
    assert help_uri("omp-left-unmapped") == f"{page}#omp-left-unmapped"
    assert help_uri("verify-timeout-*") == f"{page}#verify-timeout-"
    monkeypatch.setenv("S2S_DOCS_URL", "https://mirror.example.org/s2s/diagnostics.html")
    assert help_uri("omp-rewrite") == "https://mirror.example.org/s2s/diagnostics.html#omp-rewrite"
