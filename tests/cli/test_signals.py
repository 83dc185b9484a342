"""`bsi signal send|list|ack|archive` (SPEC 7, 19)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run, commits_since, head, last_commit, ok, run_bsi
from tests.conftest import signal_docs, tree_bytes

Bsi = Callable[..., Run]
SIG_ID = re.compile(r"^sig-20261129-100000-[a-z0-9]{4}$")


def send(brain: Path, *args: str, now: str | None = None) -> str:
    """Send a signal; stdout must be the new ID alone."""
    run = run_bsi("signal", "send", *args, brain=brain, **({"now": now} if now else {}))
    assert run.code == 0, run.err
    assert run.out.count("\n") == 1, repr(run.out)
    return run.out.strip()


def test_send_prints_the_id_alone_and_writes_one_file(brain: Path, bsi: Bsi) -> None:
    before = head(brain)
    sig = send(brain, "--to", "sess-20261129-0900-pilo", "--type", "checkpoint", "--from", "sess-20261129-0930-bsi1",
               "--scope", "brain-engine/", 'task — files: "a.py" # done')
    assert SIG_ID.match(sig)
    (doc,) = signal_docs(brain)
    assert doc == {"sig_id": sig, "from": "sess-20261129-0930-bsi1", "to": "sess-20261129-0900-pilo",
                   "type": "CHECKPOINT", "scope": "brain-engine/", "payload": 'task — files: "a.py" # done',
                   "state": "pending", "created_at": "2026-11-29T10:00:00+00:00"}
    assert commits_since(brain, before) == [f"bsi: signal {sig} pending"]
    assert last_commit(brain)[1] == ["BRAIN-INDEX.md", f"signals/{sig}.yml"]
    assert sig in (brain / "BRAIN-INDEX.md").read_text()
    as_json = bsi("--json", "signal", "send", "--to", "x@y", "--type", "INFO", "other payload", brain=brain)
    assert as_json.code == 0 and SIG_ID.match(as_json.json()["sig_id"])


def test_a_pending_duplicate_is_not_written_twice(brain: Path, bsi: Bsi) -> None:
    args = ("--to", "prod@laptop", "--type", "INFO", "--from", "prod@desktop", "same words")
    first = send(brain, *args)
    files, before = tree_bytes(brain), head(brain)
    again = bsi("signal", "send", *args, brain=brain)
    assert again.code == 0 and again.out == "" and "already pending" in again.err
    assert tree_bytes(brain) == files and head(brain) == before
    assert send(brain, "--to", "prod@laptop", "--type", "INFO", "--from", "prod@desktop", "other words") != first
    ok(bsi("signal", "ack", first, brain=brain))
    assert send(brain, *args) != first  # the first one is no longer pending


def test_list_pending_and_addressing(brain: Path, bsi: Bsi) -> None:
    sess = ok(bsi("claim", "open", "--scope", "a/", "--instance", "prod@desktop", "--slug", "me", brain=brain))
    direct = send(brain, "--to", sess, "--type", "INFO", "direct")
    at_machine = send(brain, "--to", f"{sess}@desktop", "--type", "INFO", "at machine")
    broadcast = send(brain, "--to", "prod@desktop", "--type", "INFO", "broadcast")
    elsewhere = send(brain, "--to", "prod@laptop", "--type", "INFO", "other machine")
    other = send(brain, "--to", "sess-20261129-0900-else", "--type", "INFO", "someone else")
    ok(bsi("signal", "ack", direct, brain=brain))
    mine = bsi("--json", "signal", "list", "--to", sess, brain=brain).json()
    assert set(mine) == {"signals"}
    assert {s["sig_id"] for s in mine["signals"]} == {direct, at_machine, broadcast}
    pending = bsi("--json", "signal", "list", "--pending", "--to", sess, brain=brain).json()["signals"]
    assert {s["sig_id"] for s in pending} == {at_machine, broadcast}
    assert all(s["state"] == "pending" for s in pending)
    everything = bsi("--json", "signal", "list", brain=brain).json()["signals"]
    assert {s["sig_id"] for s in everything} == {direct, at_machine, broadcast, elsewhere, other}
    assert {"sig_id", "from", "to", "type", "payload", "state"} <= set(everything[0])
    text = bsi("signal", "list", "--pending", brain=brain)
    assert text.code == 0 and broadcast in text.out and direct not in text.out


def test_ack_delivers_and_archive_waits_24_hours(brain: Path, bsi: Bsi) -> None:
    sig = send(brain, "--to", "prod@laptop", "--type", "HANDOFF", "take over")
    before = head(brain)
    ok(bsi("signal", "ack", sig, "--by", "alice@vps", brain=brain, now="2026-11-29T11:00:00Z"))
    (doc,) = signal_docs(brain)
    assert (doc["state"], doc["delivered_at"], doc["delivered_by"]) == ("delivered", "2026-11-29T11:00:00+00:00",
                                                                         "alice@vps")
    assert commits_since(brain, before) == [f"bsi: signal {sig} delivered"]
    files = tree_bytes(brain)
    again = bsi("signal", "ack", sig, brain=brain)
    assert again.code == 0 and "already" in again.err and tree_bytes(brain) == files
    early = bsi("--json", "signal", "archive", brain=brain, now="2026-11-30T10:59:00Z")
    assert early.json() == {"archived": []} and tree_bytes(brain) == files
    run = bsi("--json", "signal", "archive", brain=brain, now="2026-11-30T11:00:00Z")
    assert run.json() == {"archived": [sig]}
    (doc,) = signal_docs(brain)
    assert doc["state"] == "archived" and doc["archived_at"] == "2026-11-30T11:00:00+00:00"
    assert last_commit(brain)[0] == f"bsi: signal {sig} archived"
    assert bsi("--json", "signal", "list", brain=brain).json()["signals"] == []
    assert [s["sig_id"] for s in bsi("--json", "signal", "list", "--all", brain=brain).json()["signals"]] == [sig]


def test_the_watchdog_archives_too(brain: Path, bsi: Bsi) -> None:
    sig = send(brain, "--to", "prod@laptop", "--type", "INFO", "fyi")
    ok(bsi("signal", "ack", sig, brain=brain))
    run = bsi("--json", "watchdog", brain=brain, now="2026-11-30T10:00:00Z")
    assert run.json()["archived"] == [sig]
    assert signal_docs(brain)[0]["state"] == "archived"


def test_a_relative_destination_from_an_unknown_sender_is_66(brain: Path, bsi: Bsi) -> None:
    """How `pilote` and `parent` resolve through the tree: tests/unit/test_claim_rules.py."""
    unknown = bsi("signal", "send", "--from", "sess-20261129-0000-ghost", "--to", "pilote", "--type", "INFO", "x",
                  brain=brain)
    assert unknown.code == 66


def test_bad_input(brain: Path, bsi: Bsi) -> None:
    files = tree_bytes(brain)
    assert bsi("signal", "send", "--to", "x", "--type", "not a type", "p", brain=brain).code == 65
    assert bsi("signal", "send", "--to", " ", "--type", "INFO", "p", brain=brain).code == 65
    assert bsi("signal", "send", "--type", "INFO", "p", brain=brain).code == 64
    assert bsi("signal", "send", "--to", "x", "--type", "INFO", "--from", "", "p", brain=brain).code == 65
    assert bsi("signal", "ack", "sig-20261129-000000-none", brain=brain).code == 66
    assert bsi("signal", "ack", "../x", brain=brain).code == 65
    assert bsi("signal", "ack", "sig-a/b", brain=brain).code == 65
    assert tree_bytes(brain) == files


def test_list_to_a_blank_destination_is_65_not_every_signal(brain: Path, bsi: Bsi) -> None:
    """`signal list --to ''` (an unset variable in a script) is bad input, as `send --to ''` is: a session asking
    for its own signals is never handed every other session's."""
    send(brain, "--to", "sess-20261129-0900-other", "--type", "INFO", "not yours")
    for blank in ("", "  "):
        run = bsi("signal", "list", "--to", blank, brain=brain)
        assert run.code == 65 and run.out == "" and run.err.count("\n") == 1, run


def test_any_uppercase_type_is_kept(brain: Path, bsi: Bsi) -> None:
    sig = send(brain, "--to", "x@y", "--type", "DEPLOY_DONE", "v2 is live")
    listed = bsi("--json", "signal", "list", brain=brain).json()["signals"]
    assert [(s["sig_id"], s["type"]) for s in listed] == [(sig, "DEPLOY_DONE")]


def test_a_sender_is_an_id_an_instance_or_a_human(brain: Path, bsi: Bsi) -> None:
    """SPEC 7: `from` is a session ID, an instance or `human:NAME`; a malformed one on the command line is 65
    (SPEC 13), as a malformed `--to` is. A human's name may hold spaces (`human:Alice <a@x.org>`)."""
    files = tree_bytes(brain)
    for sender in ("sess-a/b", "sess-../../etc", "a b", "prod@desk top", "sess-x@m/c", "human:", "@vm", "a/b"):
        run = bsi("signal", "send", "--to", "x@y", "--type", "INFO", "--from", sender, "p", brain=brain)
        assert run.code == 65 and run.out == "" and run.err.count("\n") == 1 and "sender" in run.err, (sender, run)
    assert tree_bytes(brain) == files
    for sender in ("sess-20261129-0930-bsi1", "prod@desktop", "sess-20261129-0930-bsi1@desktop", "human:alice",
                   "human:Alice <a@x.org>", "Mon cerveau été@desktop"):
        send(brain, "--to", "x@y", "--type", "INFO", "--from", sender, f"from {sender}")


def test_a_bare_word_is_no_sender(brain: Path, bsi: Bsi) -> None:
    """SPEC 4 and 7: an instance is `brain_name@machine`; a bare word (`bogus`, `laptop`, `pilote`) is neither a
    session ID, an instance nor `human:NAME`, so no one could answer it: 65, nothing written."""
    files = tree_bytes(brain)
    for sender in ("bogus", "laptop", "pilote", "watchdog"):
        run = bsi("signal", "send", "--to", "x@y", "--type", "INFO", "--from", sender, "p", brain=brain)
        assert run.code == 65 and run.out == "" and "sender" in run.err, (sender, run)
    assert tree_bytes(brain) == files
