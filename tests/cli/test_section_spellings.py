"""Two spellings of one `##` section are one scope through `bsi` and `bsi mcp` too (SPEC 5.1, 5.2, 19, 20.3):
the table is asked of `Brain` in tests/rules/test_section_spellings.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.errors import ConflictError, InvalidData
from brain_tui.mcp import tools
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.refusals import assert_second_name_refused


@pytest.mark.parametrize(("held", "asked"), [
    ("plan.md#Beta", "plan.md § Be\u00adta"),  # a soft hyphen: drawn as nothing
    ("plan.md#&#66;eta", "PLAN.md#beta"),
])
def test_a_respelled_section_is_refused_with_exit_10(brain: Path, held: str, asked: str) -> None:
    assert_second_name_refused(brain, held, asked)


def test_a_title_drawn_as_nothing_is_refused_with_exit_65(brain: Path) -> None:
    run = run_bsi("claim", "open", "--scope", "plan.md#\u2060", brain=brain)
    assert run.code == 65 and "reads as nothing" in run.err, run.err


def test_the_mcp_claim_open_refuses_a_respelled_section(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "plan.md#Beta", brain=brain)).strip()
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    assert [c["sess_id"] for c in tools.check_scope(s, ["plan.md#Be\u2060ta"])["conflicts"]] == [holder]
    with pytest.raises(ConflictError):
        tools.claim_open(s, ["plan.md#B&#x65;ta"])
    with pytest.raises(InvalidData):
        tools.claim_open(s, ["plan.md#\u00ad"])
    s.brain.blocking.close()
