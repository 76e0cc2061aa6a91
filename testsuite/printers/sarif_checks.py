"""What a SARIF log must pass beyond s2s's own subset schema: the official SARIF 2.1.0 schema
(vendored under sarif_schema/, see its README) and the rules GitHub code scanning applies
when it ingests a file (its documented limits and what it drops or shows badly)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

#: the official SARIF 2.1.0 schema (OASIS, vendored: sarif_schema/README.md says from where)
FULL_SCHEMA_FILE = Path(__file__).resolve().parent / "sarif_schema" / "sarif-schema-2.1.0.json"


def full_schema_errors(log: dict) -> list[str]:
    """The log's errors against the official SARIF 2.1.0 schema (draft 4, formats checked)."""
    schema = json.loads(FULL_SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(log)]


def code_scanning_problems(log: dict, size: int) -> list[str]:
    """What GitHub code scanning would reject or show badly (its documented SARIF support:
    https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/
    sarif-support-for-code-scanning)."""
    problems = []
    if size > 10 * 1024 * 1024:
        problems.append(f"{size} bytes: more than the 10 MB an upload may have")
    if log.get("version") != "2.1.0" or not 1 <= len(log["runs"]) <= 20:
        problems.append("version 2.1.0 with 1 to 20 runs")
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        rules = driver.get("rules", [])
        if not driver.get("name") or len(rules) > 25_000 or len(run["results"]) > 25_000:
            problems.append("driver name, at most 25,000 rules and results")
        if len(run["tool"].get("extensions", [])) > 100:
            problems.append("at most 100 tool extensions")
        known = [rule["id"] for rule in rules]
        if len(set(known)) != len(known):
            problems.append("a rule id given twice")
        for rule in rules:
            if len(rule.get("properties", {}).get("tags", [])) > 20:
                problems.append(f"rule {rule['id']}: more than 20 tags")
            for key in ("shortDescription", "fullDescription", "help"):
                if not rule.get(key, {}).get("text"):
                    problems.append(f"rule {rule['id']}: no {key}")
            if not rule.get("helpUri", "").startswith("https://"):
                problems.append(f"rule {rule['id']}: no helpUri")
        for result in run["results"]:
            rule_id = result.get("ruleId")
            if not rule_id:
                problems.append("a result without ruleId")
            elif rule_id not in known:
                problems.append(f"{rule_id}: no rule of that id in the driver")
            index = result.get("ruleIndex")
            if index is not None and not (0 <= index < len(rules)
                                          and rules[index]["id"] == rule_id):
                problems.append(f"{rule_id}: ruleIndex {index} names another rule")
            if not result.get("message", {}).get("text", "").strip():
                problems.append(f"{rule_id}: empty message")
            locations = result.get("locations") or []
            if not 1 <= len(locations) <= 1000:
                problems.append(f"{rule_id}: {len(locations)} locations")
            for location in locations:
                physical = location.get("physicalLocation", {})
                uri = physical.get("artifactLocation", {}).get("uri", "")
                if not uri or uri.startswith(("/", "file:")) or "://" in uri:
                    problems.append(f"{rule_id}: uri {uri!r} is not relative to the checkout")
                if physical.get("region", {}).get("startLine", 0) < 1:
                    problems.append(f"{rule_id}: no region with startLine >= 1")
            for flow in result.get("codeFlows", []):
                for thread in flow.get("threadFlows", []):
                    if len(thread.get("locations", [])) > 10_000:
                        problems.append(f"{rule_id}: more than 10,000 thread flow locations")
    return problems
