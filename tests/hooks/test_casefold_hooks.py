"""`bsi hook pre-tool-use` folds case and Unicode form as the core does: on macOS `CLAIMS/x.yml` is the
protocol folder `claims/`, and `SRC/a.py` is a file of the claim on `src/` (SPEC 5, 20.2)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules import preflight
from brain_tui.core.rules.conflicts import find_conflicts
from brain_tui.core.sessions import hook_index
from tests.bsi import NOW, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


@pytest.mark.parametrize("rel", ["CLAIMS/x.yml", "Claims/sess-x.yml", "SIGNALS/s.yml", "Locks/a.yml",
                                 "BREATH/s.yml", "brain-index.md", "Brain-Index.MD", ".BRAIN/agents/x.json",
                                 "CLAIMS"])
def test_a_respelled_protocol_file_is_denied_bound_or_not(brain: Path, rel: str) -> None:
    ok(run_bsi("claim", "open", "--scope", "*", "--agent-session", AGENT, brain=brain))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / rel))), "protocol file", "bsi")
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / rel), session="other")),
                  "protocol file")


def test_a_respelled_write_into_another_scope_is_denied(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--scope", "Café.md", "--slug", "holder", brain=brain))
    for rel in ("SRC/a.py", "Src/deep/b.py", unicodedata.normalize("NFD", "CAFÉ.md")):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / rel), session="someone-else")),
                      holder)
    mine = ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", AGENT, "--slug", "mine",
                      brain=brain))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "SRC" / "a.py"))),
                  "scope violation", mine)


def test_a_respelled_write_inside_the_own_claim_is_its_file(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=brain))
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "SRC" / "app.py"))))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "SRCX" / "app.py"))),
                  "scope violation")


def test_a_satellite_writing_a_respelled_kernel_file_or_locked_file_is_denied(brain: Path) -> None:
    pilot = ok(run_bsi("claim", "open", "--scope", "*", "--slug", "pilot", brain=brain))
    ok(run_bsi("claim", "open", "--scope", "agents/", "--scope", "shared/", "--parent", pilot, "--slug", "sat",
               "--agent-session", AGENT, brain=brain))
    other = ok(run_bsi("claim", "open", "--scope", "elsewhere/", "--parent", pilot, "--slug", "other", brain=brain))
    ok(run_bsi("lock", "acquire", "shared/README.md", other, brain=brain))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "AGENTS" / "x.md"))), "zone")
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "Shared" / "readme.md"))),
                  "locked", other)


def test_the_index_shortcut_never_says_go_to_a_respelled_path_the_core_refuses(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--scope", "Plan.md#Sprint", "--agent-session", AGENT,
                      brain=brain))
    pilot = ok(run_bsi("claim", "open", "--scope", "Team/", "--scope", "Agents/", "--slug", "pilot", brain=brain))
    sat = ok(run_bsi("claim", "open", "--scope", "team/agents/", "--scope", "agents/", "--parent", pilot,
                     "--slug", "sat", brain=brain))
    ok(run_bsi("lock", "acquire", "src/Locked.py", pilot, brain=brain))
    b = Brain(brain, now=NOW, commit=False)
    snapshot = b.snapshot(only_statuses=BLOCKING_STATUSES)
    index = hook_index.build(brain, snapshot, b.config)
    now = b.now().timestamp()
    rels = ["src/a.py", "SRC/a.py", "Src/LOCKED.py", "src/locked.py", "plan.md", "PLAN.MD", "team/x.md",
            "TEAM/x.md", "Team/Agents/x.md", "AGENTS/x.md", "free.md", "CLAIMS/x.yml", "Plan.md/x", "SRC", "team"]
    for claim_id in (sess, pilot, sat):
        for rel in rels:
            if hook_index.may_write(index, claim_id, rel, now):
                preflight.check(b.snapshot(), b.config, claim_id, rel, lambda: "main")
    for rel in ("src/locked.py", "SRC/LOCKED.py"):
        assert not hook_index.may_write(index, sess, rel, now), rel
        with pytest.raises(BsiError):
            preflight.check(b.snapshot(), b.config, sess, rel, lambda: "main")
    assert not hook_index.may_write(index, sat, "AGENTS/x.md", now)
    for rel in rels:
        if hook_index.unclaimed_free(index, rel):
            assert find_conflicts(snapshot, parse_scope([rel], brain)) == [], rel
    for rel in ("SRC/a.py", "TEAM/x.md", "team/x.md", "PLAN.MD", "plan.md/x", "SRC", "team"):
        assert not hook_index.unclaimed_free(index, rel), rel
    assert hook_index.unclaimed_free(index, "free.md")


def test_a_respelled_brain_folder_is_the_brain(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--slug", "holder", brain=brain))
    respelled = brain.parent / "BRAIN"
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(respelled / "Claims" / "x.yml"),
                                                     session="other")), "protocol file")
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(respelled / "src" / "a.py"),
                                                     session="other")), holder)
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Write", str(brain.parent / "brainx" / "a.py"),
                                                      session="other")))
