"""Answering, interrupting and stopping a satellite that runs in a tmux pane (issue 21, SPEC 20.5).

The keys go to the agent's own pane (its id, recorded at launch; a record without one: the pane that runs the
launched process), and only while that pane still runs the launched process: tmux numbers panes and windows from
``%0`` and ``@0`` again when its server restarts, so a record's ids may name another agent's pane by then
(`own_pane`). The reply reaches the agent's pane as literal keys: ``tmux send-keys -l -- TEXT`` (``-l``: no key
names, nothing format-expanded; a trailing ``;`` escaped, else tmux reads it as the end of its
command), then a separate
``send-keys Enter``. Every call is an argv list, never a shell string. A reply is one line of typed text:
every control character is refused — the C0 ones a terminal turns into actions (``C-c``, ``C-d``, Enter …),
TAB (completion), ESC (the agent's interrupt, and the start of every key sequence: ``ESC [ Z`` is shift-tab,
which turns Claude Code's permission mode; ``ESC O M`` is keypad Enter), DEL, and the C1 ones (``U+009B`` is
``ESC [`` to an 8-bit terminal) — so a reply cannot press a key that it does not spell.

The interrupt is ``Escape``: what Claude Code, Codex and Gemini CLI read as "stop what you are
doing" without ending the session (``C-c`` twice would end Claude Code). The stop kills the
launch's tmux window. None of these touches the claim: the protocol releases or closes it.
"""

from __future__ import annotations

import re
import shutil

from brain_tui.core.errors import InvalidData, NotFound, UsageError
from brain_tui.core.sessions.launch import LaunchRecord, one_line
from brain_tui.core.sessions.tmux import run_tmux, tmux_arg

INTERRUPT_KEY = "Escape"
MAX_REPLY = 4000


def check_reply(text: str) -> str:
    """The reply as it will be typed, or UsageError (64) when it is empty, too long or holds action keys."""
    if not text.strip():
        raise UsageError("agent answer: the reply is empty")
    if len(text) > MAX_REPLY:
        raise UsageError(f"agent answer: the reply is longer than {MAX_REPLY} characters")
    bad = sorted({f"U+{ord(ch):04X}" for ch in text if ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F})
    if bad:
        raise UsageError("agent answer: a reply is one line of text; it holds control characters that a terminal "
                         f"would act on ({', '.join(bad[:5])})")
    return text


def _base(record: LaunchRecord) -> list[str]:
    if record.mode != "tmux" or not record.window:
        raise NotFound(f"{record.sess_id} was not launched in tmux: nothing to type into")
    tmux = shutil.which("tmux")
    if tmux is None:
        raise UsageError("agent: tmux is not installed")
    return [tmux, *(["-S", record.socket] if record.socket else [])]


#: What tmux says when the launch's window, pane or whole server is gone (the agent ended, or was stopped).
GONE_MARKERS = ("no server running", "can't find window", "can't find pane", "can't find session",
                "(No such file or directory)", "(Connection refused)")


def _run(argv: list[str], what: str, record: LaunchRecord) -> str:
    """Run one tmux command; its output. Its window gone (the agent's process may outlive it for a moment):
    NotFound (66). tmux silent for `tmux.TMUX_TIMEOUT_S`: InvalidData (65)."""
    done = run_tmux(argv)
    if done.returncode != 0:
        reason = one_line(done.stderr or done.stdout)[:200] or f"exit {done.returncode}"
        if any(marker in reason for marker in GONE_MARKERS):
            raise NotFound(f"no launched agent of {record.sess_id} runs on this machine (tmux: {reason})")
        raise InvalidData(f"agent {what}: tmux refused: {reason}")
    return done.stdout


_WINDOW_ID = re.compile(r"@[0-9]{1,9}")
_PANE_ID = re.compile(r"%[0-9]{1,9}")


def own_pane(record: LaunchRecord) -> tuple[str, str]:
    """(pane id, window id) of the pane that runs the launched process (`record.pid`; its recorded pane when the
    record names one), asked of the launch's tmux server now, wherever the pane was moved since.

    Raises:
        NotFound: no pane of the server runs that process any more (a restarted tmux server gives the recorded
            ids to new panes), the server is gone, or the record's ids are not tmux ids (exit 66): nothing is sent.
    """
    base = _base(record)
    gone = NotFound(f"no launched agent of {record.sess_id} runs on this machine (its tmux window "
                    f"{one_line(record.target or record.window)[:60]} no longer runs it)")
    if record.pid <= 0 or not _WINDOW_ID.fullmatch(record.window) or (
            record.pane and not _PANE_ID.fullmatch(record.pane)):
        raise gone
    done = _run([*base, "list-panes", "-a", "-F", "#{pane_id} #{pane_pid} #{window_id}"], "keys", record)
    for line in done.splitlines():
        pane, pid, window = ([*line.split(" "), "", "", ""])[:3]
        if pid == str(record.pid) and (not record.pane or pane == record.pane) and _PANE_ID.fullmatch(pane):
            return pane, window
    raise gone


def answer_argvs(record: LaunchRecord, text: str) -> list[list[str]]:
    """The two tmux commands that type `text` into the launch's pane and press Enter."""
    base = _base(record)
    pane, _window = own_pane(record)
    return [[*base, "send-keys", "-t", pane, "-l", "--", tmux_arg(check_reply(text))],
            [*base, "send-keys", "-t", pane, "Enter"]]


def answer(record: LaunchRecord, text: str) -> None:
    """Type `text` (literal keys) into the launch's pane, then Enter."""
    for argv in answer_argvs(record, text):
        _run(argv, "answer", record)


def interrupt(record: LaunchRecord) -> None:
    """Press Escape in the launch's pane: the agent stops its current turn and waits."""
    _run([*_base(record), "send-keys", "-t", own_pane(record)[0], INTERRUPT_KEY], "interrupt", record)


def stop(record: LaunchRecord) -> None:
    """Kill the tmux window that holds the launch's pane now (the agent ends; its claim stays as it is)."""
    _pane, window = own_pane(record)
    _run([*_base(record), "kill-window", "-t", window], "stop", record)
