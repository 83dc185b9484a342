"""Two humans pause different levels of one satellite tree on two machines: the resume of one never lifts the
other's pause (SPEC 6.3, 22), whichever was pushed first.

A pause of the pilot cascades down the tree (`paused_by: <pilot>`); a pause of the domain made meanwhile on
another machine is that human's own stop (`paused_by: <domain>`). After sync, resuming the pilot must leave the
domain and its leaf paused until the domain's own resume.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import Run, run_bsi

from .harness import make_remote, racer_env


def _bsi(clone: Path, now: str, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=racer_env(clone.name), timeout=None)


def _state(clone: Path, sess: str) -> tuple[str, str | None]:
    shown = _bsi(clone, "10:30", "--json", "claim", "show", sess)
    assert shown.code == 0, shown.err
    doc = json.loads(shown.out)
    return doc["status"], doc.get("paused_by")


@pytest.mark.parametrize("pushed_first", ["pilot-pause", "domain-pause"])
def test_a_resume_of_the_pilot_never_lifts_a_domain_pause_made_on_another_machine(
        tmp_path: Path, pushed_first: str) -> None:
    _, (one, two) = make_remote(tmp_path, 2)
    pilot = _bsi(one, "10:00", "--sync", "claim", "open", "--scope", "proj/", "--type", "pilote",
                 "--slug", "pilot").out.strip()
    domain = _bsi(one, "10:00", "--sync", "claim", "open", "--scope", "proj/d/", "--parent", pilot, "--level",
                  "domain", "--satellite-type", "domain", "--slug", "dom").out.strip()
    leaf = _bsi(one, "10:00", "--sync", "claim", "open", "--scope", "proj/d/a.md", "--parent", domain,
                "--satellite-type", "code", "--slug", "leaf").out.strip()
    assert _bsi(two, "10:01", "sync").code == 0
    pilot_pause, domain_pause = ["gate", "pause", pilot, "hold all"], ["gate", "pause", domain, "hold this"]
    if pushed_first == "pilot-pause":
        assert _bsi(one, "10:02", "--sync", *pilot_pause).code == 0
        assert _bsi(two, "10:03", "--offline", *domain_pause).code == 0
        assert _bsi(two, "10:04", "sync").code == 0
    else:
        assert _bsi(two, "10:02", "--sync", *domain_pause).code == 0
        assert _bsi(one, "10:03", "--offline", *pilot_pause).code == 0
        assert _bsi(one, "10:04", "sync").code == 0
    for clone in (one, two):
        assert _bsi(clone, "10:05", "sync").code == 0
        assert _state(clone, domain) == ("paused", domain), "the domain's own pause was replaced by the cascade"
        assert _state(clone, leaf) == ("paused", domain)
    assert _bsi(one, "10:06", "--sync", "gate", "resume", pilot).code == 0
    assert _bsi(two, "10:07", "sync").code == 0
    for clone in (one, two):
        assert _state(clone, pilot)[0] == "open"
        assert _state(clone, domain)[0] == "paused", "the pilot's resume lifted a pause another human made"
        assert _bsi(clone, "10:08", "preflight", "check", leaf, "proj/d/a.md").code == 4
    assert _bsi(two, "10:09", "--sync", "gate", "resume", domain).code == 0
    assert _bsi(one, "10:10", "sync").code == 0
    assert _bsi(one, "10:11", "preflight", "check", leaf, "proj/d/a.md").code == 0
