"""The real Codex CLI against `fake_codex`, in a brain with `bsi hooks install --agent codex` and `bsi mcp install
--agent codex` (SPEC 20.2, 20.3, 21.3).

Runs only where a `codex` binary is found (`$BSI_CODEX_BIN`, else on PATH; checked with 0.171.0:
`npm install --prefix DIR @openai/codex@0.171.0`); skips otherwise. HOME and CODEX_HOME are private folders; the
provider is given on the command line (`-c`), pointing at the fake Responses API. The shell steps ask for a
non-login shell (``"login": false``): a login shell's profile may reset PATH, and `bsi` is found on the test's PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from tests.bsi import BRAIN_AND_GIT, clean_env, ok, run_bsi
from tests.clock import live_now
from tests.e2e_codex.fake_codex import FakeResponsesAPI, Step
from tests.headless import headless_events

CODEX = os.environ.get("BSI_CODEX_BIN") or shutil.which("codex")
pytestmark = pytest.mark.skipif(CODEX is None, reason="no Codex CLI (`codex` on PATH or $BSI_CODEX_BIN)")
VENV_BIN = str(Path(sys.executable).parent)
TIMEOUT = 180
MODEL = "gpt-5.5"  # a model Codex knows, so that it offers `apply_patch`
NS = "mcp__bsi"  # the namespace of bsi's MCP tools once `tool_search` brought them in


def env(home: Path, **extra: str) -> dict[str, str]:
    base = clean_env(drop=(*BRAIN_AND_GIT, "CLAUDE*", "GEMINI*", "CODEX*", "BSI_*", "OPENAI*"), HOME=str(home),
                     CODEX_HOME=str(home / ".codex"), **extra)
    base["PATH"] = os.pathsep.join([VENV_BIN, str(Path(str(CODEX)).parent), base.get("PATH", "")])
    return base


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch", ""])


def sh(cmd: str) -> Step:
    return {"call": "exec_command", "args": {"cmd": cmd, "login": False}}


def run_codex(brain: Path, home: Path, script: list[Step], **extra: str) -> tuple[FakeResponsesAPI, list[Any]]:
    """One headless `codex exec` run: the fake API (its requests) and the JSONL events."""
    api = FakeResponsesAPI(script)
    provider = {"name": "fake", "base_url": api.url, "wire_api": "responses", "env_key": "FAKE_OPENAI_KEY"}
    config = ["-c", 'model_provider="fake"'] + [
        arg for key, value in provider.items() for arg in ("-c", f"model_providers.fake.{key}={json.dumps(value)}")]
    try:
        events = headless_events([str(CODEX), "exec", "--json", "-m", MODEL, *config,
                                  "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust",
                                  "--skip-git-repo-check", "do the task"],
                                 brain, env(home, FAKE_OPENAI_KEY="dummy", **extra), TIMEOUT, "Codex CLI")
    finally:
        api.close()
    return api, events


@pytest.fixture
def codex_brain(brain: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    """The brain (a human's claim on notes/, a paused claim on paused/, the hooks and the MCP server installed),
    the private HOME, and the paused claim's ID."""
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (brain / "notes").mkdir()
    (brain / "notes" / "held.md").write_text("original\n")
    (brain / "free.md").write_text("free\n")
    ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "a human's", "--slug", "held", brain=brain,
               now=live_now(), env=env(home)))
    paused = run_bsi("claim", "open", "--scope", "paused/", "--story", "on hold", "--slug", "onhold", brain=brain,
                     now=live_now(), env=env(home))
    ok(paused)
    ok(run_bsi("gate", "pause", paused.out.strip(), "hold on", brain=brain, now=live_now(), env=env(home)))
    ok(run_bsi("hooks", "install", "--agent", "codex", brain=brain, env=env(home), process=True))
    ok(run_bsi("mcp", "install", "--agent", "codex", brain=brain, env=env(home), process=True))
    # Codex gives a server 10 s for initialize and tools/list; on a loaded 2-core CI machine bsi's first tools/list
    # (the SDK loading) once took longer, and the tools were missing: the user's own key, kept by `mcp install`
    config = home / ".codex" / "config.toml"
    settings = tomlkit.parse(config.read_text(encoding="utf-8"))
    settings["mcp_servers"]["bsi"]["startup_timeout_sec"] = 60
    config.write_text(tomlkit.dumps(settings), encoding="utf-8")
    return brain, home, paused.out.strip()


def test_codex_cli_writes_go_through_bsi(codex_brain: tuple[Path, Path, str]) -> None:
    brain, home, _ = codex_brain
    script: list[Step] = [
        {"call": "apply_patch", "input": patch("*** Add File: notes/new.md", "+new")},
        {"call": "apply_patch", "input": patch("*** Update File: notes/held.md", "@@", "-original", "+clobbered")},
        {"call": "apply_patch", "input": patch("*** Add File: claims/x.yml", "+x")},
        {"call": "apply_patch", "input": patch("*** Update File: free.md", "*** Move to: claims/y.yml", "@@",
                                               "-free", "+moved")},
        sh("echo x > claims/x.yml"),
        sh("echo x >> notes/held.md"),
        {"call": "exec_command", "args": {"cmd": "echo x >> held.md", "workdir": "notes", "login": False}},
        {"call": "apply_patch", "input": patch("*** Update File: free.md", "@@", "-free", "+changed")},
        sh("bsi claim open --scope work/ --story mine --slug mine"),
        {"call": "apply_patch", "input": patch("*** Add File: work/a.md", "+a")},
        {"search": "bsi claim"},
        {"call": "my_claim", "namespace": NS, "args": {}},
        {"text": "finished"},
    ]
    api, events = run_codex(brain, home, script)
    outputs = api.tool_outputs()
    assert len(outputs) == 12, outputs
    (new, held, protocol, moved, shell_protocol, shell_held, shell_workdir, free, opened, mine, _search,
     my_claim) = outputs
    for denied in (new, held, shell_held, shell_workdir):  # the model reads why: the holder and what unblocks it
        assert denied.startswith("Command blocked by PreToolUse hook: bsi:"), denied
        assert "holds notes/" in denied and "-held" in denied, denied
    for denied in (protocol, moved, shell_protocol):
        assert "protocol file" in denied, denied
    assert "Success" in free and "Success" in mine, (free, mine)
    assert "sess-" in opened and "-mine" in my_claim and "agent_session" in my_claim, (opened, my_claim)
    assert (brain / "notes" / "held.md").read_text() == "original\n"
    assert sorted(p.name for p in (brain / "notes").iterdir()) == ["held.md"]
    assert not (brain / "claims" / "x.yml").exists() and not (brain / "claims" / "y.yml").exists()
    assert (brain / "free.md").read_text() == "changed\n" and (brain / "work" / "a.md").read_text() == "a\n"
    first = json.dumps(api.requests[0]["input"])
    assert "BSI brain" in first  # SessionStart's context reached the model
    # the Stop hook held the turn once: the claim is still open, and the model was told to close it
    assert "is still open" in json.dumps(api.requests[-1]["input"][-1])
    assert sum(1 for e in events if e.get("item", {}).get("type") == "agent_message") == 2


def test_codex_cli_session_of_a_paused_claim_writes_nothing(codex_brain: tuple[Path, Path, str]) -> None:
    brain, home, paused = codex_brain
    script: list[Step] = [
        sh("echo hi"),
        {"call": "apply_patch", "input": patch("*** Add File: paused/a.md", "+a")},
        {"call": "apply_patch", "input": patch("*** Update File: free.md", "@@", "-free", "+changed")},
        {"text": "finished"},
    ]
    api, _ = run_codex(brain, home, script, BSI_SESSION=paused)
    outputs = api.tool_outputs()
    assert len(outputs) == 3, outputs
    for denied in outputs:
        assert denied.startswith("Command blocked by PreToolUse hook:") and "paused" in denied, denied
    assert "every shell command" in outputs[0]
    assert not (brain / "paused").exists() and (brain / "free.md").read_text() == "free\n"


def test_codex_cli_claim_opened_through_bsi_mcp_binds_to_the_session(codex_brain: tuple[Path, Path, str]) -> None:
    brain, home, _ = codex_brain
    script: list[Step] = [
        {"search": "bsi claim"},
        {"call": "claim_open", "namespace": NS, "args": {"scope": ["work/"], "story": "via mcp", "slug": "viamcp"}},
        {"call": "my_claim", "namespace": NS, "args": {}},
        {"call": "apply_patch", "input": patch("*** Add File: work/a.md", "+a")},
        {"call": "apply_patch", "input": patch("*** Add File: elsewhere/a.md", "+a")},
        {"text": "finished"},
    ]
    api, events = run_codex(brain, home, script)
    offered = {tool.get("name") for tool in api.requests[0]["tools"]}
    assert "claim_open" not in offered and "my_claim" not in offered  # deferred behind `tool_search`
    assert any(tool.get("type") == "tool_search" for tool in api.requests[0]["tools"])
    _search, opened, mine, inside, outside = api.tool_outputs()
    assert '"sess_id"' in opened and "-viamcp" in opened and "-viamcp" in mine, (opened, mine)
    assert "Success" in inside and "scope violation" in outside, (inside, outside)
    assert (brain / "work" / "a.md").exists() and not (brain / "elsewhere").exists()
    calls = [e["item"] for e in events if e.get("type") == "item.completed" and
             e.get("item", {}).get("type") == "mcp_tool_call"]
    assert [(c["server"], c["tool"]) for c in calls] == [("bsi", "claim_open"), ("bsi", "my_claim")]
