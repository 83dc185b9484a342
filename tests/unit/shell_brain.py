"""The brain the shell reader's option tests decide on: `claims/x.yml` and `src/`, no git; `sessions` gives a
session bound to a claim on `src/` and an unbound one (the two whose writes every refusal must meet)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.write_request import WriteSession

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def make(tmp_path: Path) -> Brain:
    """A brain in `tmp_path` with `claims/x.yml` and `src/`."""
    for folder in ("claims", "signals", "locks", "breath", "src"):
        (tmp_path / folder).mkdir()
    (tmp_path / "claims" / "x.yml").write_text("note: a protocol file, not a claim\n")
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


def sessions(brain: Brain) -> tuple[WriteSession, WriteSession]:
    """A session bound to a new claim on `src/`, and one bound to none."""
    mine = brain.open_claim(OpenRequest(scope=parse_scope("src/"), ttl=timedelta(hours=2), instance="t@test"))
    return WriteSession(claims=(mine,), cwd=str(brain.root)), WriteSession(cwd=str(brain.root))


def written_paths(brain: Brain, command: str) -> set[str]:
    """The files the shell reader places `command` writing, relative to the brain's root."""
    from brain_tui.core.sessions.shell_targets import read_command

    return {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).targets}


def refused_to_both(brain: Brain, command: str) -> None:
    """Assert that the write decision refuses the shell line `command` to both sessions of `sessions`."""
    from brain_tui.core.rules.write_request import ShellCommand

    for session in sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert not decision.allowed, (command, decision)


def refused_as_protocol_write(brain: Brain, command: str) -> None:
    """Assert that the shell reader finds `command` writing `claims/x.yml` (or `claims/` whole) and that the write
    decision refuses it to both sessions."""
    from brain_tui.core.sessions.shell_targets import read_command

    reading = read_command(command, str(brain.root))
    written = [t.path for t in reading.targets]
    assert any(path in written for path in (str(brain.root / "claims" / "x.yml"), str(brain.root / "claims"))), \
        (command, reading.targets)
    refused_to_both(brain, command)
