"""`claim list` as the CLI and the MCP tool give it: one rule for which claims are listed, and one refusal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from brain_tui.core.errors import InvalidData
from brain_tui.mcp.tools import Session, claim_list
from tests.bsi import NOW, Run, clean_env, ok

Bsi = Callable[..., Run]


def _listing(brain: Path, bsi: Bsi, *flags: str) -> list[str]:
    return [c["sess_id"] for c in bsi("--json", "claim", "list", *flags, brain=brain).json()["claims"]]


def test_the_cli_and_the_mcp_tool_list_the_same_claims(brain: Path, bsi: Bsi) -> None:
    live = ok(bsi("claim", "open", "--scope", "a/", "--slug", "live", brain=brain))
    done = ok(bsi("claim", "open", "--scope", "b/", "--slug", "done", brain=brain))
    ok(bsi("claim", "close", done, "--status", "ok", brain=brain))
    odd = "sess-20261129-0930-odd"  # a status the product does not know blocks, so it is listed
    (brain / "claims" / f"{odd}.yml").write_text(f"sess_id: {odd}\nscope: c/\nopened_at: '2026-11-29T09:30:00Z'\n"
                                                 "status: frozen\n")
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    for flags, status, every, expected in (((), None, False, [live, odd]), (("--all",), None, True, [live, done, odd]),
                                           (("--status", "closed"), ["closed"], False, [done]),
                                           (("--status", "open", "--status", "closed"), ["open", "closed"], False,
                                            [live, done])):
        assert sorted(_listing(brain, bsi, *flags)) == sorted(expected)
        assert sorted(c["sess_id"] for c in claim_list(s, status, every)["claims"]) == sorted(expected)


def test_a_blank_or_unknown_status_is_named_quoted_by_both(brain: Path, bsi: Bsi) -> None:
    run = bsi("claim", "list", "--status", "", brain=brain)
    assert run.code == 65 and "invalid status ''" in run.err
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    with pytest.raises(InvalidData, match="invalid status 'bogus'"):
        claim_list(s, ["bogus"])
