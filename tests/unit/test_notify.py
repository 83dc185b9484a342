"""`notify:` (issue 19): the argv built from hostile text, once per item, the escapes of a desktop notice."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from brain_tui.core.config import load_config
from brain_tui.core.errors import InvalidData
from brain_tui.core.sessions.notify import (
    MAX_REMEMBERED,
    NotifiedLog,
    Notifier,
    NotifySetting,
    build_notify_argv,
    desktop_escapes,
    escape_text,
    notice_values,
    parse_notify,
    run_command,
)

HOSTILE = "deploy?\x1b]0;owned\x07 $(rm -rf ~); `id` | tee /x\n--help ;\u202e"


@dataclass(frozen=True)
class Item:
    """An attention item, as far as a notice reads it."""

    kind: str
    key: str
    sess_id: str | None
    summary: str


def test_hostile_text_fills_exactly_one_element_inert() -> None:
    item = Item("gate", "gate:sess-1", "sess-1", HOSTILE)
    argv = build_notify_argv(["notify-send", "BSI: {kind}", "{summary}"], notice_values(item, "prod"))
    assert len(argv) == 3 and argv[:2] == ("notify-send", "BSI: gate")
    summary = argv[2]
    assert "\x1b" not in summary and "\x07" not in summary and "\n" not in summary and "\u202e" not in summary
    assert "⟨ESC⟩" in summary and "$(rm -rf ~)" in summary  # shown as text, never run: no shell


def test_text_that_would_be_an_option_stays_an_argument() -> None:
    item = Item("blocked", "blocked:s", "s", "--version")
    argv = build_notify_argv(["notify-send", "{summary}"], notice_values(item, "b"))
    assert argv == ("notify-send", " --version")


@pytest.mark.parametrize("template, words", [
    (["{summary}", "x"], "program"),
    (["{brain}"], "program"),
    (["notify-send", "{story}"], "unknown placeholder {story}"),
    ([], "empty"),
    (["A=b", "x"], "'='"),
])
def test_bad_templates_are_refused(template: list[str], words: str) -> None:
    with pytest.raises(InvalidData, match=None) as caught:
        build_notify_argv(template, {})
    assert words in str(caught.value)


def test_the_notify_key_reads_off_a_command_or_a_problem(tmp_path: Path) -> None:
    assert parse_notify("off") == NotifySetting(enabled=False)
    assert parse_notify(False) == NotifySetting(enabled=False)
    assert parse_notify(None) == NotifySetting()
    assert parse_notify({"command": ["curl", "-d", "{summary}", "ntfy.sh/t"]}).command == (
        "curl", "-d", "{summary}", "ntfy.sh/t")
    shell = parse_notify({"command": "notify-send {summary}"})
    assert shell.command == () and shell.problem and "argv list" in shell.problem
    assert "program" in (parse_notify({"command": ["{summary}"]}).problem or "")
    (tmp_path / "brain-compose.yml").write_text("notify:\n  command: [notify-send, 'BSI: {kind}', '{summary}']\n")
    assert load_config(tmp_path).notify.command == ("notify-send", "BSI: {kind}", "{summary}")
    (tmp_path / "brain-compose.yml").write_text("notify: off\n")
    assert load_config(tmp_path).notify.enabled is False


def test_each_item_is_told_once_even_after_a_restart(tmp_path: Path) -> None:
    setting = parse_notify({"command": ["notify-send", "{kind}", "{key}"]})
    old, new = Item("stale", "stale:a", "a", "old"), Item("gate", "gate:b", "b", "merge?")
    first = Notifier(tmp_path, setting, "prod")
    first.starting([old])
    notices = first.fresh([old, new])
    assert [n.key for n in notices] == ["gate:b"] and notices[0].argv == ("notify-send", "gate", "gate:b")
    assert first.fresh([old, new]) == []
    again = Notifier(tmp_path, setting, "prod")  # another cockpit, later: the file remembers
    assert again.fresh([old, new]) == []
    assert json.loads((tmp_path / ".brain" / "notified.json").read_text()) == ["stale:a", "gate:b"]


def test_notify_off_keeps_the_notice_but_runs_no_command(tmp_path: Path) -> None:
    notices = Notifier(tmp_path, NotifySetting(enabled=False), "prod").fresh([Item("gate", "g", "s", "x")])
    assert len(notices) == 1 and notices[0].argv is None


def test_the_remembered_keys_are_bounded_and_a_bad_file_reads_as_none(tmp_path: Path) -> None:
    log = NotifiedLog(tmp_path)
    assert log.claim(f"k{i}" for i in range(MAX_REMEMBERED + 20))
    kept = log.read()
    assert len(kept) == MAX_REMEMBERED and kept[-1] == f"k{MAX_REMEMBERED + 19}" and "k0" not in kept
    log.path.write_text("{not json")
    assert log.read() == [] and log.claim(["x"]) == ["x"]


def test_escape_text_has_no_control_and_no_separator() -> None:
    text = escape_text(HOSTILE)
    assert ";" not in text and all(ord(c) >= 0x20 and not 0x7F <= ord(c) <= 0x9F for c in text)


def test_desktop_escapes_and_their_tmux_wrapping() -> None:
    plain = desktop_escapes("BSI: gate", "merge; now\x1b\\")
    assert plain == ("\x1b]9;BSI: gate: merge now⟨ESC⟩\\\x07"
                     "\x1b]777;notify;BSI: gate;merge now⟨ESC⟩\\\x07"
                     "\x1b]99;;BSI: gate: merge now⟨ESC⟩\\\x1b\\")
    wrapped = desktop_escapes("T", "b", tmux=True)
    assert wrapped.startswith("\x1bPtmux;\x1b\x1b]9;T: b\x07\x1b\\") and wrapped.count("\x1bPtmux;") == 3


def test_run_command_reports_a_failure_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_command([sys.executable, "-c", "import sys; open(sys.argv[1], 'w').write(sys.argv[2])",
                        str(out), "a b; c"]) is None
    assert out.read_text() == "a b; c"
    assert "exit 3" in (run_command([sys.executable, "-c", "raise SystemExit(3)"]) or "")
    assert "not found" in (run_command([str(tmp_path / "no-such-program")]) or "")


def test_two_cockpits_claiming_the_same_item_at_once_tell_it_once(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The first cockpit writes only once the second got as far as it can (waiting on the lock, or, without
    the lock, past its read of the log): without the lock, both would tell the item."""
    import fcntl
    import threading
    from types import SimpleNamespace

    from brain_tui.core.sessions import notify
    from tests.clock import wait_for

    reads: list[int] = []
    locking: list[int] = []
    real_read, real_write = NotifiedLog.read, notify.atomic_write_text

    def counted_read(self: NotifiedLog) -> list[str]:
        keys = real_read(self)
        reads.append(1)
        return keys

    def counted_flock(fd: int, operation: int) -> None:
        locking.append(1)
        fcntl.flock(fd, operation)

    def held_write(path: Path, text: str) -> None:
        wait_for(lambda: len(locking) >= 2 or len(reads) >= 2, timeout=10, what="the other cockpit")
        real_write(path, text)

    monkeypatch.setattr(NotifiedLog, "read", counted_read)
    monkeypatch.setattr(notify, "fcntl", SimpleNamespace(flock=counted_flock, LOCK_EX=fcntl.LOCK_EX))
    monkeypatch.setattr(notify, "atomic_write_text", held_write)
    start = threading.Barrier(2)
    told: list[list[str]] = []

    def cockpit() -> None:
        log = NotifiedLog(tmp_path)
        start.wait()
        told.append(log.claim(["gate:b"]))

    threads = [threading.Thread(target=cockpit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert sorted(told) == [[], ["gate:b"]]
    assert NotifiedLog(tmp_path).read() == ["gate:b"]


def _fifo_at(path: Path) -> None:
    import os

    os.mkfifo(path)


def _dev_null_at(path: Path) -> None:
    path.symlink_to("/dev/null")


@pytest.mark.parametrize("plant", [_fifo_at, _dev_null_at], ids=["fifo", "dev-null"])
def test_a_lock_file_that_is_no_regular_file_is_not_used_as_a_lock(tmp_path: Path, plant: object,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A FIFO or a link to /dev/null planted at ``notified.json.lock`` is never locked (a lock on /dev/null is
    one every process on the machine shares) nor waited on: the notices still go out, told once by this
    cockpit, as when the lock file cannot be opened at all. Before, it was opened and `flock`ed as the lock."""
    import fcntl
    import os
    import stat
    import threading
    from types import SimpleNamespace

    from brain_tui.core.sessions import notify

    lock = tmp_path / ".brain" / "notified.json.lock"
    lock.parent.mkdir(parents=True)
    assert callable(plant)
    plant(lock)
    locked: list[int] = []

    def recorded_flock(fd: int, operation: int) -> None:
        locked.append(os.fstat(fd).st_mode)
        fcntl.flock(fd, operation)

    monkeypatch.setattr(notify, "fcntl", SimpleNamespace(flock=recorded_flock, LOCK_EX=fcntl.LOCK_EX))
    told: list[list[str]] = []
    thread = threading.Thread(target=lambda: told.append(NotifiedLog(tmp_path).claim(["gate:b"])), daemon=True)
    thread.start()
    thread.join(30)
    waited = thread.is_alive()
    if waited:  # let a reader or writer blocked on the FIFO go, so the test ends
        os.close(os.open(lock, os.O_RDWR | os.O_NONBLOCK))
        thread.join(5)
    assert not waited, "waited on the lock file"
    assert told == [["gate:b"]]
    assert [mode for mode in locked if not stat.S_ISREG(mode)] == []
    assert lock.is_symlink() or lock.is_fifo()  # left as it was
    assert NotifiedLog(tmp_path).read() == ["gate:b"] and NotifiedLog(tmp_path).claim(["gate:b"]) == []
