"""`bsi gate --help` says what each verb does: pause, resume and abort act on a claim's tree, not on a gate.

The help read "pause a claim's gate", "resume a claim's gate", "abort a claim's gate", while the README (and SPEC
6.3) have them cascade down the satellite tree; and that reject and abort need a reason (exit 65 without one).
"""

from __future__ import annotations

import re

from tests.bsi import run_bsi


def _actions(help_text: str) -> dict[str, str]:
    """ACTION → its one-line help (the argparse sub-command list, continuation lines joined)."""
    rows: dict[str, str] = {}
    last = ""
    for line in help_text.splitlines():
        match = re.match(r"^    (\w+)\s+(.*)$", line)
        if match:
            last = match.group(1)
            rows[last] = match.group(2)
        elif last and re.match(r"^\s{8,}\S", line):
            rows[last] += " " + line.strip()
        else:
            last = ""
    return rows


def test_gate_help_names_the_cascade_and_the_reasons() -> None:
    run = run_bsi("gate", "--help", now=None)
    assert run.code == 0, run
    rows = _actions(run.out)
    assert "gate" not in rows["pause"] and "descendant" in rows["pause"], rows
    assert "gate" not in rows["resume"] and "descendant" in rows["resume"], rows
    assert "tree" in rows["abort"] and "reason" in rows["abort"], rows
    assert "reason" in rows["reject"], rows
