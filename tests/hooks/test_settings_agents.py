"""`bsi hooks install|status|uninstall --agent gemini|codex` and `bsi mcp install --agent gemini|codex`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_settings import CODEX_MATCHER, GEMINI_MATCHER

GEMINI_FOREIGN = {
    "theme": "GitHub",
    "mcpServers": {"other": {"command": "x"}},
    "hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./g.sh"}]}]},
}
CODEX_CONFIG = """\
# my Codex settings
model = "gpt-5.5"  # the one I use

[mcp_servers.other]
command = "other-server"
args = ["--flag"]
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def env_for(home: Path) -> dict[str, str]:
    return clean_env(HOME=str(home), CODEX_HOME=str(home / ".codex"))


def test_gemini_hooks_merge_keep_foreign_entries_and_carry_the_agent(brain: Path, home: Path) -> None:
    target = brain / ".gemini" / "settings.json"
    target.parent.mkdir()
    target.write_text(json.dumps(GEMINI_FOREIGN))
    env = env_for(home)
    out = run_bsi("hooks", "install", "--agent", "gemini", brain=brain, env=env)
    assert out.code == 0 and "installed" in out.out and "--trust" in out.out
    data = json.loads(target.read_text())
    assert data["theme"] == "GitHub" and data["mcpServers"] == {"other": {"command": "x"}}
    before = data["hooks"]["BeforeTool"]
    assert before[0] == GEMINI_FOREIGN["hooks"]["BeforeTool"][0]  # type: ignore[index]
    assert before[1] == {"matcher": GEMINI_MATCHER, "hooks": [
        {"type": "command", "command": "bsi hook pre-tool-use --agent gemini", "timeout": 10000}]}
    for name, event in (("AfterTool", "post-tool-use"), ("SessionStart", "session-start"),
                        ("SessionEnd", "session-end"), ("Notification", "notification"),
                        ("BeforeAgent", "user-prompt-submit"), ("AfterAgent", "stop")):
        assert data["hooks"][name][-1]["hooks"][0]["command"] == f"bsi hook {event} --agent gemini"
    first = target.read_bytes()
    assert "unchanged" in ok(run_bsi("hooks", "install", "--agent", "gemini", brain=brain, env=env))
    assert target.read_bytes() == first
    status = json.loads(ok(run_bsi("hooks", "status", "--agent", "gemini", "--json", brain=brain, env=env)))
    assert status["installed"] and status["trusted"] is False
    assert not (home / ".gemini" / "trustedFolders.json").exists()
    assert "removed" in ok(run_bsi("hooks", "uninstall", "--agent", "gemini", brain=brain, env=env))
    assert json.loads(target.read_text()) == GEMINI_FOREIGN
    assert not (brain / ".claude").exists()


def test_gemini_trust_is_written_only_with_the_flag(brain: Path, home: Path) -> None:
    env = env_for(home)
    trusted = home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir()
    trusted.write_text(json.dumps({"/elsewhere": "DO_NOT_TRUST"}))
    ok(run_bsi("mcp", "install", "--agent", "gemini", "--no-check", brain=brain, env=env))
    assert json.loads(trusted.read_text()) == {"/elsewhere": "DO_NOT_TRUST"}
    out = ok(run_bsi("hooks", "install", "--agent", "gemini", "--trust", brain=brain, env=env))
    assert str(trusted) in out
    assert json.loads(trusted.read_text()) == {"/elsewhere": "DO_NOT_TRUST", str(brain.resolve()): "TRUST_FOLDER"}
    status = json.loads(ok(run_bsi("hooks", "status", "--agent", "gemini", "--json", brain=brain, env=env)))
    assert status["trusted"] is True
    servers = json.loads((brain / ".gemini" / "settings.json").read_text())["mcpServers"]
    assert servers == {"bsi": {"command": "bsi", "args": ["mcp"]}}
    trust_before = trusted.read_bytes()
    out = ok(run_bsi("hooks", "uninstall", "--agent", "gemini", brain=brain, env=env))
    assert "removed" in out and "left as it is" in out and trusted.read_bytes() == trust_before


def test_gemini_settings_that_are_not_json_are_refused_untouched(brain: Path, home: Path) -> None:
    target = brain / ".gemini" / "settings.json"
    target.parent.mkdir()
    target.write_text("{nope")
    for args in (("hooks", "install", "--agent", "gemini"), ("mcp", "install", "--agent", "gemini")):
        run = run_bsi(*args, brain=brain, env=env_for(home))
        assert run.code == 65 and "nothing was changed" in run.err and "Traceback" not in run.err
        assert target.read_text() == "{nope"


def test_codex_hooks_json_merge_status_uninstall(brain: Path, home: Path) -> None:
    env = env_for(home)
    target = home / ".codex" / "hooks.json"
    target.parent.mkdir()
    foreign = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    target.write_text(json.dumps(foreign))
    ok(run_bsi("hooks", "install", "--agent", "codex", brain=brain, env=env))
    data = json.loads(target.read_text())
    assert data["hooks"]["Stop"][0] == foreign["hooks"]["Stop"][0]
    codex_tools = CODEX_MATCHER
    assert data["hooks"]["PreToolUse"] == [{"matcher": codex_tools, "hooks": [
        {"type": "command", "command": "bsi hook pre-tool-use --agent codex", "timeout": 10}]}]
    assert data["hooks"]["Stop"][1]["hooks"][0]["command"] == "bsi hook stop --agent codex"
    first = target.read_bytes()
    assert "unchanged" in ok(run_bsi("hooks", "install", "--agent", "codex", brain=brain, env=env))
    assert target.read_bytes() == first
    assert json.loads(ok(run_bsi("hooks", "status", "--agent", "codex", "--json", brain=brain, env=env)))["installed"]
    ok(run_bsi("hooks", "uninstall", "--agent", "codex", brain=brain, env=env))
    assert json.loads(target.read_text()) == foreign


def test_codex_mcp_server_in_config_toml_keeps_comments_and_other_servers(brain: Path, home: Path) -> None:
    env = env_for(home)
    target = home / ".codex" / "config.toml"
    target.parent.mkdir()
    target.write_text(CODEX_CONFIG)
    out = json.loads(ok(run_bsi("mcp", "install", "--agent", "codex", "--no-check", "--json", brain=brain,
                                env=env)))
    assert out["action"] == "installed"
    text = target.read_text()
    assert text.startswith(CODEX_CONFIG)  # every line of the user's kept as written
    import tomllib

    doc = tomllib.loads(text)
    assert doc["model"] == "gpt-5.5" and doc["mcp_servers"]["other"] == {"command": "other-server",
                                                                         "args": ["--flag"]}
    assert doc["mcp_servers"]["bsi"] == {"command": "bsi", "args": ["mcp"], "cwd": str(brain.resolve()),
                                         "startup_timeout_sec": 30}
    assert "unchanged" in ok(run_bsi("mcp", "install", "--agent", "codex", "--no-check", brain=brain, env=env))
    assert target.read_text() == text


def test_codex_config_that_is_not_toml_is_refused_untouched(brain: Path, home: Path) -> None:
    target = home / ".codex" / "config.toml"
    target.parent.mkdir()
    for bad in ("model = \n", "mcp_servers = 3\n"):
        target.write_text(bad)
        run = run_bsi("mcp", "install", "--agent", "codex", "--no-check", brain=brain, env=env_for(home))
        assert run.code == 65 and "nothing was changed" in run.err and "Traceback" not in run.err
        assert target.read_text() == bad


def test_a_trust_file_that_is_not_json_is_refused_before_anything_is_written(brain: Path, home: Path) -> None:
    trusted = home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir()
    trusted.write_text("{broken")
    run = run_bsi("hooks", "install", "--agent", "gemini", "--trust", brain=brain, env=env_for(home))
    assert run.code == 65 and "nothing was changed" in run.err
    assert not (brain / ".gemini").exists() and trusted.read_text() == "{broken"


@pytest.mark.parametrize(("args", "line"), [
    (("hooks", "install", "--trust"), "--trust is for --agent gemini, not --agent claude"),
    (("hooks", "install", "--agent", "codex", "--local"), "--local is for --agent claude, not --agent codex"),
    (("hooks", "status", "--agent", "gemini", "--no-sandbox"), "--no-sandbox is for --agent claude"),
    (("mcp", "install", "--agent", "codex", "--trust", "--no-check"), "--trust is for --agent gemini"),
])
def test_a_flag_for_another_agent_is_a_usage_error(brain: Path, home: Path, args: tuple[str, ...],
                                                   line: str) -> None:
    run = run_bsi(*args, brain=brain, env=env_for(home))
    assert run.code == 64 and line in run.err
    assert not (brain / ".claude").exists() and not (home / ".codex").exists()
