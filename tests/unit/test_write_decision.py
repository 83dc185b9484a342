"""`Brain.decide_write`: the one write decision the hooks and `bsi preflight check` share (SPEC 10, 20.2, 21.3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, CloseRequest, OpenRequest
from brain_tui.core.errors import PreflightRefused
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.write_request import ShellCommand, WriteSession

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


def open_claim(brain: Brain, scope: str, parent: str | None = None, **extra: str) -> str:
    return brain.open_claim(OpenRequest(scope=parse_scope(scope), ttl=timedelta(hours=2), instance="t@test",
                                        parent=parent, **extra))  # type: ignore[arg-type]


def reopen(brain: Brain) -> Brain:
    """The brain read afresh (brain-compose.yml is read when a Brain is made)."""
    return Brain(brain.root, clock=lambda: T0, commit=False, instance="t@test")


def test_a_bound_write_reads_the_brain_once(brain: Brain, monkeypatch: pytest.MonkeyPatch) -> None:
    sess = open_claim(brain, "src/")
    reads: list[object] = []
    real = brain.store.snapshot

    def counted(*args: object, **kwargs: object) -> object:
        reads.append(kwargs.get("only_statuses"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(brain.store, "snapshot", counted)
    decision = brain.decide_write(["src/a.py", "src/b.py"], WriteSession(claims=(sess,)))
    assert decision.allowed and decision.sess_id == sess and decision.file == "src/a.py"
    assert len(reads) == 1 and reads[0] is not None  # the blocking claims only, once for both files


def test_a_bound_refusal_names_the_claim_holding_the_file(brain: Brain) -> None:
    mine = open_claim(brain, "src/")
    other = open_claim(brain, "docs/")
    decision = brain.decide_write("docs/a.md", WriteSession(claims=(mine,)))
    assert not decision.allowed and decision.code == 1 and decision.check == "scope"
    assert decision.holders == (other,) and other in decision.reason and "BLOCKED_ON" in decision.reason
    assert f"docs/a.md is held: {other} (" in decision.reason and "is held by" not in decision.reason  # one verb
    with pytest.raises(PreflightRefused) as refused:  # `bsi preflight check` is this same decision
        brain.preflight(mine, "docs/a.md")
    assert refused.value.exit_code == 1 and other in refused.value.message
    assert refused.value.payload["holders"] == [other]


def test_protocol_files_are_refused_to_the_preflight_too(brain: Brain) -> None:
    sess = open_claim(brain, "*")
    for rel in ("claims/x.yml", "BRAIN-INDEX.md", ".brain/hook-index.json", "./Locks/a.yml"):
        decision = brain.decide_write(rel, WriteSession(claims=(sess,)))
        assert (decision.allowed, decision.code, decision.check) == (False, 1, "protocol"), rel
    assert brain.decide_write("notes/x.md", WriteSession(claims=(sess,))).allowed


def test_an_unreadable_compose_file_denies_unclaimed_writes_and_names_the_error(brain: Brain) -> None:
    unbound = WriteSession(cwd=str(brain.root))
    first = brain.decide_write(str(brain.root / "notes.md"), unbound)
    assert first.allowed and "without a claim" in first.note  # the default: warn
    (brain.root / "brain-compose.yml").write_text("hooks:\n  unclaimed_writes: allow\n  bad: [\n")
    broken = reopen(brain)
    assert broken.config.problem and broken.config.unclaimed_writes == "deny"
    decision = broken.decide_write(str(brain.root / "notes.md"), unbound)
    assert not decision.allowed and decision.check == "unclaimed"
    assert "brain-compose.yml" in decision.reason and "line" in decision.reason
    reading = broken.decide_write(ShellCommand("cat notes.md | grep x"), unbound)
    assert reading.allowed  # reads go on


def test_an_unreadable_compose_file_keeps_a_bound_write_at_the_strictest(brain: Brain) -> None:
    # SPEC 22: an unreadable brain-compose.yml keeps the hooks at their strictest. Before, a bound session's write
    # was decided on the defaults: the kernel zone the file names (and its breaker's count) no longer held, so a
    # satellite wrote into it as soon as the file stopped parsing.
    (brain.root / "brain-compose.yml").write_text("zones:\n  kernel: [src/core/]\n")
    pilot = open_claim(reopen(brain), "*", type="pilote")
    sat = open_claim(reopen(brain), "src/", parent=pilot, satellite_type="code")
    assert reopen(brain).decide_write("src/core/a.py", WriteSession(claims=(sat,))).code == 5
    (brain.root / "brain-compose.yml").write_text("zones:\n  kernel: [src/core/]\nhooks: [\n")
    broken = reopen(brain)
    for sess_id, rel in ((sat, "src/core/a.py"), (sat, "src/b.py"), (pilot, "docs/a.md")):
        decision = broken.decide_write(rel, WriteSession(claims=(sess_id,)))
        assert (decision.allowed, decision.code, decision.check) == (False, 65, "invalid"), rel
        assert "brain-compose.yml line 4" in decision.reason, decision.reason
    with pytest.raises(PreflightRefused) as refused:  # `bsi preflight check` is this same decision
        broken.preflight(sat, "src/b.py")
    assert refused.value.exit_code == 65
    assert broken.decide_write(ShellCommand("ls src"), WriteSession(claims=(sat,), cwd=str(brain.root))).allowed


def test_unclaimed_writes_is_a_typed_field(brain: Brain) -> None:
    # A value naming no mode is a setting whose author meant something (a typo of deny, a YAML `no`): the
    # strictest holds, as for a file that does not read (SPEC 22); only an absent setting is the default.
    for written, mode in (("deny", "deny"), ("Allow ", "allow"), ("warn", "warn"), ("maybe", "deny"),
                          ("dney", "deny"), ("no", "deny"), ("[allow]", "deny"), ("", "warn")):
        (brain.root / "brain-compose.yml").write_text(f"hooks:\n  unclaimed_writes: {written}\n")
        assert reopen(brain).config.unclaimed_writes == mode, written
    (brain.root / "brain-compose.yml").write_text("hooks:\n  other: 1\n")
    assert reopen(brain).config.unclaimed_writes == "warn"


def test_an_unclaimed_write_under_a_setting_naming_no_mode_is_denied_and_says_why(brain: Brain) -> None:
    (brain.root / "brain-compose.yml").write_text("hooks:\n  unclaimed_writes: dney\n")
    decision = reopen(brain).decide_write("notes/free.md", WriteSession(claims=(), cwd=str(brain.root)))
    assert not decision.allowed and "'dney', none of allow, warn, deny" in decision.reason, decision.reason


def test_a_paused_claim_has_every_shell_command_refused(brain: Brain) -> None:
    pilot = open_claim(brain, "app/", type="pilote")
    sat = open_claim(brain, "app/api/", parent=pilot, satellite_type="code")
    session = WriteSession(claims=(sat,), cwd=str(brain.root))
    assert brain.decide_write(ShellCommand("echo ok >> app/api/routes.py"), session).allowed
    brain.gates.pause(pilot, "hold", by="human:t")
    for command in ("echo paused-bash >> app/api/routes.py", "ls", "cat app/api/routes.py"):
        decision = brain.decide_write(ShellCommand(command), session)
        assert not decision.allowed and decision.code == 4, command
        assert f"bsi gate resume {pilot}" in decision.reason and "every shell command" in decision.reason


def test_a_claim_a_human_holds_refuses_the_shell_while_another_claim_is_open(brain: Brain) -> None:
    # The shell writes what its line does not show (`python3 -c`): a second open claim of the session does not
    # give back the shell a pause or a gate took from it, or the paused claim's files are written through it.
    pilot = open_claim(brain, "app/", type="pilote")
    sat = open_claim(brain, "app/api/", parent=pilot, satellite_type="code")
    other = open_claim(brain, "docs/")
    done = open_claim(brain, "old/")
    brain.close_claim(done, CloseRequest(status="ok"))
    hidden = "python3 -c 'open(\"app/api/routes.py\", \"w\").write(\"x\")'"
    for order in ((other, sat, done), (done, sat, other)):
        session = WriteSession(claims=order, cwd=str(brain.root))
        assert brain.decide_write(ShellCommand(hidden), session).allowed  # nothing held: the sandbox's job
    brain.gates.pause(pilot, "hold", by="human:t")
    for order in ((other, sat, done), (sat, other)):
        decision = brain.decide_write(ShellCommand(hidden), WriteSession(claims=order, cwd=str(brain.root)))
        assert not decision.allowed and decision.code == 4 and decision.sess_id == sat, decision
        assert f"bsi gate resume {pilot}" in decision.reason and "every shell command" in decision.reason
    assert brain.decide_write("docs/a.md", WriteSession(claims=(other, sat), cwd=str(brain.root))).allowed
    brain.gates.resume(pilot, by="human:t")
    brain.gates.request(sat, "deploy?")
    decision = brain.decide_write(ShellCommand("ls"), WriteSession(claims=(other, sat), cwd=str(brain.root)))
    assert not decision.allowed and decision.code == 4 and "waiting_human" in decision.reason, decision


def test_a_claim_a_human_holds_keeps_its_files_from_its_session_s_other_claims(brain: Brain) -> None:
    # A session holding a domain and the leaf under it: a human pauses the leaf (or it waits at its gate). The
    # domain's scope covers the leaf's file, but the session the human stopped does not write it through the domain.
    domain = open_claim(brain, "app/", level="domain")
    leaf = open_claim(brain, "app/api/", parent=domain, satellite_type="code")
    session = WriteSession(claims=(domain, leaf), cwd=str(brain.root))
    assert brain.decide_write("app/api/routes.py", session).allowed
    brain.gates.pause(leaf, "hold", by="human:t")
    decision = brain.decide_write("app/api/routes.py", session)
    assert not decision.allowed and decision.code == 4 and decision.sess_id == leaf, decision
    assert f"bsi gate resume {leaf}" in decision.reason
    assert brain.decide_write("app/web/index.ts", session).allowed  # the rest of the domain is not held
    assert brain.decide_write("app/api/routes.py", WriteSession(claims=(domain,), cwd=str(brain.root))).allowed


def test_shell_targets_are_checked_as_writes(brain: Brain) -> None:
    mine = open_claim(brain, "src/")
    other = open_claim(brain, "docs/")
    (brain.root / "docs").mkdir(exist_ok=True)  # (a `cd docs` that cannot fail: what follows runs there only)
    bound = WriteSession(claims=(mine,), cwd=str(brain.root))
    unbound = WriteSession(cwd=str(brain.root))
    allowed = ["echo x > src/a.py", "cd src && touch b.py", "sed -i s/a/b/ src/a.py", "ls -la docs",
               "cat claims/x.yml", "git commit -m x", "bsi claim list", "echo x > /tmp/elsewhere.txt"]
    for command in allowed:
        assert brain.decide_write(ShellCommand(command), bound).allowed, command
    refused = {"echo x >> docs/a.md": other, "cp src/a.py docs/": other, "rm -rf docs": other,
               "cd docs; truncate -s 0 a.md": other, "git checkout -- docs/a.md": other}
    for command, holder in refused.items():
        decision = brain.decide_write(ShellCommand(command), bound)
        assert not decision.allowed and holder in decision.reason, (command, decision)
        decision = brain.decide_write(ShellCommand(command), unbound)
        assert not decision.allowed and holder in decision.reason, (command, decision)
    for command in ("echo x > claims/new.yml", "rm -f locks/a.yml", "tee BRAIN-INDEX.md", "cd claims && touch y",
                    "git checkout -- claims/", "sed -i s/open/closed/ claims/x.yml", "bash -c 'echo > signals/s'",
                    "rm -rf .", f"rm -rf {brain.root.parent}", "cd .. && rm -r *"):
        for session in (bound, unbound):
            decision = brain.decide_write(ShellCommand(command), session)
            assert (decision.allowed, decision.check) == (False, "protocol"), command
    moved = brain.decide_write(ShellCommand("mv docs/a.md src/"), bound)  # a move writes its source too
    assert not moved.allowed and other in moved.reason
    assert not brain.decide_write(ShellCommand(("bash", "-lc", "echo x > docs/z")), bound).allowed


def test_a_shell_write_meets_the_whole_preflight(brain: Brain) -> None:
    sess = open_claim(brain, "src/")
    holder = open_claim(brain, "other/")
    brain.locks.acquire("src/locked.py", holder)
    session = WriteSession(claims=(sess,), cwd=str(brain.root))
    decision = brain.decide_write(ShellCommand("echo x > src/locked.py"), session)
    assert (decision.allowed, decision.code) == (False, 2) and holder in decision.reason


def test_the_hook_index_expires_a_claim_when_the_core_does(brain: Brain) -> None:
    from brain_tui.core.records.statuses import BLOCKING_STATUSES
    from brain_tui.core.sessions import hook_index

    capped = open_claim(brain, "a/")
    blind = open_claim(brain, "b/")
    path = brain.root / "claims" / f"{capped}.yml"  # a hand edit past the 8 h cap
    text = path.read_text(encoding="utf-8")
    expires = next(line for line in text.splitlines() if line.startswith("expires_at:"))
    path.write_text(text.replace(expires, 'expires_at: "2026-11-29T21:00:00+00:00"'), encoding="utf-8")
    path = brain.root / "claims" / f"{blind}.yml"  # no readable opening time
    text = path.read_text(encoding="utf-8")
    opened = next(line for line in text.splitlines() if line.startswith("opened_at:"))
    path.write_text(text.replace(opened + "\n", ""), encoding="utf-8")
    later = Brain(brain.root, clock=lambda: T0 + timedelta(hours=9), commit=False, instance="t@test")
    index = hook_index.build(later.root, later.snapshot(only_statuses=BLOCKING_STATUSES), later.config)
    now = later.now().timestamp()
    for sess, rel in ((capped, "a/x.md"), (blind, "b/x.md")):
        assert not later.decide_write(rel, WriteSession(claims=(sess,))).allowed, sess
        assert not hook_index.claim_can_act(index, sess, now) and not hook_index.may_write(index, sess, rel, now)


def test_the_shortcut_and_the_core_give_one_unclaimed_note(brain: Brain, monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.sessions import hook_index
    from brain_tui.hooks import fast

    monkeypatch.setattr(hook_index, "RACY_NS", -1)  # the folders were made just now: trust the index anyway
    core = brain.decide_write(str(brain.root / "notes.md"), WriteSession(cwd=str(brain.root)))
    (brain.root / ".brain").mkdir(exist_ok=True)
    hook_index.write(brain.root, brain.snapshot(), brain.config)
    event = {"tool_name": "Write", "tool_input": {"file_path": str(brain.root / "notes.md")}, "cwd": str(brain.root)}
    answer = fast.decide(event, {"now": T0.isoformat()}, {})
    assert answer is not None and core.note
    assert answer[2] == f"bsi: note: {core.note}\n"
