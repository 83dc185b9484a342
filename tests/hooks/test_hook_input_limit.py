"""The hook reads at most 1 MiB of stdin (SPEC 20.2): an event of exactly 1 MiB is read and judged, one byte more
is input it refuses to read (fail closed for a bound session, a note for an unbound one)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import clean_env, ok, run_bsi
from tests.clock import live_now
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook

MIB = 1024 * 1024


def sized(brain: Path, size: int) -> bytes:
    """A Write event into the bound claim's scope, padded in its content to exactly `size` bytes."""
    doc = event(brain, "Write", str(brain / "src" / "a.py"))
    doc["tool_input"]["content"] = ""
    pad = size - len(json.dumps(doc).encode())
    doc["tool_input"]["content"] = "x" * pad
    raw = json.dumps(doc).encode()
    assert len(raw) == size
    return raw


def test_an_event_of_exactly_one_mib_is_read_and_one_byte_more_is_not(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "api", "--agent-session", AGENT, brain=brain,
                      now=live_now()))  # `$BSI_SESSION` judges the claim at the machine's clock
    assert_allowed(hook(brain, "pre-tool-use", None, raw=sized(brain, MIB)))
    assert_allowed(hook(brain, "pre-tool-use", None, raw=sized(brain, MIB), env=clean_env(BSI_SESSION=sess)))
    over = sized(brain, MIB + 1)
    assert_denied(hook(brain, "pre-tool-use", None, raw=over, env=clean_env(BSI_SESSION=sess)), "over 1024 KiB",
                  f"bsi preflight check {sess}")
    done = hook(brain, "pre-tool-use", None, raw=over)
    assert done.returncode == 0 and done.stdout == "" and "over 1024 KiB" in done.stderr
