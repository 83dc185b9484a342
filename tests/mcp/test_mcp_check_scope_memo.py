"""`check_scope` through `bsi mcp` answers from the blocking claims kept in memory, and never misses a change.

A warm call reads no claim file and stats only the live ones; an in-place edit
of the same size with its mtime put back (the racy case), a new claim file, a
deleted one and a closed claim rewritten in place are all seen by the next call.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from brain_tui.core.records import file_events
from brain_tui.core.rules import blocking_claims
from brain_tui.core.rules.blocking_claims import BlockingClaims
from brain_tui.mcp import tools
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, bsi_command, clean_env

OPENED = "2026-11-29T09:00:00+00:00"  # an hour before the tests' NOW


def write_claim(brain: Path, sess_id: str, scope: str, status: str = "open") -> Path:
    """A claim file as the product writes it (atomic: a new name in claims/, then renamed)."""
    path = brain / "claims" / f"{sess_id}.yml"
    tmp = path.with_name(f"tmp-{sess_id}")
    tmp.write_text(f"sess_id: {sess_id}\ntype: solo\ninstance: brain@test\nscope: {scope}\nstory_angle: t\n"
                   f"status: {status}\nopened_at: '{OPENED}'\nttl: 8h\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def holders(s: Session, scope: str) -> list[str]:
    """The IDs `check_scope` names for `scope`."""
    return [c["sess_id"] for c in tools.check_scope(s, [scope])["conflicts"]]


@pytest.fixture(params=["feed", "feed-on-nfs", "stat-keys"])
def session(request: pytest.FixtureRequest, brain: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Session]:
    """The server's session; "stat-keys": without the change feed (stat keys and the racy rule only, the
    racy window shrunk so that the memo settles within a test: each edit below then waits past a tick);
    "feed-on-nfs": the feed on a file system another machine may write (the live files are statted too)."""
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    if request.param == "feed-on-nfs":
        monkeypatch.setattr(file_events, "fs_type", lambda _folder: "nfs4")
    if request.param == "stat-keys":
        monkeypatch.setattr(blocking_claims, "RACY_NS", 0)
        s.brain.__dict__["blocking"] = BlockingClaims(s.brain, watch=False)
    yield s
    s.brain.blocking.close()


def _settle(s: Session) -> None:
    """Two calls (the first builds the memo), then past one timestamp tick when there is no change feed."""
    holders(s, "nothing/")
    holders(s, "nothing/")
    if s.brain.blocking._events is None:
        time.sleep(0.05)


def test_warm_check_reads_no_claim_file_and_stats_only_the_live_ones(session: Session, brain: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    live = [write_claim(brain, f"sess-20260101-0900-liv{i}", f"live{i}/") for i in range(3)]
    closed = [write_claim(brain, f"sess-20260101-0900-clo{i:x}", f"old{i}/", "closed") for i in range(12)]
    _settle(session)
    statted: list[str] = []
    scanned: list[str] = []
    real_stat, real_scandir = os.stat, os.scandir

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        statted.append(os.fsdecode(path))
        return real_stat(path, *args, **kwargs)

    def scandir(path: Any = ".") -> Any:
        scanned.append(os.fsdecode(path))
        return real_scandir(path)

    def no_snapshot(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a warm check read the brain again")

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(session.brain.store, "snapshot", no_snapshot)
    assert holders(session, "live1/x.md") == ["sess-20260101-0900-liv1"]
    assert holders(session, "old3/") == []
    names = {Path(p).name for p in statted}
    assert not scanned
    assert not names & {p.name for p in closed}
    events = session.brain.blocking._events
    head = session.brain.blocking._head_keys  # HEAD's commit is decided by HEAD and the branch's loose ref
    assert [Path(p).name for p in head] == ["HEAD", (brain / ".git" / "HEAD").read_text().split("/")[-1].strip()]
    assert {Path(p).name for p in head} <= names
    if events is not None and events.local:  # every change here passes through the feed: no file statted
        assert not names & {p.name for p in live}
        assert session.brain.blocking.counters.stats_last == 4  # claims/, the index, HEAD and the branch's ref
    else:
        assert {p.name for p in live} <= names
        # the files, those four, and the brain folder (the scopes' way: a link or a folder made there)
        assert session.brain.blocking.counters.stats_last == len(live) + 5


def test_same_size_edit_with_mtime_put_back_is_seen(session: Session, brain: Path) -> None:
    path = write_claim(brain, "sess-20260101-0900-racy", "aaaa/")
    _settle(session)
    assert holders(session, "aaaa/") == ["sess-20260101-0900-racy"]
    before = path.stat()
    data = path.read_bytes()
    with open(path, "r+b") as handle:  # in place: same inode, same size
        handle.write(data.replace(b"scope: aaaa/", b"scope: bbbb/"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_ino, after.st_mtime_ns) == (before.st_size, before.st_ino, before.st_mtime_ns)
    assert holders(session, "bbbb/") == ["sess-20260101-0900-racy"]
    assert holders(session, "aaaa/") == []


@pytest.mark.parametrize("change", ["new", "deleted", "closed"])
def test_added_removed_or_closed_claim_files_are_seen(session: Session, brain: Path, change: str) -> None:
    path = write_claim(brain, "sess-20260101-0900-once", "shared/")
    _settle(session)
    assert holders(session, "shared/f.md") == ["sess-20260101-0900-once"]
    if change == "new":
        write_claim(brain, "sess-20260101-0901-twic", "other/")
        assert holders(session, "other/") == ["sess-20260101-0901-twic"]
    elif change == "deleted":
        path.unlink()
        assert holders(session, "shared/f.md") == []
    else:
        write_claim(brain, "sess-20260101-0900-once", "shared/", "closed")
        assert holders(session, "shared/f.md") == []
    assert session.brain.blocking.counters.hits >= 1


def test_closed_claim_rewritten_in_place_is_seen_through_the_feed(brain: Path) -> None:
    """A closed claim's file is not statted on a warm call; the change feed still sees it edited in place
    (here into conflict markers: an unreadable claim file blocks, SPEC 22)."""
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    path = write_claim(brain, "sess-20260101-0900-done", "kept/", "closed")
    _settle(s)
    if s.brain.blocking._events is None or not s.brain.blocking._events.available:
        pytest.skip("no inotify here")
    assert holders(s, "kept/") == []
    with open(path, "ab") as handle:
        handle.write(b"<<<<<<< HEAD\nstatus: open\n=======\n>>>>>>> theirs\n")
    assert holders(s, "kept/") == ["sess-20260101-0900-done"]


def test_stdio_check_scope_sees_a_claim_written_by_another_process(brain: Path) -> None:
    command, *args = bsi_command("mcp", brain=brain, now=NOW)
    params = StdioServerParameters(command=command, args=args, env=clean_env(), cwd=str(brain))

    async def main(between: Callable[[], None]) -> Any:
        async with Client(params) as client:
            opened = await client.call_tool("claim_open", {"scope": ["lib/"], "story": "stdio"})
            first = await client.call_tool("check_scope", {"scopes": ["lib/a.py"]})
            again = await client.call_tool("check_scope", {"scopes": ["docs/"]})
            between()
            late = await client.call_tool("check_scope", {"scopes": ["docs/"]})
            return opened, first, again, late

    opened, first, again, late = asyncio.run(main(lambda: write_claim(brain, "sess-20260101-0900-late", "docs/")))
    sess = opened.structured_content["sess_id"]
    assert [c["sess_id"] for c in first.structured_content["conflicts"]] == [sess]
    assert again.structured_content["conflicts"] == []
    assert [c["sess_id"] for c in late.structured_content["conflicts"]] == ["sess-20260101-0900-late"]


def test_claims_folder_made_after_the_first_check_is_watched(brain: Path) -> None:
    """A brain whose claims/ appears after the server's first check: the feed then watches it too, so a closed
    claim's file edited in place is still seen."""
    shutil.rmtree(brain / "claims")
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    assert holders(s, "kept/") == []
    (brain / "claims").mkdir()
    path = write_claim(brain, "sess-20260101-0900-done", "kept/", "closed")
    _settle(s)
    if s.brain.blocking._events is None or not s.brain.blocking._events.local:
        pytest.skip("no inotify on a local file system here")
    assert holders(s, "kept/") == []
    with open(path, "ab") as handle:
        handle.write(b"<<<<<<< HEAD\nstatus: open\n=======\n>>>>>>> theirs\n")
    assert holders(s, "kept/") == ["sess-20260101-0900-done"]


def test_delegation_from_memory_exempts_the_parent_chain(session: Session, brain: Path) -> None:
    parent = "sess-20260101-0900-pare"
    write_claim(brain, parent, "pp/")
    session.opened.append(parent)  # the server's own claim: only its holder delegates under it (SPEC 21.4)
    _settle(session)
    for _ in range(2):
        assert holders(session, "pp/x.md") == [parent]
        assert tools.check_scope(session, ["pp/x.md"], parent=parent)["conflicts"] == []
    assert session.brain.blocking.counters.hits >= 3


def test_memory_follows_the_clock_a_parent_expires_without_a_file_change(session: Session, brain: Path) -> None:
    """The claims stay in memory, the time does not: once the parent's TTL is past, it delegates no more."""
    parent = "sess-20260101-0900-expi"
    write_claim(brain, parent, "ex/")
    session.opened.append(parent)
    _settle(session)
    assert tools.check_scope(session, ["ex/x.md"], parent=parent)["conflicts"] == []
    later = session.brain.now() + timedelta(hours=9)
    session.brain.clock = lambda: later
    assert [c["sess_id"] for c in tools.check_scope(session, ["ex/x.md"], parent=parent)["conflicts"]] == [parent]
    assert session.brain.blocking.counters.reads == 1


def test_without_the_feed_a_fresh_file_never_settles_the_memo(brain: Path) -> None:
    """Stat keys alone: a claim file changed less than 2 s before the read cannot vouch for its content, so
    each call reads again, and a same-size edit in the same tick is still seen."""
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    s.brain.__dict__["blocking"] = BlockingClaims(s.brain, watch=False)
    holders(s, "nothing/")  # the core loaded: the calls below follow the write by milliseconds
    path = write_claim(brain, "sess-20260101-0900-tick", "cccc/")
    reads = s.brain.blocking.counters.reads
    assert holders(s, "cccc/") == ["sess-20260101-0900-tick"]
    assert holders(s, "cccc/") == ["sess-20260101-0900-tick"]  # nothing changed, yet read again
    assert s.brain.blocking.counters.reads == reads + 2
    path.write_bytes(path.read_bytes().replace(b"scope: cccc/", b"scope: dddd/"))
    assert holders(s, "dddd/") == ["sess-20260101-0900-tick"]
