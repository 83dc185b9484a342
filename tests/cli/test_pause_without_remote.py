"""A human's pause waits for no remote and no config (`write_path.mutate`): in a brain that syncs, a remote that cannot
take it now (unreachable, missing) leaves it committed here and pending, pushed by the next sync; a brain-compose.yml
that does not parse leaves it committed here only. The pause is said to be not pushed; every other write still
refuses as before (69, 65).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_git_failures import bsi
from tests.cli.test_pause_while_git_stalled import _claim_status
from tests.hooks.test_pre_tool_use import AGENT, assert_denied, event, hook
from tests.reliability.harness import git, make_remote


def _auto(clone: Path) -> None:
    (clone / "brain-compose.yml").write_text("sync: auto\n", encoding="utf-8")
    git(clone, "add", "brain-compose.yml")
    git(clone, "commit", "-q", "-m", "sync auto")
    git(clone, "push", "-q", "origin", "main")


def test_a_pause_in_a_syncing_brain_whose_remote_is_gone_is_committed_here_and_pushed_later(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    _auto(a)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "far", "--agent-session", AGENT).out.strip()
    assert sess.startswith("sess-")
    moved = remote.with_name("remote-away.git")
    remote.rename(moved)  # the network is down

    refused = bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello")
    assert refused.code == 69, refused.err  # any other write still needs the remote
    res = bsi(a, "gate", "pause", sess, "stop")
    assert res.code == 0, res.err
    assert "not pushed" in res.err and "next sync" in res.err and "Traceback" not in res.err
    assert git(a, "log", "-1", "--format=%s").strip() == f"bsi: gate PAUSED {sess}"
    assert _claim_status((a / f"claims/{sess}.yml").read_text()) == "paused"
    assert_denied(hook(a, "pre-tool-use", event(a, "Edit", str(a / "wiki" / "a.md"))), "paused")

    moved.rename(remote)  # back
    synced = bsi(a, "sync")
    assert synced.code == 0, synced.err
    assert bsi(b, "sync").code == 0
    assert json.loads(bsi(b, "--json", "claim", "show", sess).out)["status"] == "paused"


def test_a_pause_in_a_brain_set_to_sync_with_no_remote_is_committed_here(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    _auto(a)
    git(a, "remote", "remove", "origin")
    sess = bsi(a, "--offline", "claim", "open", "--scope", "wiki/", "--slug", "alone").out.strip()
    assert bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello").code == 69
    res = bsi(a, "gate", "pause", sess, "stop")
    assert res.code == 0, res.err
    assert "no git remote 'origin'" in res.err and "not pushed" in res.err
    assert git(a, "log", "-1", "--format=%s").strip() == f"bsi: gate PAUSED {sess}"


def test_a_pause_in_a_brain_whose_config_does_not_parse_is_committed_here_only(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "cfg", "--agent-session", AGENT).out.strip()
    (a / "brain-compose.yml").write_text("sync: [auto\n", encoding="utf-8")  # as a hand or a program may leave it
    refused = bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello")
    assert refused.code == 65, refused.err
    res = bsi(a, "gate", "pause", sess, "stop")
    assert res.code == 0, res.err
    assert "brain-compose.yml" in res.err, res.err
    assert "committed here only: fix the file (every other write is refused until then)" in res.err, res.err
    assert git(a, "log", "-1", "--format=%s").strip() == f"bsi: gate PAUSED {sess}"
    assert bsi(a, "gate", "resume", sess, "go").code == 65  # a lift still waits for the file to be fixed


def test_a_pause_whose_sync_cannot_bring_the_remote_in_is_committed_here(tmp_path: Path) -> None:
    """A file left in the way of what the remote brings (an agent can write one in its scope) stops the fast-forward
    (22) for every synced write; the pause is committed here instead, and said so."""
    _, (a, b) = make_remote(tmp_path, 2)
    _auto(a)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "way", "--agent-session", AGENT).out.strip()
    git(b, "pull", "-q", "--no-rebase", "origin", "main")
    (b / "docs").mkdir()
    (b / "docs" / "new.md").write_text("from b\n", encoding="utf-8")
    git(b, "add", "docs/new.md")
    git(b, "commit", "-q", "-m", "a page")
    git(b, "push", "-q", "origin", "main")
    (a / "docs").mkdir()
    (a / "docs" / "new.md").write_text("in the way\n", encoding="utf-8")
    assert bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello").code == 22
    res = bsi(a, "gate", "pause", sess, "stop")
    assert res.code == 0, res.err
    assert "not pushed" in res.err
    assert git(a, "log", "-1", "--format=%s").strip() == f"bsi: gate PAUSED {sess}"
    assert (a / "docs" / "new.md").read_text() == "in the way\n"  # nothing of the user's was touched


def test_a_pause_whose_push_is_never_answered_is_in_force_here_once_and_exits_0(tmp_path: Path) -> None:
    """The push goes out and no answer comes, nor can the remote be asked whether it landed: the pause is kept as one
    pending local commit (no second one, none taken back) and the brake says so on stderr, exit 0; any other write
    still exits 69 then. The next sync pushes that one commit."""
    remote, (a, b) = make_remote(tmp_path, 2)
    _auto(a)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "mute", "--agent-session", AGENT).out.strip()
    before = git(a, "rev-parse", "HEAD").strip()
    away = remote.with_name("remote-away.git")
    hook = remote / "hooks" / "pre-receive"  # the network drops mid-push: the push hangs, the remote is gone after
    hook.write_text(f'#!/bin/sh\nmv "{remote}" "{away}"\nexec sleep 60\n', encoding="utf-8")
    hook.chmod(0o755)
    res = bsi(a, "gate", "pause", sess, "stop", env={"BSI_NETWORK_TIMEOUT": "2"})
    assert res.code == 0, res.err
    assert "did not answer" in res.err and "next `bsi sync`" in res.err and "Traceback" not in res.err
    assert git(a, "log", "--format=%s", f"{before}..HEAD").split("\n")[:-1] == [f"bsi: gate PAUSED {sess}"]
    assert _claim_status((a / f"claims/{sess}.yml").read_text()) == "paused"
    assert json.loads((a / ".brain" / "sync.json").read_text()).get("pending_since")
    assert bsi(a, "signal", "send", "--to", "pilote", "--type", "INFO", "hello").code == 69

    away.rename(remote)
    hook.unlink()
    assert bsi(a, "sync").code == 0
    assert bsi(b, "sync").code == 0
    assert git(b, "log", "--format=%s", f"{before}..HEAD").split("\n")[:-1] == [f"bsi: gate PAUSED {sess}"]
