"""`bsi hook --help` answers as every `bsi COMMAND --help` does: its usage on stdout, exit 0.

The README promises `bsi COMMAND --help` for every command; `bsi hook --help` was read as an unknown flag of a
hook line (exit 2, the usage on stderr). Help is given only when no event is named: a hook line that names an
event and carries `--help` stays a line that cannot be read, so a `pre-tool-use` written that way still denies.
"""

from __future__ import annotations

import pytest

from tests.bsi import run_bsi


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_hook_help_prints_the_usage_and_exits_0(flag: str) -> None:
    run = run_bsi("hook", flag, now=None)
    assert run.code == 0, run
    assert run.out.startswith("usage: bsi hook EVENT [--agent claude|codex|gemini]"), run.out
    for event in ("pre-tool-use", "session-start", "permission-request"):
        assert event in run.out
    assert run.err == "", run.err


def test_a_pre_tool_use_line_with_help_still_denies() -> None:
    run = run_bsi("hook", "pre-tool-use", "--help", now=None, input="{}")
    assert run.code == 2, run
    assert run.out == ""
