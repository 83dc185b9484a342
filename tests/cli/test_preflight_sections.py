"""`bsi preflight check ID FILE` for a session holding `##` sections of a markdown file (SPEC 5.1, 5.2, 10).

SPEC 10: exit 1 when "the normalised file is outside every scope entry". SPEC 5.1 writes a section of a file as
`plan.md#Alpha` (also `plan.md ## Alpha`, `plan.md § Alpha`, titles compared case-insensitively), and SPEC 5.2 makes
two sections of one file two scopes. A holds `plan.md#Alpha`, B holds `plan.md#Beta`:

- `plan.md#Beta` asked by A is outside A's scope: exit 1, naming B; `plan.md#Alpha` is inside it: exit 0.
- `plan.md` asked by A names no text, so the answer cannot be that A may write the file: A holds two parts of it at
  most, not the whole, so the whole file is outside its scope (exit 1), and the refusal names the sections A may
  write and how (check the section, edit inside it, or claim the whole file). Before, it answered "go" for the whole
  file, and a script trusting it could overwrite B's section; and `plan.md#Alpha` was read as a file of that name,
  "outside the scope of A (plan.md#Alpha)".

The MCP `preflight` tool gives the same answers: both ask `Brain.preflight`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from tests.bsi import NOW, ok, run_bsi
from tests.clock import live_now
from tests.mcp.test_mcp_own_session import A, B, serve

PLAN = "# Plan\n\nintro\n\n## Alpha\nalpha text\n\n## Beta\nbeta text\n"


def two_sections(brain: Path, now: str = NOW) -> tuple[str, str]:
    """plan.md; A holds `plan.md#Alpha`, B `plan.md#Beta`: (A's claim, B's claim)."""
    (brain / "plan.md").write_text(PLAN, encoding="utf-8")
    alpha = ok(run_bsi("claim", "open", "--scope", "plan.md#Alpha", "--agent-session", A, "--slug", "a", brain=brain,
                       now=now)).strip()
    beta = ok(run_bsi("claim", "open", "--scope", "plan.md#Beta", "--agent-session", B, "--slug", "b", brain=brain,
                      now=now)).strip()
    return alpha, beta


def check(brain: Path, sess_id: str, file: str, now: str = NOW) -> tuple[int, dict[str, Any], str]:
    """`bsi --json preflight check`: (exit code, JSON document, stderr)."""
    proc = run_bsi("--json", "preflight", "check", sess_id, file, brain=brain, now=now)
    return proc.code, json.loads(proc.out), proc.err


@pytest.mark.parametrize("asked", ["plan.md#Beta", "plan.md ## Beta", "plan.md § Beta", "plan.md#beta",
                                   "./plan.md#  BETA "])
def test_another_sessions_section_is_outside_the_scope(brain: Path, asked: str) -> None:
    alpha, beta = two_sections(brain)
    code, doc, err = check(brain, alpha, asked)
    assert code == 1, (doc, err)
    assert doc["exit"] == 1 and doc["code"] == 1 and doc["check"] == "scope", doc
    assert doc["sess_id"] == alpha and doc["holders"] == [beta], doc
    assert beta in doc["error"] and beta in err
    text = run_bsi("preflight", "check", alpha, asked, brain=brain)
    assert text.code == 1 and text.out == "" and "scope violation" in text.err, text


@pytest.mark.parametrize(("asked", "named"), [
    ("plan.md#Alpha", "plan.md#Alpha"), ("plan.md ## alpha", "plan.md#alpha"), ("plan.md § Alpha", "plan.md#Alpha"),
    ("./plan.md#Alpha ", "plan.md#Alpha")])
def test_the_own_section_goes(brain: Path, asked: str, named: str) -> None:
    alpha, beta = two_sections(brain)
    code, doc, err = check(brain, alpha, asked)
    assert code == 0, (doc, err)
    assert doc == {"sess_id": alpha, "file": named, "code": 0, "check": "go"}, doc
    text = run_bsi("preflight", "check", beta, "plan.md#Beta", brain=brain)
    assert text.code == 0 and text.out.strip() == f"go: {beta} may write plan.md#Beta", text


def test_another_spelling_of_the_file_is_not_the_own_section(brain: Path) -> None:
    alpha, _ = two_sections(brain)
    code, doc, err = check(brain, alpha, "PLAN.md#Alpha")  # on Linux a second file; one file on macOS: refused
    assert code == 1 and "spelled another way" in doc["error"], (doc, err)


def test_the_whole_file_is_not_a_plain_yes_for_a_section_holder(brain: Path) -> None:
    alpha, beta = two_sections(brain)
    for sess_id, own in ((alpha, "plan.md#Alpha"), (beta, "plan.md#Beta")):
        code, doc, err = check(brain, sess_id, "plan.md")
        assert code == 1, (doc, err)
        assert doc["check"] == "scope" and doc["file"] == "plan.md" and doc["sections"] == [own], doc
        assert f"holds the section {own} only" in doc["error"], doc["error"]
        assert "claim on the whole file" in doc["error"], doc["error"]  # what unblocks it
    assert (brain / "plan.md").read_text(encoding="utf-8") == PLAN


def test_a_holder_of_the_whole_file_may_write_any_section(brain: Path) -> None:
    (brain / "plan.md").write_text(PLAN, encoding="utf-8")
    (brain / "docs").mkdir()
    whole = ok(run_bsi("claim", "open", "--scope", "plan.md", "--slug", "whole", brain=brain)).strip()
    folder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "docs", brain=brain)).strip()
    assert check(brain, whole, "plan.md#Beta")[0] == 0
    assert check(brain, whole, "plan.md#Not there yet")[0] == 0
    assert check(brain, whole, "plan.md")[0] == 0
    assert check(brain, folder, "docs/guide.md#Setup")[0] == 0
    assert check(brain, folder, "plan.md#Beta")[0] == 1


def test_scope_comes_before_the_lock_for_a_section(brain: Path) -> None:
    alpha, beta = two_sections(brain)
    ok(run_bsi("lock", "acquire", "plan.md", beta, brain=brain))
    assert check(brain, alpha, "plan.md#Beta")[0] == 1  # SPEC 10: 1 before 2
    code, doc, _ = check(brain, alpha, "plan.md#Alpha")
    assert code == 2 and doc["holder"] == beta, doc  # its own section, but the file is locked by B
    assert check(brain, beta, "plan.md#Beta")[0] == 0  # B's own lock


def test_a_claim_not_open_is_told_first(brain: Path) -> None:
    alpha, _ = two_sections(brain)
    ok(run_bsi("gate", "pause", alpha, "hold", brain=brain))
    assert check(brain, alpha, "plan.md#Beta")[0] == 4
    assert check(brain, alpha, "plan.md#Alpha")[0] == 4


def test_a_hash_in_a_file_name_that_is_not_a_section_is_the_file(brain: Path) -> None:
    (brain / "notes").mkdir()
    (brain / "notes" / "C#.md").write_text("# C#\n", encoding="utf-8")
    held = ok(run_bsi("claim", "open", "--scope", "notes/", "--slug", "notes", brain=brain)).strip()
    code, doc, err = check(brain, held, "notes/C#.md")
    assert code == 0 and doc["file"] == "notes/C#.md", (doc, err)


def test_mcp_preflight_gives_the_same_answers(brain: Path) -> None:
    now = live_now()
    alpha, beta = two_sections(brain, now=now)

    async def body(mcp: Client) -> list[Any]:
        return [await mcp.call_tool("preflight", {"file": file})
                for file in ("plan.md#Beta", "plan.md#Alpha", "plan.md")]

    other, own, whole = serve(brain, body, now=now, CLAUDE_CODE_SESSION_ID=A)
    assert other.is_error and other.structured_content["exit"] == 1, other.structured_content
    assert other.structured_content["holders"] == [beta], other.structured_content
    assert not own.is_error and own.structured_content == {"sess_id": alpha, "file": "plan.md#Alpha", "code": 0,
                                                           "check": "go"}, own.structured_content
    assert whole.is_error and whole.structured_content["exit"] == 1, whole.structured_content
    assert whole.structured_content["sections"] == ["plan.md#Alpha"], whole.structured_content
    for file, code in (("plan.md#Beta", 1), ("plan.md#Alpha", 0), ("plan.md", 1)):
        assert check(brain, alpha, file, now=now)[0] == code, file
