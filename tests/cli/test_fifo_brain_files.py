"""A brain file that is a FIFO (an agent can `mkfifo` any file of the brain) is never waited on: not by a write that
edits a claim, nor by the alternatives a refused claim is offered, nor by `bsi claim show`, nor by the check of a
claim a commit ended. Before, each of these opened it plainly and hung the process (a write with the brain lock
held)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import InvalidData
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.records.work_tree_copy import live_in_work_tree, work_tree_bytes
from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.conftest import claim_file

#: Seconds a call may take before it counts as waiting on the FIFO.
WAIT = 30


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _release(path: Path) -> None:
    """Let a reader blocked on the FIFO at `path` go (it reads an end of file), so a failing test ends."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def _in_thread(call: Callable[[], Any], fifo: Path) -> Any:
    """`call()`'s result (or the exception it raised), failing when it is still waiting after `WAIT` seconds."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except Exception as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(WAIT)
    waited = thread.is_alive()
    while thread.is_alive():
        _release(fifo)
        thread.join(0.1)
    assert not waited, f"waited on the FIFO {fifo}"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _bsi(brain: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(bsi_command(*args, brain=brain, now=NOW), capture_output=True, text=True, timeout=WAIT,
                          env=clean_env(), cwd=brain, check=False)


def test_a_claim_edit_refuses_a_claim_file_that_became_a_fifo(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    snapshot = Brain(brain, now=NOW).snapshot()
    assert snapshot.claim(holder) is not None
    path = claim_file(brain, holder)
    _fifo(path)  # planted after the read the write decides on, before the write edits the file
    change = ChangeSet(snapshot)
    with pytest.raises(InvalidData, match=f"claims/{holder}.yml") as refused:
        _in_thread(lambda: change.update_claim(holder, {"story_angle": "x"}), path)
    assert "regular file" in str(refused.value)
    assert path.is_fifo()  # nothing was written over it


def test_a_claim_edit_of_a_regular_file_is_unchanged(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    change = ChangeSet(Brain(brain, now=NOW).snapshot())
    change.update_claim(holder, {"story_angle": "x"})
    written = change.render()[f"claims/{holder}.yml"]
    before = claim_file(brain, holder).read_text(encoding="utf-8")
    assert written is not None
    assert sorted(set(written.splitlines()) - set(before.splitlines())) == ["story_angle: 'x'"]
    assert sorted(set(before.splitlines()) - set(written.splitlines())) == ["story_angle: ''"]


def test_a_refused_claim_on_a_fifo_markdown_file_is_refused_in_time(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "wiki/a.md", "--slug", "aaaa", brain=brain))
    (brain / "wiki").mkdir(exist_ok=True)
    _fifo(brain / "wiki" / "a.md")
    done = _bsi(brain, "--json", "claim", "open", "--scope", "wiki/a.md", "--slug", "bbbb")
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done
    assert done.returncode not in (0, 70), done


def test_the_sections_of_a_fifo_markdown_file_are_none(tmp_path: Path) -> None:
    from brain_tui.core.rules.alternatives import _sections

    path = tmp_path / "a.md"
    _fifo(path)
    assert _in_thread(lambda: _sections(path), path) == []
    path.unlink()
    path.write_text("# T\n## One\ntext\n## Two\n", encoding="utf-8")
    assert _sections(path) == ["One", "Two"]


def test_claim_show_of_a_fifo_claim_file_says_it_cannot_be_read(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    shown = _bsi(brain, "claim", "show", holder)
    assert shown.returncode == 0 and "scope: docs/" in shown.stdout, shown
    _fifo(claim_file(brain, holder))
    done = _bsi(brain, "claim", "show", holder)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done
    assert done.returncode == 0, done
    assert f"# claims/{holder}.yml" in done.stdout
    assert f"cannot read claims/{holder}.yml" in done.stdout and "regular file" in done.stdout


def test_claim_show_of_a_deleted_claim_file_says_it_cannot_be_read(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    claim_file(brain, holder).unlink()  # HEAD still holds it: the claim reads as HEAD's copy
    done = _bsi(brain, "claim", "show", holder)
    assert done.returncode == 0 and "internal error" not in done.stderr, done
    assert f"cannot read claims/{holder}.yml" in done.stdout


def test_a_fifo_in_place_of_a_claim_a_commit_ended_is_not_waited_on(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    ok(run_bsi("claim", "close", holder, "--status", "ok", brain=brain))
    path = claim_file(brain, holder)
    oid = subprocess.run(["git", "rev-parse", f"HEAD:claims/{path.name}"], cwd=brain, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert not live_in_work_tree(brain, path.name, oid, UTC)  # the work tree holds HEAD's terminal copy
    _fifo(path)
    # a FIFO there does not read: like an unreadable claim file, it may hold what it holds (fail closed)
    assert _in_thread(lambda: work_tree_bytes(brain, f"claims/{path.name}"), path) == b""
    assert _in_thread(lambda: live_in_work_tree(brain, path.name, oid, UTC), path)
    path.unlink()
    assert work_tree_bytes(brain, f"claims/{path.name}") is None  # deleted: holds nothing
    path.mkdir()
    assert work_tree_bytes(brain, f"claims/{path.name}") is None  # a folder: holds nothing


AGENT = "11111111-2222-4333-8444-555555555555"


def test_an_open_whose_binding_cannot_be_recorded_commits_no_claim(brain: Path) -> None:
    """`.brain/agents/.lock` a FIFO: `claim open --agent-session` and the MCP `claim_open` refuse (65) before
    anything is committed. Before, the claim was committed, then its binding failed and the refusal said "nothing
    was written": an orphan claim blocked its scope, with no session bound to work in it."""
    import asyncio

    from mcp.client.client import Client

    from brain_tui.mcp.server import build_server
    from brain_tui.mcp.tools import Session

    (brain / ".brain" / "agents").mkdir(parents=True, exist_ok=True)
    _fifo(brain / ".brain" / "agents" / ".lock")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=brain, capture_output=True, text=True).stdout
    refused = run_bsi("claim", "open", "--scope", "docs/", "--agent-session", AGENT, brain=brain)
    assert refused.code == 65 and ".brain/agents/.lock: it is no regular file" in refused.err, refused

    async def main() -> Any:
        session = Session(brain, now=NOW, environ={**clean_env(), "CLAUDE_CODE_SESSION_ID": AGENT})
        async with Client(build_server(session)) as client:
            return await client.call_tool("claim_open", {"scope": ["src/"], "story": "x"})

    result = asyncio.run(main())
    assert result.is_error and result.structured_content["exit"] == 65, result.structured_content
    assert not list((brain / "claims").glob("sess-*.yml"))
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=brain, capture_output=True, text=True).stdout == head


def _socket(path: Path) -> None:
    """A listening Unix socket at `path` (bound by its short relative name: a socket's path is bounded)."""
    import socket

    path.unlink(missing_ok=True)
    here = Path.cwd()
    os.chdir(path.parent)
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(path.name)
    finally:
        os.chdir(here)


def _git(brain: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=brain, capture_output=True, text=True, check=True).stdout


WRITES = [("claim", "close", "{id}", "--status", "ok"), ("claim", "renew", "{id}"), ("gate", "pause", "{id}", "x"),
          ("gate", "request", "{id}", "ok?")]


@pytest.mark.parametrize("spoil", [_fifo, _socket], ids=["fifo", "socket"])
@pytest.mark.parametrize("command", WRITES, ids=[" ".join(c[:2]) for c in WRITES])
def test_a_write_to_a_committed_claim_whose_file_became_a_fifo_is_refused(
        brain: Path, spoil: Callable[[Path], None], command: tuple[str, ...]) -> None:
    """A FIFO (or socket) where a committed claim file should be is no deleted file: a write on the claim is
    refused (65, one line naming it), the FIFO and git stay as they were, and the claim still holds its scope.
    Before, the write edited HEAD's copy and put a regular file in place of the FIFO, as for a deleted file."""
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    path = claim_file(brain, holder)
    spoil(path)
    head, status = _git(brain, "rev-parse", "HEAD"), _git(brain, "status", "--porcelain")
    done = _bsi(brain, *(arg.format(id=holder) for arg in command))
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done
    assert done.returncode == 65, done
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"claims/{holder}.yml" in done.stderr and "no regular file" in done.stderr, done.stderr
    assert not path.is_file() and (path.is_fifo() or path.is_socket())
    assert (_git(brain, "rev-parse", "HEAD"), _git(brain, "status", "--porcelain")) == (head, status)
    assert _bsi(brain, "check-scope", "docs/x.md").returncode == 10  # the claim still holds its scope (HEAD's)
    listed = _bsi(brain, "claim", "list")
    assert listed.returncode == 0 and holder in listed.stdout, listed


def test_a_write_to_a_committed_claim_whose_file_was_deleted_edits_heads_copy(brain: Path) -> None:
    """A deleted work-tree file keeps its way: the write edits HEAD's copy and writes it back."""
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    path = claim_file(brain, holder)
    path.unlink()
    done = _bsi(brain, "claim", "close", holder, "--status", "ok")
    assert done.returncode == 0, done
    assert path.is_file() and "status: closed" in path.read_text(encoding="utf-8")
    assert _git(brain, "status", "--porcelain", "claims") == ""
