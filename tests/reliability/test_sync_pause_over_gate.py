"""A pause made offline on one machine while the claim went to its gate on another: after sync, the resume gives the
claim back to the gate, never to `open` (SPEC 6.3, 22: a human gate is never bypassed).

The sync settles the two versions of the claim file: the remote's `waiting_human` and this clone's pause. The pause
is carried over the gate (`paused_from: waiting_human`), so the human's resume returns the claim to the approval it
was waiting for, and its writes stay refused until a human approves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import Run, run_bsi

from .harness import make_remote, racer_env


def _bsi(clone: Path, now: str, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=racer_env(clone.name), timeout=None)


def _status(clone: Path, sess: str) -> str:
    shown = _bsi(clone, "10:30", "--json", "claim", "show", sess)
    assert shown.code == 0, shown.err
    return str(json.loads(shown.out)["status"])


@pytest.mark.parametrize("pushed_first", ["gate", "pause"])
def test_a_pause_settled_over_a_gate_resumes_to_the_gate(tmp_path: Path, pushed_first: str) -> None:
    _, (one, two) = make_remote(tmp_path, 2)
    leaf = _bsi(one, "10:00", "--sync", "claim", "open", "--scope", "proj/a.md", "--slug", "leaf").out.strip()
    assert leaf.startswith("sess-")
    assert _bsi(two, "10:01", "sync").code == 0
    gate, pause = ["gate", "request", leaf, "deploy?"], ["gate", "pause", leaf, "hold"]
    first, then = (gate, pause) if pushed_first == "gate" else (pause, gate)
    assert _bsi(one, "10:02", "--sync", *first).code == 0
    assert _bsi(two, "10:03", "--offline", *then).code == 0
    assert _bsi(two, "10:04", "sync").code == 0
    assert _bsi(one, "10:05", "sync").code == 0
    for clone in (one, two):
        assert _status(clone, leaf) == "paused"
    assert _bsi(two, "10:06", "--sync", "gate", "resume", leaf).code == 0
    assert _bsi(one, "10:07", "sync").code == 0
    for clone in (one, two):
        assert _status(clone, leaf) == "waiting_human", "the resume lifted the gate the pause was settled over"
        assert _bsi(clone, "10:08", "preflight", "check", leaf, "proj/a.md").code != 0
