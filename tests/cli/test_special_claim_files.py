"""A FIFO, a device or a socket named like a claim file in ``claims/`` is reported as a link is: a corrupt row that,
never read (never waited on, never opened), holds the whole brain (SPEC 22: fails closed). Before, the scan skipped it
without a word: an uncommitted claim whose file became a FIFO held nothing, and no reader showed it.

A committed claim whose work-tree file became a FIFO or a link reads as a link of a committed claim always has: the
corrupt row holds the whole brain, and HEAD's copy of the claim still holds its scope (flagged ``in-head``). A write
on that claim (close, renew, a gate) is refused (65, one line naming the file), nothing written, the file untouched.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules.write_request import WriteSession
from brain_tui.core.sessions import hook_index
from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.cli.test_fifo_brain_files import WAIT, _in_thread, _socket
from tests.conftest import claim_file
from tests.hooks.test_pre_tool_use import AGENT, event

REASON = "not a regular file (a FIFO, a device or a socket)"


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _device(path: Path) -> None:
    """A character device like /dev/null (skipped where this process may not make one)."""
    path.unlink(missing_ok=True)
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"no device can be made here: {exc}")


def _link(path: Path) -> None:
    data = path.read_bytes()
    target = path.parent.parent / f"{path.name}.target"
    target.write_bytes(data)
    path.unlink()
    path.symlink_to(target)


SPECIAL = [_fifo, _socket, _device]
SPECIAL_IDS = ["fifo", "socket", "device"]


def _bsi(brain: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """One `bsi` call in its own process: a blocked open would be cut off by the time limit, not hang the suite."""
    done = subprocess.run(bsi_command(*args, brain=brain, now=NOW), capture_output=True, text=True, timeout=WAIT,
                          env=clean_env(), cwd=brain, check=False)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done
    return done


def _git(brain: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=brain, capture_output=True, text=True, check=True).stdout


def _listed(brain: Path, *args: str) -> dict[str, Any]:
    done = _bsi(brain, "--json", "claim", "list", *args)
    assert done.returncode == 0, done
    listed: dict[str, Any] = json.loads(done.stdout)
    return listed


@pytest.mark.parametrize("spoil", SPECIAL, ids=SPECIAL_IDS)
def test_an_uncommitted_claim_whose_file_became_special_holds_the_whole_brain(
        brain: Path, spoil: Callable[[Path], None]) -> None:
    holder = ok(run_bsi("--no-commit", "claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    assert _bsi(brain, "check-scope", "docs/x.md").returncode == 10
    assert _bsi(brain, "check-scope", "src/y.py").returncode == 0
    path = claim_file(brain, holder)
    spoil(path)
    assert _bsi(brain, "check-scope", "docs/x.md").returncode == 10  # before: 0, the claim gone without a word
    assert _bsi(brain, "check-scope", "src/y.py").returncode == 10  # unread, it may hold anything
    for args in ((), ("--all",)):  # the closed set's live names, and a read of every file
        listed = _listed(brain, *args)
        assert [c["sess_id"] for c in listed["claims"]] == []
        rows = [(row["path"], row["reason"]) for row in listed["corrupt"]]
        assert rows == [(f"claims/{holder}.yml", REASON)], listed
    refused = _bsi(brain, "claim", "open", "--scope", "src/", "--slug", "bbbb")
    assert refused.returncode == 10, refused
    assert f"claims/{holder}.yml" in refused.stdout + refused.stderr
    said = _bsi(brain, "claim", "list").stderr
    assert f"corrupt: claims/{holder}.yml line 0: {REASON}; until repaired it holds *" in said, said
    assert stat.S_IFMT(path.lstat().st_mode) not in (stat.S_IFREG, stat.S_IFLNK)  # never written over


@pytest.mark.parametrize("spoil", [_fifo, _link], ids=["fifo", "link"])
def test_a_committed_claim_whose_file_became_special_reads_as_a_link_of_a_committed_claim(
        brain: Path, spoil: Callable[[Path], None]) -> None:
    """The corrupt row holds the whole brain (it is not read), HEAD's copy still holds its own scope: a FIFO and a
    link are one case."""
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    spoil(claim_file(brain, holder))
    listed = _listed(brain)
    assert [(c["sess_id"], "in-head" in c.get("flags", [])) for c in listed["claims"]] == [(holder, True)], listed
    assert [row["path"] for row in listed["corrupt"]] == [f"claims/{holder}.yml"]
    assert _bsi(brain, "check-scope", "docs/x.md").returncode == 10
    assert _bsi(brain, "check-scope", "src/y.py").returncode == 10


def test_an_unbound_write_in_a_fifo_claims_scope_is_refused(brain: Path) -> None:
    """The hook's decision and its index shadow read the same scan: the FIFO's row is held, never waited on."""
    holder = ok(run_bsi("--no-commit", "claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    session = WriteSession(agent_session="someone", cwd=str(brain))
    assert not Brain(brain, now=NOW).decide_write("docs/x.md", session).allowed
    assert Brain(brain, now=NOW).decide_write("src/y.py", session).allowed
    path = claim_file(brain, holder)
    _fifo(path)
    decided = _in_thread(lambda: Brain(brain, now=NOW).decide_write("docs/x.md", session), path)
    assert not decided.allowed, decided
    assert not _in_thread(lambda: Brain(brain, now=NOW).decide_write("src/y.py", session), path).allowed
    # the shadow the hook's fast path reads (none kept while it is racy, as here): it never vouches beside the row
    index = hook_index.load(brain)
    assert index is None or f"claims/{holder}.yml" in index["corrupt"], index
    snapshot = _in_thread(lambda: Brain(brain, now=NOW).snapshot(), path)  # the cockpit's read of every file
    assert [bad.path for bad in snapshot.corrupt] == [f"claims/{holder}.yml"]
    assert path.is_fifo()


def _hook(brain: Path, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """`bsi hook pre-tool-use` in its own process, cut off by the time limit were it to wait on the FIFO."""
    done = subprocess.run(bsi_command("hook", "pre-tool-use", brain=brain, now=NOW), capture_output=True, text=True,
                          timeout=WAIT, env=clean_env(), cwd=brain, check=False, input=json.dumps(payload))
    assert "Traceback" not in done.stderr and done.returncode in (0, 2), done
    return done


def test_the_hook_and_its_index_shortcut_never_let_a_write_past_a_fifo_claim(brain: Path) -> None:
    holder = ok(run_bsi("--no-commit", "claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    mine = ok(run_bsi("claim", "open", "--scope", "shared/", "--agent-session", AGENT, "--slug", "mine",
                      brain=brain))
    assert _hook(brain, event(brain, "Edit", str(brain / "shared" / "x.md"))).returncode == 0
    _fifo(claim_file(brain, holder))
    for _twice in range(2):  # the second run may read the hook index the first one wrote
        assert _hook(brain, event(brain, "Edit", str(brain / "shared" / "x.md"))).returncode == 2
        denied = _hook(brain, event(brain, "Write", str(brain / "docs" / "x.md"), session="nobody"))
        assert denied.returncode == 2 and holder in denied.stdout and "corrupt" in denied.stdout, denied
    b = Brain(brain, now=NOW, commit=False)
    index = hook_index.build(brain, b.snapshot(only_statuses=BLOCKING_STATUSES), b.config)
    assert not hook_index.may_write(index, mine, "shared/x.md", b.now().timestamp())
    assert not hook_index.unclaimed_free(index, "notes/x.md")


def test_a_folder_named_like_a_claim_file_is_still_no_claim(brain: Path) -> None:
    (brain / "claims" / "sess-20261129-0900-dir.yml").mkdir()
    assert _listed(brain)["corrupt"] == [{"path": "claims/sess-20261129-0900-dir.yml", "line": 0,
                                          "reason": "a folder, not a file: move it away"}]  # shown, holds nothing
    assert _bsi(brain, "check-scope", "src/y.py").returncode == 0


WRITES = [("claim", "close", "{id}", "--status", "ok"), ("claim", "renew", "{id}"), ("gate", "pause", "{id}", "x"),
          ("gate", "request", "{id}", "ok?")]


@pytest.mark.parametrize("command", WRITES, ids=[" ".join(c[:2]) for c in WRITES])
def test_a_write_to_a_committed_claim_whose_file_became_a_link_is_refused(
        brain: Path, command: tuple[str, ...]) -> None:
    """Before, the write put HEAD's copy, edited, in place of the link (as for a deleted file)."""
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    path = claim_file(brain, holder)
    _link(path)
    target = os.readlink(path)
    target_bytes = Path(target).read_bytes()
    head, status = _git(brain, "rev-parse", "HEAD"), _git(brain, "status", "--porcelain")
    done = _bsi(brain, *(arg.format(id=holder) for arg in command))
    assert done.returncode == 65, done
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"claims/{holder}.yml" in done.stderr and "a symbolic link" in done.stderr, done.stderr
    assert path.is_symlink() and os.readlink(path) == target and Path(target).read_bytes() == target_bytes
    assert (_git(brain, "rev-parse", "HEAD"), _git(brain, "status", "--porcelain")) == (head, status)
    assert _bsi(brain, "check-scope", "docs/x.md").returncode == 10


def test_a_folder_in_the_way_of_a_new_claim_file_is_refused_once_and_left_in_place(brain: Path) -> None:
    """`claim open --slug S` where a folder already holds that claim file's name: the folder is a corrupt row, so
    its name is taken, as a corrupt claim file's is (the claim opens under another ID), nothing is written into
    it, and the folder stays (it is not the write's to remove); the next write is not refused in its name (a
    roll-back once unlinked the folder, failed, and left its journal behind)."""
    folder = brain / "claims" / "sess-20261129-1000-foo.yml"
    folder.mkdir()
    opened = run_bsi("claim", "open", "--scope", "src/", "--slug", "foo", brain=brain)
    assert opened.code == 0 and opened.out.strip() != "sess-20261129-1000-foo", opened
    assert folder.is_dir() and not any(folder.iterdir()) and not (brain / ".brain" / "journal").exists()
    ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "bar", brain=brain))
    assert subprocess.run(["git", "status", "--porcelain"], cwd=brain, capture_output=True, text=True,
                          check=True).stdout == ""
