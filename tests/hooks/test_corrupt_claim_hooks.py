"""`bsi hook pre-tool-use` with a claim file that does not read: it fails closed (SPEC 22, 20.2).

An unbound agent's write into what the file may hold is denied naming the file's claim; a bound agent
whose own scope meets it is denied by the preflight; the hook's fast index never says go instead.
"""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.sessions import hook_index
from tests.bsi import NOW, ok, run_bsi
from tests.cli.test_corrupt_claims import hand_merge
from tests.conftest import claim_file
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


def test_an_unbound_write_into_a_hand_merged_claims_scope_is_denied(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    hand_merge(claim_file(brain, holder), "docs/", "docs/guide.md")
    for _twice in range(2):  # the second run may read the hook index the first one wrote
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "docs" / "x.md"),
                                                        session="nobody")), holder, "corrupt",
                      f"`bsi claim repair {holder}`")
    done = hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "notes.md"), session="nobody"))
    assert done.returncode == 0, done


def test_a_bound_write_into_what_a_corrupt_file_may_hold_is_denied(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    ok(run_bsi("claim", "open", "--scope", "shared/", "--agent-session", AGENT, "--slug", "mine", brain=brain))
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "shared" / "x.md"))))
    hand_merge(claim_file(brain, holder), "docs/", "shared/")
    for _twice in range(2):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "shared" / "x.md"))),
                      f"claims/{holder}.yml")


def test_the_index_shortcut_never_says_go_beside_a_corrupt_claim_file(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--slug", "aaaa", brain=brain))
    mine = ok(run_bsi("claim", "open", "--scope", "shared/", "--agent-session", AGENT, "--slug", "mine",
                      brain=brain))
    b = Brain(brain, now=NOW, commit=False)
    now = b.now().timestamp()
    index = hook_index.build(brain, b.snapshot(only_statuses=BLOCKING_STATUSES), b.config)
    assert hook_index.may_write(index, mine, "shared/x.md", now)
    hand_merge(claim_file(brain, holder), "docs/", "shared/")
    index = hook_index.build(brain, b.snapshot(only_statuses=BLOCKING_STATUSES), b.config)
    assert not hook_index.may_write(index, mine, "shared/x.md", now)
    assert not hook_index.unclaimed_free(index, "shared/x.md")
