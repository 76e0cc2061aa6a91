"""Write docs/diagnostics.md from s2s.printers.rules (the ids, their meaning, what to do).

    python scripts/diagnostics_doc.py            # rewrite docs/diagnostics.md
    python scripts/diagnostics_doc.py --check    # exit 1 if it is out of date

testsuite/printers/test_sarif_rules.py runs the check, and checks that every id the code
emits has a rule.
"""

from __future__ import annotations

import sys
from pathlib import Path

from s2s.printers.rules import RULES, anchor

DOC = Path(__file__).resolve().parent.parent / "docs" / "diagnostics.md"

HEADER = """\
# Diagnostics

Every message s2s prints ends with a stable id in brackets (`[omp-left-unmapped]`). Warnings
can be hidden by id (`--silence ID`, fnmatch patterns, `S2S_SILENCE=id1,id2`, or `silence` in
`.s2s.toml`); errors cannot. `--format sarif` names each id as a rule whose help link points
here. An id with `*` is a family (`verify-timeout-original`, `clang-unused-variable`).

This page is generated from `s2s/printers/rules.py` by `scripts/diagnostics_doc.py`; a test
fails when an id the code emits is missing.
"""


def render() -> str:
    out = [HEADER]
    group = None
    for rule in RULES:
        if rule.group != group:
            group = rule.group
            out.append(f"\n## {group}\n")
            out.append(" · ".join(f"[`{r.id}`](#{anchor(r.id)})" for r in RULES
                                  if r.group == group) + "\n")
        out.append(f'\n<a id="{anchor(rule.id)}"></a>\n### {rule.id}\n\n'
                   f"**{rule.title[0].upper() + rule.title[1:]}.** {rule.meaning}\n\n"
                   f"*What to do:* {rule.action}\n\n"
                   f"```\n{rule.example}\n```\n")
    return "".join(out)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not DOC.exists() or DOC.read_text(encoding="utf-8") != text:
            print(f"{DOC} is out of date: run python scripts/diagnostics_doc.py",
                  file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
