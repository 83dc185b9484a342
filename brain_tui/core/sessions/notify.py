"""Word of what needs the pilot when they are away: the `notify:` command and the desktop-notice escapes.

`notify:` in brain-compose.yml is an argv list (never a shell string) run once for each new attention
item; each placeholder (`NOTIFY_PLACEHOLDERS`) fills exactly one element with inert brain text, and the
program itself never comes from a placeholder. The keys already told are remembered in
``.brain/notified.json`` (local, written atomically, the newest `MAX_REMEMBERED` kept, read and
written under an exclusive lock), so neither a restart nor a second cockpit tells an item twice.
The cockpit also writes the terminal escapes of a desktop notice (OSC 9, OSC 777 ``notify``, kitty
OSC 99), wrapped for tmux when it runs inside tmux.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from brain_tui.core.config import NOTIFY_PLACEHOLDERS as NOTIFY_PLACEHOLDERS
from brain_tui.core.config import PLACEHOLDER_RE, NotifySetting, check_template
from brain_tui.core.config import parse_notify as parse_notify
from brain_tui.core.errors import BsiError, InvalidData, UsageError
from brain_tui.core.paths.layout import NOTIFIED_FILE, STATE_DIR
from brain_tui.core.paths.text_safety import CONTROL_RE, inert_line
from brain_tui.core.record import record
from brain_tui.core.records.state_json import open_lock, read_state_json
from brain_tui.core.records.yamlio import atomic_write_text

#: How many told keys are remembered (the oldest are forgotten first).
MAX_REMEMBERED = 500
#: How long a notify command may run before it is given up on.
COMMAND_TIMEOUT_S = 10.0
#: The longest summary a command or a notice carries.
SUMMARY_LIMIT = 200

#: The item `bsi notify test` tells.
TEST_SUMMARY = "a test notice from bsi notify test: nothing waits"

class Notable(Protocol):
    """What a notice is made of: an attention item (`core.attention.AttentionItem`)."""

    @property
    def kind(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def sess_id(self) -> str | None: ...
    @property
    def summary(self) -> str: ...


def notice_values(item: Notable, brain: str) -> dict[str, str]:
    """The placeholder values of one item: each one inert line (brain text is hostile, SPEC 15)."""
    return {
        "kind": inert_line(item.kind, 40),
        "sess_id": inert_line(item.sess_id or "", 80),
        "summary": inert_line(item.summary, SUMMARY_LIMIT),
        "key": inert_line(item.key, 200),
        "brain": inert_line(brain, 80),
    }


def build_notify_argv(template: Sequence[str], values: Mapping[str, str]) -> tuple[str, ...]:
    """Fill the placeholders of `template`: each element stays exactly one argv element.

    A filled element that brain text would turn into an option (it starts with ``-`` where the
    template's element does not) gets a leading space, so it stays an argument.

    Raises:
        InvalidData: the template is not usable (`check_template`).
    """
    check_template(template)
    argv: list[str] = []
    for element in template:
        value = PLACEHOLDER_RE.sub(lambda m: values.get(m.group(1), ""), element).replace("\x00", "")
        if value.startswith("-") and not element.startswith("-"):
            value = " " + value
        argv.append(value)
    return tuple(argv)


def run_command(argv: Sequence[str], timeout_s: float = COMMAND_TIMEOUT_S) -> str | None:
    """Run one notify command (no shell, no input, output dropped); None when it worked, else one line why."""

    try:
        done = subprocess.run(list(argv), shell=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout_s, check=False, start_new_session=True)
    except FileNotFoundError:
        return f"notify command not found: {inert_line(argv[0], 60)}"
    except subprocess.TimeoutExpired:
        return f"notify command gave no answer in {timeout_s:g} s: {inert_line(argv[0], 60)}"
    except OSError as exc:
        return f"notify command cannot run: {inert_line(argv[0], 60)} ({exc.strerror})"
    if done.returncode != 0:
        return f"notify command failed (exit {done.returncode}): {inert_line(argv[0], 60)}"
    return None


class NotifyFailed(BsiError):
    """The notify command did not work (exit 69: the service it reaches is unavailable)."""

    exit_code = 69


# -- at most once per item -----------------------------------------------------------------------
class NotifiedLog:
    """The keys already told, in ``.brain/notified.json`` (a JSON list, newest last, bounded)."""

    def __init__(self, root: str | Path, limit: int = MAX_REMEMBERED) -> None:
        """Args: root: the brain; limit: how many keys are kept."""
        self.path = Path(root) / STATE_DIR / NOTIFIED_FILE
        self.limit = limit

    def read(self) -> list[str]:
        """The remembered keys (an unreadable or foreign file reads as none)."""
        data = read_state_json(self.path)  # None: unreadable, no regular file (a FIFO: never waited on), not JSON
        if not isinstance(data, list):
            return []
        return [key for key in data if isinstance(key, str)]

    def claim(self, keys: Iterable[str]) -> list[str]:
        """Remember `keys`; return those not told before, in the order given (each once).

        The read and the write happen under an exclusive lock on ``notified.json.lock``, so two
        cockpits telling the same item at the same instant tell it once between them. A state file
        that cannot be written (or locked) does not stop the notices: they go out, and the next
        cockpit may tell them again.
        """
        with self._locked():
            return self._claim(keys)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """An exclusive `flock` on the log's lock file for the block; none when it cannot be opened or is no
        regular file (a FIFO, a link to /dev/null planted there: never waited on, never locked, left as it is).
        Notices are best-effort: without the lock they still go out, and two cockpits may tell an item twice."""
        try:
            self.path.parent.mkdir(exist_ok=True)  # never its parents: a brain deleted under a cockpit stays gone
            handle = open_lock(self.path.with_name(self.path.name + ".lock"))
        except (OSError, InvalidData):
            yield
            return
        with handle:  # closing drops the lock
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            yield

    def _claim(self, keys: Iterable[str]) -> list[str]:
        known = self.read()
        seen = set(known)
        fresh: list[str] = []
        for key in keys:
            if key not in seen:
                seen.add(key)
                fresh.append(key)
        if fresh and self.path.parent.is_dir():  # no `.brain/`: the brain is gone, and stays so
            kept = (known + fresh)[-self.limit:]
            with contextlib.suppress(OSError):
                atomic_write_text(self.path, json.dumps(kept, ensure_ascii=True) + "\n")
        return fresh


# -- the terminal's desktop notice ---------------------------------------------------------------
def escape_text(value: object, limit: int = 120) -> str:
    """Brain text fit for an escape-sequence field: inert, no control character at all, no ``;``."""
    text = inert_line(value, limit)
    return CONTROL_RE.sub("", text).replace(";", "").strip()


def desktop_escapes(title: str, body: str, tmux: bool = False) -> str:
    """The OSC 9, OSC 777 ``notify`` and kitty OSC 99 sequences of one notice, title and body made safe here
    (with `tmux`, each wrapped in tmux's DCS passthrough: ``$TMUX`` is set).
    """
    head, text = escape_text(title, 60), escape_text(body)
    sequences = [
        f"\x1b]9;{head}: {text}\x07",
        f"\x1b]777;notify;{head};{text}\x07",
        f"\x1b]99;;{head}: {text}\x1b\\",
    ]
    if tmux:
        sequences = ["\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\" for seq in sequences]
    return "".join(sequences)


@record
class Notice:
    """One item to tell: the title and body of the desktop notice, and the command to run (or none)."""

    key: str
    title: str
    body: str
    argv: tuple[str, ...] | None


class Notifier:
    """Decides what to tell: new attention items only, each once, never those present at start."""

    def __init__(self, root: str | Path, setting: NotifySetting, brain: str) -> None:
        """Args: root: the brain; setting: its `notify:` key; brain: the brain's name ({brain})."""
        self.log = NotifiedLog(root)
        self.setting = setting
        self.brain = brain

    def starting(self, items: Iterable[Notable]) -> None:
        """The items already there when the cockpit opens: remembered, never told."""
        self.log.claim(item.key for item in items)

    def fresh(self, items: Iterable[Notable]) -> list[Notice]:
        """The notices of the items never told before (remembered now, so each is told once)."""
        by_key = {item.key: item for item in items}
        notices: list[Notice] = []
        for key in self.log.claim(by_key):
            item = by_key[key]
            argv = None
            if self.setting.enabled and self.setting.command:
                argv = build_notify_argv(self.setting.command, notice_values(item, self.brain))
            notices.append(Notice(key=key, title=f"BSI: {escape_text(item.kind, 40)}",
                                  body=escape_text(item.summary, SUMMARY_LIMIT), argv=argv))
        return notices

    def test(self, timeout_s: float = COMMAND_TIMEOUT_S) -> tuple[str, ...]:
        """Run the command once for a made-up item (`bsi notify test`): the argv that ran; nothing is remembered.

        Raises:
            UsageError: `notify: off`, or no command configured (exit 64).
            InvalidData: a `notify:` key that cannot be used (exit 65).
            NotifyFailed: the command is missing, failed or timed out (exit 69).
        """
        if not self.setting.enabled:
            raise UsageError("notify is off in brain-compose.yml (notify: off); nothing to test")
        if self.setting.problem:
            raise InvalidData(self.setting.problem)
        if not self.setting.command:
            raise UsageError('no notify command configured: add to brain-compose.yml, for example '
                             'notify: {command: [notify-send, "BSI: {kind}", "{summary}"]}')
        item = _TestItem(kind="test", key="test", sess_id=None, summary=TEST_SUMMARY)
        argv = build_notify_argv(self.setting.command, notice_values(item, self.brain))
        problem = run_command(argv, timeout_s)
        if problem:
            raise NotifyFailed(problem)
        return argv


@record
class _TestItem:
    """The made-up item of `Notifier.test`."""

    kind: str
    key: str
    sess_id: str | None
    summary: str
