"""`bsi mcp`'s own command line: its stdout is the protocol's from the first byte (SPEC 20.3), so a refusal of the
command line itself goes to stderr only, and a flag the server would not honour is refused, never ignored."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.bsi import bsi_command, clean_env, run_bsi

INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}) + "\n"


@pytest.mark.parametrize("words", [["--json", "mcp"], ["mcp", "--json"], ["--json", "mcp", "extra"],
                                   ["--json", "--offline", "mcp"]])
def test_a_refused_command_line_writes_nothing_on_stdout(brain: Path, words: list[str]) -> None:
    """`bsi --json mcp` was refused (64) with the CLI's JSON error document on stdout: a line that is no
    JSON-RPC message, read by the client as the server's first answer."""
    done = subprocess.run(bsi_command(*words, brain=brain), input=INIT, capture_output=True, text=True,
                          env=clean_env(), timeout=60)
    assert done.returncode == 64, (done.returncode, done.stderr)
    assert done.stdout == "", done.stdout
    assert done.stderr.startswith("bsi: ") and "Traceback" not in done.stderr


def test_a_missing_brain_under_json_writes_nothing_on_stdout(tmp_path: Path) -> None:
    done = subprocess.run(bsi_command("--json", "mcp", brain=tmp_path), input=INIT, capture_output=True, text=True,
                          env=clean_env(), timeout=60)
    assert done.returncode in (64, 66) and done.stdout == "", done.stdout


@pytest.mark.parametrize("flag", ["--offline", "--no-commit", "--sync"])
def test_a_write_mode_flag_the_server_would_ignore_is_refused(brain: Path, flag: str) -> None:
    """`bsi --no-commit mcp` served, and every tool call committed all the same (`--offline`, `--sync`
    likewise): the flag was dropped without a word. The brain's `sync:` setting is what the server follows."""
    done = subprocess.run(bsi_command(flag, "mcp", brain=brain), input=INIT, capture_output=True, text=True,
                          env=clean_env(), timeout=60)
    assert done.returncode == 64 and done.stdout == "", (done.returncode, done.stdout)
    assert flag in done.stderr and "sync:" in done.stderr


def test_the_help_lists_only_the_flags_the_server_takes() -> None:
    """`bsi mcp --help` listed --json, --no-commit, --sync and --offline, which `bsi mcp` refuses (64): its usage
    and options now show only what it takes, and the help says why the others are refused."""
    shown = run_bsi("mcp", "--help", now=None)
    assert shown.code == 0, shown
    usage, _, rest = shown.out.partition("\n\n")
    options = [line.split()[0] for line in rest.splitlines() if line.startswith("  -")]
    for flag in ("--json", "--no-commit", "--sync", "--offline"):
        assert flag not in usage and flag not in options, shown.out
    assert "--brain" in usage and "--now" in options
    said = " ".join(shown.out.split())
    assert "--json, --no-commit, --sync and --offline are refused" in said
