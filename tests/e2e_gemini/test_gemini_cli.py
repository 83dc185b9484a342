"""The real Gemini CLI against `fake_gemini`, in a brain with `bsi hooks install --agent gemini` and `bsi mcp
install --agent gemini` (SPEC 20.2, 20.3, 21.3).

Runs only where a `gemini` binary is found (`$BSI_GEMINI_BIN`, else on PATH; checked with 0.61.0:
`npm install --prefix DIR @google/gemini-cli@0.61.0`); skips otherwise. HOME is a private folder.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import BRAIN_AND_GIT, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.e2e_gemini.fake_gemini import FakeGeminiAPI, Step
from tests.headless import headless_events

GEMINI = os.environ.get("BSI_GEMINI_BIN") or shutil.which("gemini")
pytestmark = pytest.mark.skipif(GEMINI is None, reason="no Gemini CLI (`gemini` on PATH or $BSI_GEMINI_BIN)")
VENV_BIN = str(Path(sys.executable).parent)
TIMEOUT = 120


def env(home: Path, **extra: str) -> dict[str, str]:
    base = clean_env(drop=(*BRAIN_AND_GIT, "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*"), HOME=str(home), **extra)
    base["PATH"] = os.pathsep.join([VENV_BIN, str(Path(str(GEMINI)).parent), base.get("PATH", "")])
    return base


def run_gemini(brain: Path, home: Path, script: list[Step]) -> tuple[list[Any], list[dict[str, Any]]]:
    """One headless run: what the model was told of each tool call, and the stream-json events."""
    api = FakeGeminiAPI(script)
    try:
        events = headless_events([str(GEMINI), "-m", "gemini-2.5-flash", "-p", "do the task", "--yolo",
                                  "--output-format", "stream-json"],
                                 brain, env(home, GOOGLE_GEMINI_BASE_URL=api.url, GEMINI_API_KEY="dummy"), TIMEOUT,
                                 "Gemini CLI")
    finally:
        api.close()
    return api.tool_results(), events


@pytest.fixture
def gemini_brain(brain: Path, tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": True},
        "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False}}))
    (brain / "notes").mkdir()
    (brain / "notes" / "held.md").write_text("original\n")
    (brain / "free.md").write_text("free\n")
    ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "a human's", "--slug", "held", brain=brain,
               now=live_now(), env=env(home)))
    ok(run_bsi("hooks", "install", "--agent", "gemini", "--trust", brain=brain, env=env(home), process=True))
    ok(run_bsi("mcp", "install", "--agent", "gemini", brain=brain, env=env(home), process=True))
    return brain, home


def test_gemini_cli_writes_go_through_bsi(gemini_brain: tuple[Path, Path]) -> None:
    brain, home = gemini_brain
    script: list[Step] = [
        {"call": "write_file", "args": {"file_path": str(brain / "notes" / "held.md"), "content": "x\n"}},
        {"call": "write_file", "args": {"file_path": "claims/x.yml", "content": "x\n"}},
        {"call": "run_shell_command", "args": {"command": "echo x > claims/x.yml"}},
        {"call": "run_shell_command", "args": {"command": "echo x >> held.md", "dir_path": "notes"}},
        {"call": "write_file", "args": {"file_path": str(brain / "free.md"), "content": "changed\n"}},
        {"call": "run_shell_command", "args": {"command": "bsi claim open --scope work/ --story mine --slug mine"}},
        {"call": "write_file", "args": {"file_path": str(brain / "work" / "a.md"), "content": "a\n"}},
        {"call": "mcp_bsi_my_claim", "args": {}},
        {"text": "finished"},
    ]
    results, events = run_gemini(brain, home, script)
    assert len(results) == 8, results
    held, protocol, shell_protocol, shell_held, free, opened, mine, my_claim = results
    for denied in (held, shell_held):
        assert "holds notes/" in denied["error"] and "-held" in denied["error"]
    for denied in (protocol, shell_protocol):
        assert "protocol file" in denied["error"]
    assert "error" not in free and "error" not in opened and "error" not in mine, (free, opened, mine)
    assert "sess-" in opened["output"] and "-mine" in my_claim["output"]
    assert (brain / "notes" / "held.md").read_text() == "original\n" and not (brain / "claims" / "x.yml").exists()
    assert (brain / "free.md").read_text() == "changed\n" and (brain / "work" / "a.md").read_text() == "a\n"
    [start] = [e for e in events if e.get("type") == "message" and e.get("role") == "user"]
    assert "BSI brain" in start["content"]  # SessionStart's context reached the model
