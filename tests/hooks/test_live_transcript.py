"""The hooks record the transcript and why a session waits; `bsi agent peek` and `bsi attention` read them
(issue 21), fed events in the shape Claude Code 2.1.197 sends them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.sessions import agents
from tests.bsi import ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, event, hook

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts" / "claude-2.1.197.jsonl"


@pytest.fixture
def bound(brain: Path, tmp_path: Path) -> tuple[Path, str, Path]:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "api-tests", "--story", "api work",
                      "--agent-session", AGENT, brain=brain))
    transcript = tmp_path / "home" / ".claude" / "projects" / "-b" / f"{AGENT}.jsonl"
    transcript.parent.mkdir(parents=True)
    shutil.copyfile(RECORDED, transcript)
    return brain, sess, transcript


def post(brain: Path, transcript: str) -> dict[str, Any]:
    return {**event(brain, "Edit", str(brain / "src" / "api.py")), "hook_event_name": "PostToolUse",
            "transcript_path": transcript, "tool_response": {"success": True}}


def notify(brain: Path, transcript: Path, kind: str, message: str) -> dict[str, Any]:
    return {"session_id": AGENT, "transcript_path": str(transcript), "cwd": str(brain),
            "hook_event_name": "Notification", "message": message, "notification_type": kind}


def attention_items(brain: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(ok(run_bsi("attention", "--json", brain=brain)))["items"]
    return items


def test_post_tool_use_records_the_transcript_and_peek_reads_it(bound: tuple[Path, str, Path]) -> None:
    brain, sess, transcript = bound
    assert hook(brain, "post-tool-use", post(brain, str(transcript))).stdout == ""
    live = agents.read_liveness(brain)[sess]
    assert live.transcript == str(transcript) and live.agent == "claude"
    doc = json.loads(ok(run_bsi("agent", "peek", sess, "--json", brain=brain)))
    assert doc["state"] == "working" and doc["peek"]["text"] == ["Done."]
    assert doc["peek"]["tool"]["name"] == "Bash" and doc["peek"]["tool"]["target"] == "ls brain-engine/api"
    assert doc["peek"]["runway"]["text"] == "ctx 11% · ~1514 turns" and doc["peek"]["runway"]["window"] == 200_000
    text = ok(run_bsi("agent", "peek", sess, brain=brain))
    assert "ctx 11% · ~1514 turns" in text and "tool: Bash ls brain-engine/api (done" in text and "Done." in text
    # every attention item of the claim carries its runway
    ok(run_bsi("gate", "request", sess, "merge?", brain=brain))
    [item] = [i for i in attention_items(brain) if i["sess_id"] == sess]
    assert item["kind"] == "gate" and item["runway"]["used_pct"] == 11 and item["runway"]["turns_left"] == 1514


@pytest.mark.parametrize("given", ["link", "folder", "relative", "missing"])
def test_only_a_regular_file_is_recorded_as_the_transcript(bound: tuple[Path, str, Path], given: str) -> None:
    brain, sess, transcript = bound
    link = transcript.with_name("link.jsonl")
    link.symlink_to(transcript)
    path = {"link": str(link), "folder": str(transcript.parent), "relative": transcript.name,
            "missing": str(transcript.with_name("gone.jsonl"))}[given]
    hook(brain, "post-tool-use", post(brain, path))
    live = agents.read_liveness(brain)[sess]
    assert live.state == "working" and live.transcript is None


def test_a_permission_prompt_is_needs_input_until_the_next_tool_runs(bound: tuple[Path, str, Path]) -> None:
    brain, sess, transcript = bound
    hook(brain, "post-tool-use", post(brain, str(transcript)))
    hostile = "Claude needs your permission to use Bash \x1b]0;pwn\x07\u202e"
    hook(brain, "notification", notify(brain, transcript, "permission_prompt", hostile))
    live = agents.read_liveness(brain)[sess]
    assert (live.state, live.input_kind, live.input_message) == ("needs_input", "permission_prompt", hostile)
    [item] = [i for i in attention_items(brain) if i["sess_id"] == sess]
    assert item["kind"] == "needs_input"
    assert item["summary"] == ("its agent session waits for input: permission prompt — Claude needs your "
                               "permission to use Bash ⟨ESC⟩]0;pwn⟨BEL⟩⟨U+202E⟩")
    peek = json.loads(ok(run_bsi("agent", "peek", sess, "--json", brain=brain)))
    assert peek["state"] == "needs_input" and peek["input_kind"] == "permission_prompt"
    assert "\x1b" not in peek["input_message"] and "⟨ESC⟩" in peek["input_message"]
    # the next tool runs: working again, the reason forgotten, out of the queue
    hook(brain, "post-tool-use", post(brain, str(transcript)))
    live = agents.read_liveness(brain)[sess]
    assert (live.state, live.input_kind, live.input_message) == ("working", None, None)
    assert not [i for i in attention_items(brain) if i["sess_id"] == sess]


def test_idle_prompt_is_idle_and_other_notifications_change_nothing(bound: tuple[Path, str, Path]) -> None:
    brain, sess, transcript = bound
    hook(brain, "post-tool-use", post(brain, str(transcript)))
    hook(brain, "notification", notify(brain, transcript, "auth_success", "Signed in"))
    assert agents.read_liveness(brain)[sess].state == "working"
    hook(brain, "notification", notify(brain, transcript, "idle_prompt", "Claude is waiting for your input"))
    assert agents.read_liveness(brain)[sess].state == "idle"
    hook(brain, "notification", notify(brain, transcript, "elicitation_dialog", "Pick a database"))
    live = agents.read_liveness(brain)[sess]
    assert (live.state, live.input_kind, live.input_message) == ("needs_input", "elicitation_dialog",
                                                                 "Pick a database")


def test_permission_request_is_needs_input_naming_the_tool(bound: tuple[Path, str, Path]) -> None:
    brain, sess, transcript = bound
    request = {"session_id": AGENT, "transcript_path": str(transcript), "cwd": str(brain),
               "permission_mode": "default", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
               "tool_input": {"command": "rm -rf build", "description": "clean"}, "permission_suggestions": []}
    done = hook(brain, "permission-request", request)
    assert done.returncode == 0 and done.stdout == ""  # nothing decided: the client asks its user
    live = agents.read_liveness(brain)[sess]
    assert (live.state, live.input_kind, live.input_message) == ("needs_input", "permission_request",
                                                                 "Bash rm -rf build")
    [item] = [i for i in attention_items(brain) if i["sess_id"] == sess]
    assert item["summary"] == "its agent session waits for input: permission request — Bash rm -rf build"


def test_peek_refuses_an_unknown_or_malformed_claim(brain: Path) -> None:
    unknown = run_bsi("agent", "peek", "sess-20261129-0800-nobody", brain=brain)
    assert unknown.code == 66 and "no bound agent session" in unknown.err
    assert len(unknown.err.strip().splitlines()) == 1
    bad = run_bsi("agent", "peek", "../etc", brain=brain)
    assert bad.code == 65 and len(bad.err.strip().splitlines()) == 1
