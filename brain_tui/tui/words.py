"""Messages in a pilot's words: the watchdog's toast in English, core refusals without status jargon."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def describe_watchdog(result: Any) -> str:
    """The toast after `w`, in English (the French line is `bsi watchdog`'s, SPEC 19)."""
    data = result.as_dict() if hasattr(result, "as_dict") else result
    data = data if isinstance(data, Mapping) else {}
    marked = data.get("marked") or []
    message = f"watchdog: {data.get('active', '?')} active claims, {data.get('stale', '?')} stale"
    return message + (f" — marked {', '.join(marked)}" if marked else "")


def plain_refusal(message: str) -> str:
    """A core refusal in a pilot's words: status names spelled out."""
    words = {"waiting_human": "waiting for a human", "allowed from": "possible only when it is"}
    for jargon, plain in words.items():
        message = message.replace(jargon, plain)
    return message
