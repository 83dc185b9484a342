"""`bsi mcp install` starts the server first and writes nothing when it does not answer `initialize`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from brain_tui.hooks.mcp_check import ServerDidNotStart, check_server
from tests.bsi import clean_env, ok, run_bsi

SERVER = f"{sys.executable} -m brain_tui.cli.main"


@pytest.mark.parametrize("program", ["/nonexistent/bin/bsi", "false", f"{sys.executable} -c pass"])
def test_a_server_that_does_not_start_is_refused_with_69_and_nothing_written(brain: Path, program: str) -> None:
    target = brain / ".mcp.json"
    target.write_text('{"mcpServers": {"other": {"command": "x"}}}')
    run = run_bsi("mcp", "install", "--bsi", program, brain=brain)
    assert run.code == 69, run
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and ("did not start" in lines[0] or "cannot start" in lines[0])
    assert "nothing was written" in lines[0] and "Traceback" not in run.err
    assert target.read_text() == '{"mcpServers": {"other": {"command": "x"}}}'


def test_the_refusal_is_one_json_document_with_json(brain: Path) -> None:
    run = run_bsi("mcp", "install", "--json", "--bsi", "false", brain=brain)
    assert run.code == 69 and json.loads(run.out)["exit"] == 69
    assert not (brain / ".mcp.json").exists()


def test_a_server_that_answers_is_installed(brain: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(HOME=str(home), CODEX_HOME=str(home / ".codex"))
    for agent, path in (("claude", brain / ".mcp.json"), ("gemini", brain / ".gemini" / "settings.json"),
                        ("codex", home / ".codex" / "config.toml")):
        out = json.loads(ok(run_bsi("mcp", "install", "--agent", agent, "--json", "--bsi", SERVER, brain=brain,
                                    env=env)))
        assert out["action"] == "installed" and out["server"].startswith("bsi") and path.is_file(), out


def test_a_silent_program_times_out(tmp_path: Path) -> None:
    with pytest.raises(ServerDidNotStart, match="no answer to `initialize` within 1 s"):
        check_server([sys.executable, "-c", "import sys; sys.stdin.read()"], tmp_path, timeout=1)


def test_an_error_answer_is_refused(tmp_path: Path) -> None:
    script = 'import sys; sys.stdin.readline(); print(\'{"jsonrpc": "2.0", "id": 1, "error": {"message": "no"}}\')'
    with pytest.raises(ServerDidNotStart, match="refused `initialize`: no"):
        check_server([sys.executable, "-c", script], tmp_path)
