"""A long-lived `bsi mcp` sees a claim's scope as a fresh `bsi` does after the brain's folders change under it.

What a claim file's scope holds is read against the brain's files: a symlink
on its way (``alias -> real1``), or ``brain/`` (the whole brain while the brain
has no ``brain`` folder). Retargeting the link or removing the folder changes
what the claim holds without a byte of ``claims/`` moving. A server that kept
the claim as it parsed it at start would answer "free" for a file the claim now
holds, and `claim_open` would grant it a second time (SPEC 5.3, 22).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain_tui.core.errors import ConflictError
from brain_tui.core.rules import blocking_claims
from brain_tui.core.rules.blocking_claims import BlockingClaims
from brain_tui.mcp import tools
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, clean_env, ok, run_bsi


def git(brain: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=brain, check=True, capture_output=True)


@pytest.fixture(params=["feed", "stat-keys"])
def watch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """With the change feed (inotify), or with stat keys and the racy rule only (window shrunk to 0)."""
    if request.param == "stat-keys":
        monkeypatch.setattr(blocking_claims, "RACY_NS", 0)
    return request.param == "feed"


def _session(brain: Path, watch: bool) -> Session:
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    s.brain.__dict__["blocking"] = BlockingClaims(s.brain, watch=watch)
    return s


def holders(s: Session, scope: str) -> list[str]:
    return [c["sess_id"] for c in tools.check_scope(s, [scope])["conflicts"]]


@pytest.fixture
def linked(brain: Path) -> Iterator[Path]:
    """``alias -> real1`` committed, ``real1/a.md`` and ``real2/b.md``."""
    for folder, name in (("real1", "a.md"), ("real2", "b.md")):
        (brain / folder).mkdir()
        (brain / folder / name).write_text("x\n", encoding="utf-8")
    os.symlink("real1", brain / "alias")
    git(brain, "add", "-A")
    git(brain, "commit", "-qm", "files")
    yield brain


@pytest.mark.parametrize("commit", [True, False])
def test_link_retargeted_under_a_running_server_moves_the_claim_with_it(linked: Path, watch: bool,
                                                                        commit: bool) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "alias/", brain=linked)).strip()
    s = _session(linked, watch)
    assert holders(s, "real1/a.md") == [holder]
    assert holders(s, "real2/b.md") == []
    assert holders(s, "real2/b.md") == []  # a warm answer from memory
    os.unlink(linked / "alias")
    os.symlink("real2", linked / "alias")
    if commit:
        git(linked, "add", "-A")
        git(linked, "commit", "-qm", "retarget")
    fresh = run_bsi("--json", "check-scope", "real2/b.md", brain=linked)
    assert fresh.code == 10
    assert holders(s, "real2/b.md") == [holder]
    with pytest.raises(ConflictError):
        tools.claim_open(s, ["real2/b.md"])
    s.brain.blocking.close()


def test_brain_folder_removed_under_a_running_server_makes_brain_slash_global_again(brain: Path,
                                                                                   watch: bool) -> None:
    """A legacy claim on ``brain/`` (SPEC 5.1: the whole brain when the brain has no ``brain`` folder)."""
    (brain / "brain").mkdir()
    (brain / "brain" / "x.md").write_text("x\n", encoding="utf-8")
    holder = "sess-20261129-0900-lega"
    (brain / "claims" / f"{holder}.yml").write_text(
        f"sess_id: {holder}\ntype: solo\ninstance: brain@test\nscope: brain/\nstatus: open\n"
        "opened_at: '2026-11-29T09:00:00+00:00'\nttl: 8h\n", encoding="utf-8")
    git(brain, "add", "-A")
    git(brain, "commit", "-qm", "legacy claim")
    s = _session(brain, watch)
    assert holders(s, "notes.md") == []
    assert holders(s, "notes.md") == []
    shutil.rmtree(brain / "brain")
    assert run_bsi("check-scope", "notes.md", brain=brain).code == 10  # `brain/` is the whole brain now
    assert holders(s, "notes.md") == [holder]
    with pytest.raises(ConflictError):
        tools.claim_open(s, ["notes.md"])
    s.brain.blocking.close()


def test_a_corrupt_claims_hold_moves_with_a_retargeted_link_under_a_running_server(linked: Path,
                                                                                    watch: bool) -> None:
    """A claim file that does not read fails closed on what its bytes name (SPEC 22): that hold is read against
    the brain's links as a claim's scope is."""
    name = "sess-20261129-0900-bad1"
    (linked / "claims" / f"{name}.yml").write_text(
        f"sess_id: {name}\nscope: alias/\nstatus: open\nstory: [unclosed\n", encoding="utf-8")
    git(linked, "add", "-A")
    git(linked, "commit", "-qm", "a claim a bad merge left")
    s = _session(linked, watch)
    assert tools.check_scope(s, ["real1/a.md"])["conflicts"]
    assert not tools.check_scope(s, ["real2/b.md"])["conflicts"]
    assert not tools.check_scope(s, ["real2/b.md"])["conflicts"]  # a warm answer from memory
    os.unlink(linked / "alias")
    os.symlink("real2", linked / "alias")
    assert run_bsi("--json", "check-scope", "real2/b.md", brain=linked).code == 10
    assert tools.check_scope(s, ["real2/b.md"])["conflicts"]
    with pytest.raises(ConflictError):
        tools.claim_open(s, ["real2/b.md"])
    s.brain.blocking.close()


def test_a_claim_whose_status_bsi_does_not_know_moves_with_a_retargeted_link_under_a_running_server(
        linked: Path, watch: bool) -> None:
    """A status the product does not know blocks as an open claim does (`Claim.is_blocking`): its scope is read
    against the brain's links as any blocking claim's is."""
    name = "sess-20261129-0900-odd1"
    (linked / "claims" / f"{name}.yml").write_text(
        f"sess_id: {name}\ntype: solo\ninstance: brain@test\nscope: alias/\nstatus: weird\n"
        "opened_at: '2026-11-29T09:00:00+00:00'\nttl: 8h\n", encoding="utf-8")
    git(linked, "add", "-A")
    git(linked, "commit", "-qm", "a claim a newer tool wrote")
    s = _session(linked, watch)
    assert holders(s, "real1/a.md") == [name]
    assert holders(s, "real2/b.md") == []
    assert holders(s, "real2/b.md") == []  # a warm answer from memory
    os.unlink(linked / "alias")
    os.symlink("real2", linked / "alias")
    assert run_bsi("--json", "check-scope", "real2/b.md", brain=linked).code == 10
    assert holders(s, "real2/b.md") == [name]
    with pytest.raises(ConflictError):
        tools.claim_open(s, ["real2/b.md"])
    s.brain.blocking.close()
