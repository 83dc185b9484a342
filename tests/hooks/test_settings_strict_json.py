"""`bsi hooks install` reads the settings as JSON to the letter (SPEC 20.2: a file that is not valid JSON is refused
with exit 65 and left untouched).

Python's JSON reader takes `NaN`, `Infinity` and `-Infinity`, which no JSON text may hold (RFC 8259) and which the
agents' own readers refuse: such a file is not the agent's settings, and rewriting it would only carry the bad
value on. It is refused like any other invalid JSON, by every installer that reads a JSON settings file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import run_bsi


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize(("command", "where"), [(("hooks", "install"), ".claude/settings.json"),
                                               (("hooks", "install", "--local"), ".claude/settings.local.json"),
                                               (("hooks", "uninstall"), ".claude/settings.json"),
                                               (("mcp", "install", "--no-check"), ".mcp.json")])
def test_a_number_json_does_not_allow_is_refused_untouched(brain: Path, value: str, command: tuple[str, ...],
                                                           where: str) -> None:
    target = brain / where
    target.parent.mkdir(exist_ok=True)
    text = f'{{"model": "opus", "x": {value}}}'
    target.write_text(text)
    run = run_bsi(*command, brain=brain)
    assert run.code == 65 and "not valid JSON" in run.err and "nothing was changed" in run.err, run
    assert "Traceback" not in run.err
    assert target.read_text() == text
