"""A gate request racing a human's pause or resume on another machine: sync never loses the gate (SPEC 6.3, 22).

The human's decision wins the claim file, and the owner's pending gate is carried onto it: a pause keeps it
for the resume (`paused_from: waiting_human`), a resume leaves the claim waiting for the human.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import Run, run_bsi

from .harness import claim_shown, copy_repositories, git, make_remote, racer_env

Tree = tuple[Path, Path, str, str]


def _bsi(clone: Path, now: str, *args: str) -> Run:
    """`bsi --brain CLONE --now 2026-11-29T<now>Z ARGS…` on the clone's own name."""
    return run_bsi(*args, brain=clone, now=f"2026-11-29T{now}:00+00:00", env=racer_env(clone.name), timeout=None)


@pytest.fixture(scope="module")
def _tree_made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A pilot held on the pilot's clone, its code satellite on the other, both pushed and fetched (made once)."""
    made = tmp_path_factory.mktemp("gates-tree")
    _, (pilot_clone, sat_clone) = make_remote(made, 2)
    pilot = _bsi(pilot_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/", "--type", "pilote",
                 "--slug", "pilot").out.strip()
    sat = _bsi(sat_clone, "10:00", "--sync", "claim", "open", "--scope", "proj/a.md", "--parent", pilot,
               "--satellite-type", "code", "--slug", "sat")
    assert sat.code == 0, sat.err
    assert _bsi(pilot_clone, "10:01", "sync").code == 0
    return made, pilot, sat.out.strip()


@pytest.fixture
def tree(_tree_made: tuple[Path, str, str], tmp_path: Path) -> Tree:
    """`_tree_made` copied into the test's folder: (pilot's clone, satellite's clone, pilot, satellite)."""
    made, pilot, sat = _tree_made
    copy_repositories(made, tmp_path)
    return tmp_path / "clone0", tmp_path / "clone1", pilot, sat


def _shown_at(clone: Path, sess: str) -> dict:
    return claim_shown(clone, sess, "2026-11-29T10:30:00+00:00")


@pytest.mark.parametrize("pushed_first", ["gate", "pause"])
def test_a_pause_racing_a_gate_request_keeps_the_gate_for_the_resume(tree: Tree, pushed_first: str) -> None:
    pilot_clone, sat_clone, pilot, sat = tree
    gate = ["gate", "request", sat, "deploy ok?"]
    pause = ["gate", "pause", pilot, "hold"]
    if pushed_first == "gate":
        assert _bsi(sat_clone, "10:05", "--sync", *gate).code == 0
        assert _bsi(pilot_clone, "10:06", "--offline", *pause).code == 0
        assert _bsi(pilot_clone, "10:07", "sync").code == 0
    else:
        assert _bsi(sat_clone, "10:05", "--offline", *gate).code == 0
        assert _bsi(pilot_clone, "10:06", "--sync", *pause).code == 0
        assert _bsi(sat_clone, "10:07", "sync").code == 0
    for clone in (pilot_clone, sat_clone):
        assert _bsi(clone, "10:08", "sync").code == 0
        shown = _shown_at(clone, sat)
        assert shown["status"] == "paused"
        assert shown["paused_from"] == "waiting_human", "the pause swallowed the pending gate"
        assert "HUMAN_GATE" in [e["event"] for e in shown["gate_history"]]
    resumed = _bsi(pilot_clone, "10:10", "--sync", "gate", "resume", pilot)
    assert resumed.code == 0, resumed.err
    assert _bsi(sat_clone, "10:11", "sync").code == 0
    assert _shown_at(sat_clone, sat)["status"] == "waiting_human"
    assert _bsi(sat_clone, "10:12", "preflight", "check", sat, "proj/a.md").code == 4


def test_a_resume_racing_a_gate_request_leaves_the_claim_waiting_for_the_human(tree: Tree) -> None:
    pilot_clone, sat_clone, pilot, sat = tree
    # The human pauses and resumes the tree; the satellite, offline, never saw the pause and asks for its gate.
    assert _bsi(pilot_clone, "10:02", "--sync", "gate", "pause", pilot, "hold").code == 0
    assert _bsi(pilot_clone, "10:03", "--sync", "gate", "resume", pilot).code == 0
    assert _bsi(sat_clone, "10:05", "--offline", "gate", "request", sat, "deploy ok?").code == 0
    assert _bsi(sat_clone, "10:07", "sync").code == 0
    shown = _shown_at(sat_clone, sat)
    assert shown["status"] == "waiting_human", "the gate request was lost: the satellite writes unapproved"
    assert shown["gate_message"] == "deploy ok?"
    assert _bsi(sat_clone, "10:12", "preflight", "check", sat, "proj/a.md").code == 4


def _forge(tmp_path: Path, sess: str, old: str, new: str, drop: tuple[str, ...] = ()) -> None:
    """A third clone edits `sess`'s claim file by hand (`status: OLD` → `status: NEW`, the lines starting with
    `drop` removed) and pushes it with git alone: no human decided anything, no human event is written."""
    forger = tmp_path / "forger"
    git(tmp_path, "clone", "--quiet", str(tmp_path / "remote.git"), str(forger))
    path = forger / "claims" / f"{sess}.yml"
    text = path.read_text(encoding="utf-8")
    assert f"\nstatus: {old}\n" in text
    text = text.replace(f"\nstatus: {old}\n", f"\nstatus: {new}\n")
    path.write_text("".join(line for line in text.splitlines(keepends=True) if not line.startswith(drop)),
                    encoding="utf-8")
    git(forger, "commit", "--quiet", "-am", "edit by hand")
    git(forger, "push", "--quiet", "origin", "main")


@pytest.mark.parametrize("drop", [(), ("gate_origin:", "gate_message:")], ids=["status-line", "gate-fields-too"])
def test_a_remote_commit_that_sets_a_gated_claim_open_without_an_approval_lifts_no_gate(
        tree: Tree, tmp_path: Path, drop: tuple[str, ...]) -> None:
    _, sat_clone, _, sat = tree
    assert _bsi(sat_clone, "10:05", "--sync", "gate", "request", sat, "deploy ok?").code == 0
    # SPEC 6.3: an approval is a human's APPROVED in gate_history; this edit writes none
    _forge(tmp_path, sat, "waiting_human", "open", drop)
    assert _bsi(sat_clone, "10:07", "sync").code == 0
    assert _shown_at(sat_clone, sat)["status"] == "waiting_human", "a hand edit approved the gate"
    refused = _bsi(sat_clone, "10:08", "preflight", "check", sat, "proj/a.md")
    assert refused.code == 4, refused.out
    assert _bsi(sat_clone, "10:08", "claim", "close", sat, "--tests-total", "1", "--tests-passed", "1",
                "--tests-failed", "0").code == 12


@pytest.mark.parametrize("drop", [(), ("paused_by:", "paused_from:")], ids=["status-line", "pause-fields-too"])
def test_a_remote_commit_that_sets_a_paused_claim_open_without_a_resume_lifts_no_pause(
        tree: Tree, tmp_path: Path, drop: tuple[str, ...]) -> None:
    pilot_clone, sat_clone, pilot, sat = tree
    assert _bsi(pilot_clone, "10:05", "--sync", "gate", "pause", pilot, "hold").code == 0
    _forge(tmp_path, sat, "paused", "open", drop)
    assert _bsi(sat_clone, "10:07", "sync").code == 0
    assert _shown_at(sat_clone, sat)["status"] == "paused", "a hand edit lifted the human's pause"
    assert _bsi(sat_clone, "10:08", "preflight", "check", sat, "proj/a.md").code == 4
    # The human's own resume still lifts it (the satellite's own, once the edit took away whose pause it was).
    assert _bsi(pilot_clone, "10:09", "--sync", "gate", "resume", pilot).code == 0
    if drop:
        assert _bsi(pilot_clone, "10:09", "--sync", "gate", "resume", sat).code == 0
    assert _bsi(sat_clone, "10:10", "sync").code == 0
    assert _bsi(sat_clone, "10:11", "preflight", "check", sat, "proj/a.md").code == 0


def test_an_approval_pushed_first_never_lifts_a_pause_another_human_made_offline(tree: Tree) -> None:
    pilot_clone, sat_clone, _, sat = tree
    assert _bsi(sat_clone, "10:05", "--sync", "gate", "request", sat, "deploy ok?").code == 0
    assert _bsi(pilot_clone, "10:06", "sync").code == 0
    # Two humans decide about the same gated claim, offline: one pauses it, the other (pushed first) approves it.
    assert _bsi(pilot_clone, "10:07", "--offline", "gate", "pause", sat, "hold").code == 0
    assert _bsi(sat_clone, "10:07", "--sync", "gate", "approve", sat, "go").code == 0
    assert _bsi(pilot_clone, "10:08", "sync").code == 0
    for clone in (pilot_clone, sat_clone):
        assert _bsi(clone, "10:09", "sync").code == 0
        shown = _shown_at(clone, sat)
        assert shown["status"] == "paused", "the approval lifted a pause no human resumed"
        assert _bsi(clone, "10:10", "preflight", "check", sat, "proj/a.md").code == 4
    # The approval is kept: the human's resume gives the claim back open, not waiting for the gate again.
    assert _bsi(pilot_clone, "10:11", "--sync", "gate", "resume", sat).code == 0
    assert _bsi(sat_clone, "10:12", "sync").code == 0
    assert _shown_at(sat_clone, sat)["status"] == "open"
    assert _bsi(sat_clone, "10:12", "preflight", "check", sat, "proj/a.md").code == 0


def test_a_resume_pushed_first_never_undoes_an_abort_another_human_made_offline(tree: Tree) -> None:
    pilot_clone, sat_clone, pilot, sat = tree
    assert _bsi(pilot_clone, "10:05", "--sync", "gate", "pause", pilot, "hold").code == 0
    assert _bsi(sat_clone, "10:06", "sync").code == 0
    # One human aborts the paused tree offline; another resumes it and pushes first.
    assert _bsi(sat_clone, "10:07", "--offline", "gate", "abort", pilot, "wrong plan").code == 0
    assert _bsi(pilot_clone, "10:07", "--sync", "gate", "resume", pilot).code == 0
    assert _bsi(sat_clone, "10:08", "sync").code == 0
    for clone in (pilot_clone, sat_clone):
        assert _bsi(clone, "10:09", "sync").code == 0
        assert [_shown_at(clone, sess)["status"] for sess in (pilot, sat)] == ["failed", "failed"], \
            "a resume undid a human's abort"
        assert _bsi(clone, "10:10", "preflight", "check", sat, "proj/a.md").code == 4


@pytest.mark.parametrize(("held", "drop"), [("waiting_human", ("gate_origin:", "gate_message:")),
                                            ("paused", ("paused_by:", "paused_from:"))], ids=["gate", "pause"])
def test_a_remote_commit_that_marks_a_held_claim_stale_from_open_lets_no_late_close_past_the_hold(
        tree: Tree, tmp_path: Path, held: str, drop: tuple[str, ...]) -> None:
    pilot_clone, sat_clone, pilot, sat = tree
    if held == "paused":
        assert _bsi(pilot_clone, "10:05", "--sync", "gate", "pause", sat, "hold").code == 0
    else:
        assert _bsi(sat_clone, "10:05", "--sync", "gate", "request", sat, "deploy ok?").code == 0
    # SPEC 6.3: a late close is the owner's way out of a claim stale from `open` only; this edit writes no
    # human's decision, so the gate or pause it hides still holds (as for an edit to `open`).
    _forge(tmp_path, sat, held, "stale\nstale_from: open\nstale_since: '2026-11-29T10:06:00+00:00'", drop)
    assert _bsi(sat_clone, "10:07", "sync").code == 0
    closed = _bsi(sat_clone, "10:08", "claim", "close", sat, "--tests-total", "1", "--tests-passed", "1",
                  "--tests-failed", "0")
    assert closed.code == 12, "a late close went past a hold no human lifted"
    # The human still decides it: the gate is approved (renewed), the pause resumed (still stale, from open).
    verb = ["gate", "resume", sat] if held == "paused" else ["gate", "approve", sat, "go"]
    assert _bsi(pilot_clone, "10:09", "--sync", *verb).code == 0
