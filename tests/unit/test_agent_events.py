"""One table names every hook event for every agent; each installer takes its column of it."""

from __future__ import annotations

from brain_tui.core.agent_settings import claude, codex, gemini
from brain_tui.core.agent_settings.files import hook_events


def test_each_agent_gets_its_column_in_the_table_order() -> None:
    assert [ours for _name, _matcher, ours in codex.HOOK_EVENTS] == [
        "pre-tool-use", "post-tool-use", "session-start", "user-prompt-submit", "stop"]
    assert [(name, ours) for name, _matcher, ours in gemini.HOOK_EVENTS] == [
        ("BeforeTool", "pre-tool-use"), ("AfterTool", "post-tool-use"), ("SessionStart", "session-start"),
        ("BeforeAgent", "user-prompt-submit"), ("AfterAgent", "stop"), ("Notification", "notification"),
        ("SessionEnd", "session-end")]
    assert len(claude.HOOK_EVENTS) == 8 and ("PermissionRequest", None, "permission-request") in claude.HOOK_EVENTS


def test_codex_takes_claude_codes_names_for_the_events_it_has() -> None:
    names = {ours: name for name, _matcher, ours in claude.HOOK_EVENTS}
    assert all(names[ours] == name for name, _matcher, ours in codex.HOOK_EVENTS)


def test_only_tool_events_get_the_tool_matcher_and_session_start_its_own() -> None:
    assert hook_events("codex", "T", "S") == (
        ("PreToolUse", "T", "pre-tool-use"), ("PostToolUse", "T", "post-tool-use"),
        ("SessionStart", "S", "session-start"), ("UserPromptSubmit", None, "user-prompt-submit"),
        ("Stop", None, "stop"))
