"""The e2e harness itself: when it finds, installs or gives up on Claude Code; what the fake API answers."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import client
from tests.e2e.client import CLAUDE_PACKAGE, CLAUDE_VERSION, InstallFailed, Unavailable, find_claude
from tests.e2e.fake_api import FakeMessagesAPI, Step, Text, ToolUse


class FakeTools:
    """Stand-ins for `which`, `--version`, `npm ping` and `npm install`, recording what was asked."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, claude: str | None, npm: bool, reachable: bool,
                 installs: bool = True) -> None:
        self.versions: dict[str, str] = {"/usr/bin/claude": claude} if claude else {}
        self.installed: list[Path] = []
        self.pinged = False
        self.reachable, self.installs = reachable, installs
        paths = {"claude": "/usr/bin/claude" if claude else None, "npm": "/usr/bin/npm" if npm else None}
        monkeypatch.setattr(shutil, "which", paths.get)
        monkeypatch.setattr(client, "version_of", lambda binary: self.versions.get(binary))
        monkeypatch.setattr(client, "npm_reachable", self._ping)
        monkeypatch.setattr(client, "npm_install", self._install)

    def _ping(self, npm: str) -> bool:
        self.pinged = True
        return self.reachable

    def _install(self, npm: str, prefix: Path) -> subprocess.CompletedProcess[str]:
        self.installed.append(prefix)
        if self.installs:
            self.versions[str(prefix / "node_modules" / ".bin" / "claude")] = CLAUDE_VERSION
        return subprocess.CompletedProcess([npm], 0 if self.installs else 1, "", "" if self.installs else "E404")


def test_the_pinned_claude_on_path_is_used_without_asking_npm(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    tools = FakeTools(monkeypatch, claude=CLAUDE_VERSION, npm=True, reachable=True)
    assert find_claude(tmp_path) == "/usr/bin/claude"
    assert not tools.pinged and not tools.installed


@pytest.mark.parametrize("claude", [None, "2.0.1"])
def test_a_missing_or_other_claude_is_installed_when_npm_is_reachable(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, claude: str | None) -> None:
    tools = FakeTools(monkeypatch, claude=claude, npm=True, reachable=True)
    found = find_claude(tmp_path)
    assert tools.installed == [tmp_path / f"claude-code-{CLAUDE_VERSION}"]
    assert found == str(tools.installed[0] / "node_modules" / ".bin" / "claude")
    # A second call (another xdist worker) reuses the install.
    assert find_claude(tmp_path) == found and len(tools.installed) == 1


@pytest.mark.parametrize(("claude", "npm"), [(None, False), (None, True), ("2.0.1", True)])
def test_without_the_pinned_claude_and_a_reachable_npm_it_is_unavailable(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, claude: str | None, npm: bool) -> None:
    tools = FakeTools(monkeypatch, claude=claude, npm=npm, reachable=False)
    with pytest.raises(Unavailable, match=f"Claude Code {CLAUDE_VERSION}") as raised:
        find_claude(tmp_path)
    assert CLAUDE_PACKAGE in str(raised.value)
    assert ("is not installed" if not npm else "cannot reach its registry") in str(raised.value)
    assert not tools.installed


def test_a_failed_install_is_a_failure_not_a_skip(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    FakeTools(monkeypatch, claude=None, npm=True, reachable=True, installs=False)
    with pytest.raises(InstallFailed, match="E404"):
        find_claude(tmp_path)


def _post(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    request = urllib.request.Request(f"{url}/v1/messages?beta=true", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        text = answer.read().decode()
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def _loop(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "m", "stream": True, "messages": messages,
            "tools": [{"name": name} for name in ("Bash", "Edit", "Write", "Read")]}


def test_the_fake_api_plays_the_script_by_step_and_answers_side_requests_with_text() -> None:
    script: list[Step] = [ToolUse("Bash", {"command": "echo hi"}), Text("All done.")]
    with FakeMessagesAPI(script) as api:
        first = _post(api.base_url, _loop([{"role": "user", "content": "go"}]))
        assert [event["type"] for event in first] == [
            "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
            "message_stop"]
        use = first[1]["content_block"]
        assert (use["type"], use["name"]) == ("tool_use", "Bash")
        assert json.loads(first[2]["delta"]["partial_json"]) == {"command": "echo hi"}
        assert first[4]["delta"]["stop_reason"] == "tool_use"
        result = {"type": "tool_result", "tool_use_id": use["id"], "content": "hi", "is_error": False}
        second = _post(api.base_url, _loop([{"role": "user", "content": "go"},
                                            {"role": "assistant", "content": [use]},
                                            {"role": "user", "content": [result]}]))
        assert second[2]["delta"] == {"type": "text_delta", "text": "All done."}
        side = _post(api.base_url, {"model": "m", "stream": True, "messages": [{"role": "user", "content": "title"}]})
        assert side[2]["delta"]["type"] == "text_delta" and side[4]["delta"]["stop_reason"] == "end_turn"
        assert api.result_of(0)["content"] == "hi"
        assert [exchange.step for exchange in api.agent_requests()] == [0, 1]


def test_an_mcp_step_waits_for_the_server_and_the_waits_are_not_steps() -> None:
    script: list[Step] = [ToolUse("mcp__bsi__my_claim", {}), Text("Mine.")]
    with FakeMessagesAPI(script) as api:
        prompt = {"role": "user", "content": "go"}
        first = _post(api.base_url, _loop([prompt]))
        wait = first[1]["content_block"]
        assert (wait["name"], json.loads(first[2]["delta"]["partial_json"])) == ("WaitForMcpServers",
                                                                               {"servers": ["bsi"]})
        waited: list[dict[str, Any]] = [prompt, {"role": "assistant", "content": [wait]},
                  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": wait["id"], "content": "ok"}]}]
        connected = _loop(waited)
        connected["tools"].append({"name": "mcp__bsi__my_claim"})
        second = _post(api.base_url, connected)
        assert second[1]["content_block"]["name"] == "mcp__bsi__my_claim"
        assert "mcp__bsi__my_claim" in api.offered(0)
