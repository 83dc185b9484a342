"""Messages in a pilot's words: the watchdog's toast in English, core refusals without status jargon."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brain_tui.core.rules.watchdog import WatchdogReport

#: How each attention kind reads to the pilot (the queue's Kind column, `n`'s toast).
KIND_LABELS = {"held": "not committed", "gate": "gate", "blocked": "BLOCKED_ON", "circuit": "circuit",
               "needs_input": "needs input", "paused": "paused", "stale": "stale", "context": "context",
               "breath": "breath", "unreadable": "unreadable"}


def describe_watchdog(report: WatchdogReport) -> str:
    """The toast after `w`, in English (the French line is `bsi watchdog`'s, SPEC 19)."""
    message = f"watchdog: {report.active} active claims, {report.stale} stale"
    return message + (f" — marked {', '.join(report.marked)}" if report.marked else "")


def plain_refusal(message: str) -> str:
    """A core refusal in a pilot's words: status names spelled out."""
    words = {"waiting_human": "waiting for a human", "allowed from": "possible only when it is"}
    for jargon, plain in words.items():
        message = message.replace(jargon, plain)
    return message
