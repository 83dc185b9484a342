"""A parent chain edited by hand into a cycle never locks a human out of lifting a pause (SPEC 6.3)."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import INHERITED_ENV, git, ok, run_bsi

AA, BB = "sess-20261129-1000-aa", "sess-20261129-1000-bb"


def test_a_pause_over_a_parent_cycle_is_lifted_by_resuming_the_claim_paused(tmp_path: Path) -> None:
    brain = tmp_path / "brain"
    ok(run_bsi("init", str(brain)))
    ok(run_bsi("claim", "open", "--scope", "notes/", "--slug", "aa", brain=brain))
    ok(run_bsi("claim", "open", "--scope", "notes/x.md", "--parent", AA, "--slug", "bb", brain=brain))
    path = brain / "claims" / f"{AA}.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: open", f"parent_satellite: {BB}\nstatus: open"),
                    encoding="utf-8")
    git(brain, "commit", "--quiet", "-am", "a parent cycle, by hand", env=INHERITED_ENV)
    ok(run_bsi("gate", "pause", AA, brain=brain))
    # Each of the two is the other's ancestor: resuming the one a human paused lifts the pause it cascaded.
    resumed = run_bsi("gate", "resume", AA, brain=brain)
    assert resumed.code == 0, resumed.err
    for sess in (AA, BB):
        assert run_bsi("--json", "claim", "show", sess, brain=brain).json()["status"] == "open"


def test_a_paused_by_naming_a_child_is_no_cycle_the_child_stays_held(tmp_path: Path) -> None:
    """A `paused_by:` edited to name a child of the paused claim, with no parent cycle: the cycle's exemption does
    not apply, so resuming the child (a pause its parent laid) is refused while the parent stays paused."""
    brain = tmp_path / "brain"
    ok(run_bsi("init", str(brain)))
    ok(run_bsi("claim", "open", "--scope", "notes/", "--slug", "aa", brain=brain))
    ok(run_bsi("claim", "open", "--scope", "notes/x.md", "--parent", AA, "--slug", "bb", brain=brain))
    ok(run_bsi("gate", "pause", AA, brain=brain))
    path = brain / "claims" / f"{AA}.yml"
    path.write_text(path.read_text(encoding="utf-8").replace(f"paused_by: {AA}", f"paused_by: {BB}"),
                    encoding="utf-8")
    git(brain, "commit", "--quiet", "-am", "paused_by names the child, by hand", env=INHERITED_ENV)
    refused = run_bsi("gate", "resume", BB, brain=brain)
    assert refused.code == 12 and AA in refused.err, refused
    for sess in (AA, BB):
        assert run_bsi("--json", "claim", "show", sess, brain=brain).json()["status"] == "paused"
    # the claim a human paused still resumes, and lifts the pause it laid on its child
    ok(run_bsi("gate", "resume", AA, brain=brain))
    for sess in (AA, BB):
        assert run_bsi("--json", "claim", "show", sess, brain=brain).json()["status"] == "open"
