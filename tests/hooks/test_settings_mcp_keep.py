"""`bsi mcp install` again keeps what the user added to bsi's own server entry (SPEC 20.3: merged like hooks).

bsi owns the command, its arguments and the keys it writes itself (`type` in `.mcp.json`, `cwd` in Codex's table);
every other key of its entry (an `env` map, Gemini's `timeout`/`trust`, Codex's `startup_timeout_sec`) is the user's.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.bsi import clean_env, ok, run_bsi


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return clean_env(HOME=str(home), CODEX_HOME=str(home / ".codex"))


def install(brain: Path, env: dict[str, str], agent: str, *more: str) -> dict[str, object]:
    out: dict[str, object] = json.loads(ok(run_bsi("mcp", "install", "--agent", agent, "--no-check", "--json",
                                                   *more, brain=brain, env=env)))
    return out


def edit_json(path: Path, server: str, **keys: object) -> None:
    data = json.loads(path.read_text())
    data["mcpServers"][server].update(keys)
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_claude_reinstall_keeps_the_users_env_in_bsis_entry(brain: Path, env: dict[str, str]) -> None:
    target = brain / ".mcp.json"
    install(brain, env, "claude", "--bsi", "/opt/old/bsi")
    edit_json(target, "bsi", env={"BRAIN_ROOT": "/srv/brain", "HTTPS_PROXY": "http://proxy:3128"}, type="stdio")
    assert install(brain, env, "claude")["action"] == "updated"
    entry = json.loads(target.read_text())["mcpServers"]["bsi"]
    assert entry == {"type": "stdio", "command": "bsi", "args": ["mcp"],
                     "env": {"BRAIN_ROOT": "/srv/brain", "HTTPS_PROXY": "http://proxy:3128"}}
    first = target.read_bytes()
    assert install(brain, env, "claude")["action"] == "unchanged" and target.read_bytes() == first


def test_gemini_reinstall_keeps_the_users_timeout_and_trust(brain: Path, env: dict[str, str]) -> None:
    target = brain / ".gemini" / "settings.json"
    install(brain, env, "gemini")
    edit_json(target, "bsi", timeout=30000, trust=True, env={"BRAIN_ROOT": "/srv/brain"})
    install(brain, env, "gemini", "--bsi", "/usr/local/bin/bsi")
    entry = json.loads(target.read_text())["mcpServers"]["bsi"]
    assert entry == {"command": "/usr/local/bin/bsi", "args": ["mcp"], "timeout": 30000, "trust": True,
                     "env": {"BRAIN_ROOT": "/srv/brain"}}


def test_codex_reinstall_keeps_the_users_env_and_startup_timeout(brain: Path, env: dict[str, str],
                                                                 tmp_path: Path) -> None:
    target = tmp_path / "home" / ".codex" / "config.toml"
    install(brain, env, "codex")
    assert tomllib.loads(target.read_text())["mcp_servers"]["bsi"]["startup_timeout_sec"] == 30  # Codex's 10 s: short
    text = target.read_text().replace("startup_timeout_sec = 30", "startup_timeout_sec = 90")
    target.write_text(text + "\n[mcp_servers.bsi.env]\nBRAIN_ROOT = \"/srv/brain\"\n")
    install(brain, env, "codex", "--bsi", "/usr/local/bin/bsi")
    entry = tomllib.loads(target.read_text())["mcp_servers"]["bsi"]
    assert entry == {"command": "/usr/local/bin/bsi", "args": ["mcp"], "cwd": str(brain.resolve()),
                     "startup_timeout_sec": 90, "env": {"BRAIN_ROOT": "/srv/brain"}}


def test_a_server_named_bsi_that_is_not_bsis_is_replaced_whole(brain: Path, env: dict[str, str]) -> None:
    """Another program's server under bsi's name: nothing of it is merged into ours (as before)."""
    target = brain / ".mcp.json"
    target.write_text(json.dumps({"mcpServers": {"bsi": {"type": "http", "url": "http://elsewhere/mcp",
                                                         "headers": {"X": "1"}}}}))
    install(brain, env, "claude")
    assert json.loads(target.read_text())["mcpServers"]["bsi"] == {"type": "stdio", "command": "bsi",
                                                                   "args": ["mcp"]}


@pytest.mark.parametrize("value", ['"x"', "inf", "nan", "-5", "true", "[30]"])
def test_codex_startup_timeout_codex_cannot_read_is_refused_untouched(brain: Path, env: dict[str, str],
                                                                     value: str) -> None:
    """Codex refuses its whole config.toml for such a value ("invalid type: string", "cannot convert float seconds
    to Duration"): an install that kept it and said "installed" left Codex unable to start."""
    target = Path(env["CODEX_HOME"]) / "config.toml"
    target.parent.mkdir()
    text = f'model = "o3"\n\n[mcp_servers.bsi]\ncommand = "bsi"\nargs = ["mcp"]\nstartup_timeout_sec = {value}\n'
    target.write_text(text)
    run = run_bsi("mcp", "install", "--agent", "codex", "--no-check", brain=brain, env=env)
    assert run.code == 65 and "startup_timeout_sec" in run.err and "nothing was changed" in run.err, run
    assert "Traceback" not in run.err and target.read_text() == text
