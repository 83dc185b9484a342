"""`bsi` is `brain_tui.entry`: it hands `bsi mcp` to the MCP server and every other command to the CLI,
which never imports the server (the layers contract in pyproject)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from brain_tui import entry
from brain_tui.cli.main import main as cli_main
from brain_tui.core.brain import init_brain
from brain_tui.mcp import server


def test_bsi_mcp_reaches_the_server_through_the_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "brain"
    init_brain(root, commit=False)
    calls: list[tuple[Any, ...]] = []

    def fake_serve(path: Any, now: str | None = None, stdout: Any = None) -> int:
        calls.append((Path(path), now))
        return 3

    monkeypatch.setattr(server, "serve", fake_serve)
    # flags after `mcp`: not the fast front's form, so the command line parses it and calls the server given
    assert entry.main(["mcp", "--brain", str(root), "--now", "2026-11-29T10:00:00Z"]) == 3
    assert calls == [(root.resolve(), "2026-11-29T10:00:00Z")]


def test_the_cli_alone_refuses_bsi_mcp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "brain"
    init_brain(root, commit=False)
    assert cli_main(["mcp", "--brain", str(root)]) == 64
    assert "without the MCP server" in capsys.readouterr().err


def test_other_commands_go_to_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        entry.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("bsi ")


def test_a_command_runs_without_the_cycle_collector_and_gives_it_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    root = tmp_path / "brain"
    init_brain(root, commit=False)
    seen: list[bool] = []

    def fake_cli(args: list[str], serve_mcp: Any) -> int:
        seen.append(gc.isenabled())
        return serve_mcp(root, None, None) if args[:1] == ["mcp"] else 0

    monkeypatch.setattr(entry, "run_cli", fake_cli)
    monkeypatch.setattr(server, "serve", lambda *a, **k: seen.append(gc.isenabled()) or 0)
    assert gc.isenabled()
    assert entry.main(["claim", "list"]) == 0
    assert entry.main(["mcp", "--brain", str(root)]) == 0
    # a short command runs without it; the MCP server (long-lived) has it; the caller's process gets it back
    assert seen == [False, True, True] and gc.isenabled()
