"""`bsi hooks install|uninstall|status` and `bsi mcp install`: merging into the agent's settings (SPEC 20.2, 20.3)."""

from __future__ import annotations

import json
from pathlib import Path

from brain_tui.core.agent_settings import claude as settings
from tests.bsi import ok, run_bsi

#: The matchers as the clients must find them, byte for byte: every tool of another MCP server, never one of bsi's own
#: (a server whose name starts like bsi's is another's).
_OWN = ("brain_state|check_scope|claim_close|claim_list|claim_open|claim_renew|gate_request|gate_status|lock_acquire|"
        "lock_release|my_claim|preflight|signal_ack|signal_list|signal_send")
CLAUDE_MATCHER = f"^(Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__(?!bsi__(?:{_OWN})$).*)$"
GEMINI_MATCHER = f"^(write_file|replace|run_shell_command|mcp_(?!bsi_(?:{_OWN})$).*)$"
CODEX_MATCHER = ("Bash|apply_patch|exec_command|shell|write_stdin|"
                 "mcp__([^b]|b[^s]|bs[^i]|bsi[^_]|bsi_[^_]|bsi__(_|.*__)).*")

FOREIGN = {
    "model": "opus",
    "env": {"FOO": "1"},
    "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(.env)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4) + "\n")


def test_install_merges_keeps_foreign_entries_and_is_idempotent(brain: Path) -> None:
    target = brain / ".claude" / "settings.json"
    write(target, FOREIGN)
    run = run_bsi("hooks", "install", brain=brain)
    assert run.code == 0 and "installed" in run.out
    data = json.loads(target.read_text())
    assert data["model"] == "opus" and data["env"] == {"FOO": "1"}
    assert data["permissions"]["allow"] == ["Bash(npm test)"]
    assert data["permissions"]["deny"][0] == "Read(.env)"
    assert set(settings.DENY_RULES) <= set(data["permissions"]["deny"])
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == FOREIGN["hooks"]["PreToolUse"][0]
    assert pre[1] == {"matcher": CLAUDE_MATCHER,
                      "hooks": [{"type": "command", "command": "bsi hook pre-tool-use", "timeout": 10}]}
    assert data["hooks"]["Stop"][0] == FOREIGN["hooks"]["Stop"][0]
    assert data["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    for name in ("PostToolUse", "UserPromptSubmit", "Notification", "SessionEnd"):
        assert data["hooks"][name][-1]["hooks"][0]["command"].startswith("bsi hook ")
    first = target.read_bytes()
    again = run_bsi("hooks", "install", brain=brain)
    assert again.code == 0 and "unchanged" in again.out
    assert target.read_bytes() == first


def test_install_replaces_its_own_entries_in_place(brain: Path) -> None:
    target = brain / ".claude" / "settings.json"
    old = json.loads(json.dumps(FOREIGN))
    old["hooks"]["PreToolUse"].insert(0, {"matcher": "Write", "hooks": [
        {"type": "command", "command": "/old/bin/bsi hook pre-tool-use"}]})
    write(target, old)
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert "PreToolUse: pre-tool-use" in status["outdated"] and "Stop: stop" in status["missing"]
    ok(run_bsi("hooks", "install", brain=brain))
    pre = json.loads(target.read_text())["hooks"]["PreToolUse"]
    assert len(pre) == 2 and pre[0]["hooks"][0]["command"] == "bsi hook pre-tool-use" and pre[0]["matcher"] == \
        CLAUDE_MATCHER
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert status["installed"] and status["missing"] == [] and status["outdated"] == []
    assert isinstance(status["resolves"], bool)


def test_invalid_json_is_refused_with_65_and_left_untouched(brain: Path) -> None:
    target = brain / ".claude" / "settings.json"
    target.parent.mkdir()
    for text in ('{"hooks": [', "[1, 2]", '{"hooks": []}'):
        target.write_text(text)
        run = run_bsi("hooks", "install", brain=brain)
        assert run.code == 65 and "nothing was changed" in run.err and "Traceback" not in run.err
        assert target.read_text() == text
    mcp = brain / ".mcp.json"
    mcp.write_text("{oops")
    assert run_bsi("mcp", "install", brain=brain).code == 65 and mcp.read_text() == "{oops"


def test_uninstall_removes_exactly_its_entries(brain: Path) -> None:
    target = brain / ".claude" / "settings.json"
    write(target, FOREIGN)
    ok(run_bsi("hooks", "install", brain=brain))
    run = run_bsi("hooks", "uninstall", brain=brain)
    assert run.code == 0 and "removed" in run.out
    assert json.loads(target.read_text()) == FOREIGN
    assert "absent" in ok(run_bsi("hooks", "uninstall", brain=brain))


def test_local_goes_to_settings_local(brain: Path) -> None:
    ok(run_bsi("hooks", "install", "--local", brain=brain))
    assert (brain / ".claude" / "settings.local.json").is_file()
    assert not (brain / ".claude" / "settings.json").exists()
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert not status["installed"]


def test_mcp_install_merges_mcp_json(brain: Path) -> None:
    target = brain / ".mcp.json"
    write(target, {"mcpServers": {"other": {"command": "x", "args": []}}, "note": 1})
    out = json.loads(ok(run_bsi("mcp", "install", "--no-check", "--json", brain=brain)))  # (the check: its own file)
    assert out["action"] == "installed"
    data = json.loads(target.read_text())
    assert data["note"] == 1 and data["mcpServers"]["other"] == {"command": "x", "args": []}
    assert data["mcpServers"]["bsi"] == {"type": "stdio", "command": "bsi", "args": ["mcp"]}
    first = target.read_bytes()
    assert "unchanged" in ok(run_bsi("mcp", "install", "--no-check", brain=brain))
    assert target.read_bytes() == first


def test_the_demo_brain_carries_the_settings(demo_brain: Path) -> None:
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=demo_brain)))
    assert status["installed"], status
    assert json.loads((demo_brain / ".mcp.json").read_text())["mcpServers"]["bsi"]["args"] == ["mcp"]
    from tests.bsi import git

    assert git(demo_brain, "status", "--porcelain", ".claude", ".mcp.json") == ""


def test_a_bsi_path_with_a_space_is_one_word_for_the_hooks_and_the_mcp_entry(brain: Path, tmp_path: Path) -> None:
    """`--bsi "'/opt/my tools/bsi'"`: the hooks' shell runs that one program, so the MCP entry's `command` is that
    path whole (it was split at the space), and a second install finds the hooks it made (none doubled)."""
    import shutil

    folder = tmp_path / "my tools"
    folder.mkdir()
    program = folder / "bsi"
    program.symlink_to(shutil.which("bsi") or "bsi")
    quoted = f"'{program}'"
    out = json.loads(ok(run_bsi("mcp", "install", "--json", "--bsi", quoted, brain=brain)))
    assert out["resolves"] is True, out
    entry = json.loads((brain / ".mcp.json").read_text())["mcpServers"]["bsi"]
    assert entry["command"] == str(program) and entry["args"] == ["mcp"], entry
    ok(run_bsi("hooks", "install", "--bsi", quoted, brain=brain))
    again = run_bsi("hooks", "install", "--bsi", quoted, brain=brain)
    assert again.code == 0 and "unchanged" in again.out, again
    pre = json.loads((brain / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"]
    assert [hook["command"] for group in pre for hook in group["hooks"]] == [f"{quoted} hook pre-tool-use"]


def test_a_lone_surrogate_in_a_foreign_entry_is_kept_as_written(brain: Path) -> None:
    """`"\\ud800"` is valid JSON (the clients' JSON.parse reads it) but no UTF-8 text: install, `mcp install` and a
    second run were an internal error (exit 70). The foreign entry is kept with its escape, and a rerun is unchanged."""
    for args, name in ((("hooks", "install"), ".claude/settings.json"),
                       (("mcp", "install", "--no-check"), ".mcp.json")):
        path = brain / name
        path.parent.mkdir(exist_ok=True)
        path.write_text('{"foreign": "a\\ud800b", "ok": "café"}\n', encoding="utf-8")
        ok(run_bsi(*args, brain=brain))
        text = path.read_text(encoding="utf-8")
        assert '"a\\ud800b"' in text and '"café"' in text
        assert json.loads(text)["foreign"] == "a\ud800b"
        assert "unchanged" in run_bsi(*args, brain=brain).out + run_bsi(*args, brain=brain).err
        assert path.read_text(encoding="utf-8") == text
