"""`bsi hook pre-tool-use` and its index follow symlinks as the core does: a write through `alias -> real`
is a write of `real/`, and a write below the brain through a link to a folder elsewhere is the brain path
written, which a claim may hold (SPEC 5.2, 20.2)."""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.paths import path_keys
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules import preflight
from brain_tui.core.rules.conflicts import find_conflicts
from brain_tui.core.sessions import hook_index
from tests.bsi import NOW, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


def make_links(brain: Path, tmp_path: Path) -> None:
    (brain / "real").mkdir()
    (brain / "alias").symlink_to("real")
    (brain / "link.md").symlink_to("real/x.md")
    (tmp_path / "outside").mkdir()
    (brain / "ext").symlink_to(tmp_path / "outside")


def test_an_unbound_write_through_a_link_meets_the_holder(brain: Path, tmp_path: Path) -> None:
    make_links(brain, tmp_path)
    real = ok(run_bsi("claim", "open", "--scope", "alias/", "--slug", "real", brain=brain))
    ext = ok(run_bsi("claim", "open", "--scope", "ext/", "--slug", "ext", brain=brain))
    for path, holder in ((brain / "real" / "x.md", real), (brain / "link.md", real), (brain / "alias" / "y.md", real),
                         (brain / "ext" / "a.md", ext)):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(path), session="nobody")), holder)
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Write", str(tmp_path / "outside" / "a.md"),
                                                     session="nobody")))


def test_a_bound_write_through_its_own_link_is_its_own_file(brain: Path, tmp_path: Path) -> None:
    make_links(brain, tmp_path)
    ok(run_bsi("claim", "open", "--scope", "alias/", "--scope", "ext/", "--agent-session", AGENT, brain=brain))
    for path in (brain / "alias" / "x.md", brain / "real" / "x.md", brain / "link.md", brain / "ext" / "b.md"):
        assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(path))))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "notes.md"))), "scope violation")


def test_the_index_shortcut_never_says_go_through_a_link_the_core_refuses(brain: Path, tmp_path: Path) -> None:
    make_links(brain, tmp_path)
    sess = ok(run_bsi("claim", "open", "--scope", "alias/", "--agent-session", AGENT, "--slug", "mine", brain=brain))
    other = ok(run_bsi("claim", "open", "--scope", "ext/", "--scope", "notes.md#Sprint", "--slug", "other",
                       brain=brain))
    ok(run_bsi("lock", "acquire", "alias/locked.md", other, brain=brain))
    b = Brain(brain, now=NOW, commit=False)
    snapshot = b.snapshot(only_statuses=BLOCKING_STATUSES)
    index = hook_index.build(brain, snapshot, b.config)
    now = b.now().timestamp()
    written = ["alias/x.md", "real/x.md", "link.md", "alias/locked.md", "real/locked.md", "ext/a.md", "ALIAS/x.md",
               "free.md"]
    rels = [rel for rel in (path_keys.brain_target(brain, str(brain / w)) for w in written) if rel]
    for claim_id in (sess, other):
        for rel in rels:
            if hook_index.may_write(index, claim_id, rel, now):
                preflight.check(b.snapshot(), b.config, claim_id, rel, lambda: "main")
    for rel in ("real/locked.md", "alias/locked.md"):
        assert not hook_index.may_write(index, sess, path_keys.brain_target(brain, str(brain / rel)) or "", now)
        try:
            preflight.check(b.snapshot(), b.config, sess, rel, lambda: "main")
        except BsiError as exc:
            assert exc.exit_code == 2, exc
        else:
            raise AssertionError(f"{rel} is locked by {other}")
    for rel in rels:
        if hook_index.unclaimed_free(index, rel):
            assert find_conflicts(snapshot, parse_scope([rel], brain)) == [], rel
    assert hook_index.unclaimed_free(index, "free.md")


def test_a_link_made_or_unmade_after_the_index_is_seen(brain: Path) -> None:
    from tests.hooks.test_hook_index import settle

    (brain / "real").mkdir()
    (brain / "old").mkdir()
    (brain / "was-link").symlink_to("old")
    holder = ok(run_bsi("claim", "open", "--scope", "alias/", "--scope", "was-link/", "--slug", "holder",
                        brain=brain))
    settle(brain)
    into_real = event(brain, "Write", str(brain / "real" / "x.md"), session="nobody")
    assert hook(brain, "pre-tool-use", into_real).returncode == 0
    (brain / "alias").symlink_to("real")
    assert hook_index.load(brain) is None
    assert_denied(hook(brain, "pre-tool-use", into_real), holder)
    settle(brain)
    (brain / "was-link").unlink()
    (brain / "was-link").mkdir()
    assert hook_index.load(brain) is None
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "was-link" / "y.md"),
                                                    session="nobody")), holder)


def test_a_link_into_another_brain_is_a_write_there_too(brain: Path, tmp_path: Path) -> None:
    from tests.hooks.test_hook_index import settle

    other = tmp_path / "other-brain"
    ok(run_bsi("init", str(other), cwd=tmp_path))
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "d", brain=other))
    ok(run_bsi("claim", "open", "--scope", "sub/", "--story", "s", "--agent-session", AGENT, brain=brain))
    (brain / "sub").mkdir()
    (brain / "sub" / "ext").symlink_to(other)  # made in the session's own scope
    settle(brain)
    for tool in ("Write", "Edit"):  # the second with the index of this brain valid: the shortcut is asked first
        assert_denied(hook(brain, "pre-tool-use", event(brain, tool, str(brain / "sub/ext/claims" / f"{holder}.yml"))),
                      "protocol file of the brain at")
        assert_denied(hook(brain, "pre-tool-use", event(brain, tool, str(brain / "sub/ext/docs/x.md"))), holder)
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "sub/ext/notes.md"))))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "sub/ext/notes.md"), session="x")),
                  "sub/ext/notes.md")  # an unbound session: held here by the claim on sub/
