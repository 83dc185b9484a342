"""A file where the brain needs a folder (or a folder where it needs a file) is a plain refusal on every front.

SPEC 13: bad input gets one line and the exit code SPEC gives (65: the brain's data is not as it must be),
nothing half-written, never an internal error. The CLI already said so for a folder where a file goes; `.brain`
left as a file (`mkdir` answers "exists") was exit 70, and the MCP tools and the hooks answered "internal error"
for both, where the CLI names the path (`errors.os_refusal`, the one wording of the system's refusals).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client

from brain_tui.mcp.server import build_server
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, hook


def _file_for_folder(root: Path, rel: str) -> None:
    shutil.rmtree(root / rel, ignore_errors=True)
    (root / rel).write_text("not a folder\n")


def _folder_for_file(root: Path, rel: str) -> None:
    (root / rel).unlink()
    (root / rel).mkdir()


def _records(root: Path) -> dict[str, bytes]:
    """The bytes of every claim and signal file: "nothing written"."""
    return {str(p.relative_to(root)): p.read_bytes()
            for folder in ("claims", "signals") for p in (root / folder).iterdir()}


LAYOUTS = [(".brain", _file_for_folder), ("BRAIN-INDEX.md", _folder_for_file)]


@pytest.mark.parametrize(("rel", "make"), LAYOUTS)
def test_the_cli_refuses_with_65_and_names_the_path(brain: Path, rel: str, make: Any) -> None:
    make(brain, rel)
    before = _records(brain)
    done = run_bsi("claim", "open", "--scope", "src/", brain=brain)
    assert done.code == 65, done
    assert done.err.count("\n") == 1 and rel in done.err and "internal error" not in done.err, done.err
    assert _records(brain) == before


@pytest.mark.parametrize(("rel", "make"), LAYOUTS)
def test_an_mcp_tool_refuses_as_invalid_and_names_the_path(brain: Path, rel: str, make: Any) -> None:
    make(brain, rel)
    before = _records(brain)

    async def main() -> Any:
        async with Client(build_server(Session(brain, now=NOW, environ=clean_env()))) as client:
            return await client.call_tool("claim_open", {"scope": ["src/"], "story": "x"})

    result = asyncio.run(main())
    doc = result.structured_content
    assert result.is_error and doc is not None, result
    assert (doc["exit"], doc["kind"], doc["retryable"]) == (65, "invalid", False), doc
    assert rel in doc["error"] and "internal" not in doc["error"], doc
    assert _records(brain) == before


@pytest.mark.parametrize("rel", [".brain/agents", ".brain"])
def test_a_hook_says_which_path_is_in_the_way(brain: Path, rel: str) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=brain))
    _file_for_folder(brain, rel)
    post = {"session_id": AGENT, "cwd": str(brain), "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": str(brain / "src" / "a.py")}}
    done = hook(brain, "post-tool-use", post, env=clean_env(BSI_SESSION=sess))
    assert done.returncode == 0 and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and rel in done.stderr and "internal error" not in done.stderr, done
    pre = {**post, "hook_event_name": "PreToolUse"}
    done = hook(brain, "pre-tool-use", pre, env=clean_env(BSI_SESSION=sess))
    assert "internal error" not in done.stderr, done
    if done.stdout:
        json.loads(done.stdout)


def test_a_folder_where_a_lock_file_goes_is_named_as_the_lock_file_not_its_temp_file(brain: Path) -> None:
    """The refusal names the file the command writes (`locks/<file>.yml`), never the `.bsi-tmp-…` name it was
    being written under, which the user cannot find afterwards."""
    sess = ok(run_bsi("claim", "open", "--scope", "src/", brain=brain)).strip()
    (brain / "locks").mkdir(exist_ok=True)
    (brain / "locks" / "src%2Fa.py.yml").mkdir()
    done = run_bsi("lock", "acquire", "src/a.py", sess, brain=brain)
    assert done.code == 65, done
    assert "locks/src%2Fa.py.yml" in done.err and "a folder" in done.err, done.err  # a corrupt row: refused
    assert ".bsi-tmp-" not in done.err and done.err.count("\n") == 1
    ok(run_bsi("signal", "send", "--to", sess, "--type", "INFO", "next write", brain=brain))
