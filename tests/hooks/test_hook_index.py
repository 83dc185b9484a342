"""The hook index shortcut: fast for a write nothing can refuse, never a refusal the core would not make, and
never a go the core would refuse."""

from __future__ import annotations

import itertools
import json
import subprocess
import time
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.paths.layout import HOOK_INDEX_FILE
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules import preflight
from brain_tui.core.rules.conflicts import find_conflicts
from brain_tui.core.sessions import hook_index
from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.clock import clock_ahead, in_process
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


def settle(brain: Path) -> dict[str, object]:
    """Let the index be written by one slow hook run, then outlive the racy window; answer it.

    In process the window is outlived on the hook's clock (`clock_ahead`), in a `bsi` process by waiting.
    """
    hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "zz-nothing" / "x")))
    past_racy_window = hook_index.RACY_NS / 1e9 + 0.2
    (brain / HOOK_INDEX_FILE).unlink()
    if in_process():
        with clock_ahead(past_racy_window):
            hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "zz-nothing" / "x")))
    else:
        time.sleep(past_racy_window)
        hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "zz-nothing" / "x")))
    index = hook_index.load(brain)
    assert index is not None, "the index should be settled and valid"
    return index


def imported_by_hook(brain: Path, payload: dict[str, object]) -> tuple[int, set[str]]:
    cmd = bsi_command("hook", "pre-tool-use", brain=brain, now=NOW, python=("-X", "importtime"))
    done = subprocess.run(cmd, input=json.dumps(payload), capture_output=True, text=True, env=clean_env(),
                          check=False)
    names = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done.returncode, names


def test_a_bound_in_scope_write_imports_no_core_model_nor_yaml(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", "--agent-session", AGENT, brain=brain))
    settle(brain)
    code, names = imported_by_hook(brain, event(brain, "Edit", str(brain / "src" / "a.py")))
    assert code == 0
    heavy = {"brain_tui.core.brain", "brain_tui.core.records.model", "brain_tui.core.records.store",
             "ruamel.yaml", "yaml", "argparse", "textual", "rich", "typing", "dataclasses", "sqlite3", "subprocess"}
    assert not names & heavy, names & heavy
    code, names = imported_by_hook(brain, event(brain, "Edit", str(brain / "docs" / "a.py")))
    assert code == 2 and "brain_tui.core.rules.preflight" in names  # a refusal always comes from the core


def test_the_index_goes_stale_on_every_change_that_matters(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", "--agent-session", AGENT, brain=brain))
    settle(brain)
    target = event(brain, "Edit", str(brain / "src" / "a.py"))
    assert_allowed(hook(brain, "pre-tool-use", target))
    path = brain / "claims" / f"{sess}.yml"
    text = path.read_text()
    with open(path, "r+", encoding="utf-8") as handle:  # an in-place edit: same inode, same folder mtime
        handle.write(text.replace("status: open", "status: paused"))
        handle.truncate()
    assert hook_index.load(brain) is None
    assert_denied(hook(brain, "pre-tool-use", target), "paused")
    path.write_text(text)
    settle(brain)
    holder = ok(run_bsi("claim", "open", "--scope", "elsewhere/", "--slug", "other", brain=brain))  # locks need claims
    settle(brain)
    ok(run_bsi("lock", "acquire", "src/a.py", holder, brain=brain))
    assert hook_index.load(brain) is None
    assert_denied(hook(brain, "pre-tool-use", target), "locked")
    other = ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "d", brain=brain))
    settle(brain)
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "docs" / "x"), session="z")), other)
    (brain / "brain-compose.yml").write_text("hooks:\n  unclaimed_writes: deny\n")
    assert hook_index.load(brain) is None


def test_the_shortcut_never_says_go_where_the_core_refuses(demo_brain: Path) -> None:
    brain = Brain(demo_brain, now=NOW, commit=False)
    snapshot = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    index = hook_index.build(demo_brain, snapshot, brain.config)
    full = brain.snapshot()
    files = {f"{e.path}/x.md" if e.kind == "dir" else e.path for c in full.claims for e in c.scope if e.path}
    files |= {"README.md", "agents/KERNEL.md", "CLAUDE.md", "profil/capital.md", "projets/a.md", "x/y/z.py"}
    now = full.now.timestamp()
    checked = agreed = 0
    for claim, rel in itertools.product(full.claims, sorted(files)):
        if hook_index.may_write(index, claim.sess_id, rel, now):
            checked += 1
            preflight.check(full, brain.config, claim.sess_id, rel, lambda: "main")
            agreed += 1
    for rel in sorted(files):
        if hook_index.unclaimed_free(index, rel):
            entries = parse_scope([rel], demo_brain)
            assert find_conflicts(snapshot, entries) == [], rel
    assert checked == agreed and checked > 0


def test_may_write_answers_no_on_every_refusal_it_knows(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", brain=brain))
    b = Brain(brain, now=NOW, commit=False)
    index = hook_index.build(brain, b.snapshot(), b.config)
    now = b.now().timestamp()
    assert hook_index.may_write(index, sess, "src/a.py", now)
    for rel in ("docs/a.py", "src", "src/../x", "src/\x1bx", "", "src//a"):
        assert not hook_index.may_write(index, sess, rel, now), rel
    assert not hook_index.may_write(index, sess, "src/a.py", now + 3 * 3600)
    assert not hook_index.may_write(index, "sess-unknown", "src/a.py", now)
    assert not hook_index.unclaimed_free(index, "src/a.py") and hook_index.unclaimed_free(index, "docs/a.py")
    try:
        preflight.check(b.snapshot(), b.config, sess, "docs/a.py")
    except BsiError as exc:
        assert exc.exit_code == 1


def test_the_index_goes_stale_when_head_moves_without_a_file_of_the_work_tree(brain: Path) -> None:
    # a pause in force from HEAD alone (git's plumbing: the claim files of the work tree untouched) holds the
    # session back (the stricter copy stands): the index built before must not vouch for the write
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", "--agent-session", AGENT, brain=brain))
    settle(brain)
    target = event(brain, "Edit", str(brain / "src" / "a.py"))
    assert_allowed(hook(brain, "pre-tool-use", target))
    rel = f"claims/{sess}.yml"
    paused = (brain / rel).read_text(encoding="utf-8").replace("status: open", "status: paused")

    def git(*args: str, data: str | None = None) -> str:
        return subprocess.run(["git", *args], cwd=brain, input=data, capture_output=True, text=True,
                              check=True).stdout.strip()

    oid = git("hash-object", "-w", "--stdin", data=paused)
    git("update-index", "--cacheinfo", f"100644,{oid},{rel}")
    git("commit", "-qm", "a pause made in git only")
    assert "status: open" in (brain / rel).read_text(encoding="utf-8")
    assert hook_index.load(brain) is None
    assert_denied(hook(brain, "pre-tool-use", target), "paused")


def test_the_shortcut_says_no_to_two_claims_a_hand_merge_left_on_one_scope(brain: Path) -> None:
    # Two open claims on one scope: the protocol never opens them, a hand `git pull` or `git revert` can leave them.
    # The core refuses both (preflight 4); the index must not vouch for either.
    first = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "one", brain=brain))
    second_doc = (brain / "claims" / f"{first}.yml").read_text(encoding="utf-8")
    second = first.replace(first.rsplit("-", 1)[1], "merged")
    (brain / "claims" / f"{second}.yml").write_text(second_doc.replace(first, second), encoding="utf-8")
    b = Brain(brain, now=NOW, commit=False)
    snapshot = b.snapshot()
    index = hook_index.build(brain, b.snapshot(only_statuses=BLOCKING_STATUSES), b.config)
    now = b.now().timestamp()
    for sess in (first, second):
        try:
            preflight.check(snapshot, b.config, sess, "src/a.py")
        except BsiError as exc:
            assert exc.exit_code == 4, exc.message
        else:
            raise AssertionError(f"{sess} may write src/a.py beside another holder")
        assert not hook_index.may_write(index, sess, "src/a.py", now), sess


@pytest.mark.parametrize("status", ["[open]", "weird", "'42'", "{a: 1}"])
def test_a_claim_whose_status_the_product_does_not_know_still_denies_an_unbound_write(brain: Path,
                                                                                     status: str) -> None:
    """A hand edit or a bad merge leaves a status the product does not know: the core holds it blocking (SPEC 22,
    fail closed); the settled index left it out and let an unbound write under its scope through."""
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", brain=brain))
    path = brain / "claims" / f"{sess}.yml"
    path.write_text(path.read_text().replace("status: open", f"status: {status}"))
    subprocess.run(["git", "-C", str(brain), "commit", "-qam", "hand edit"], check=True, env=clean_env(identity="T"))
    assert run_bsi("check-scope", "src/a.py", brain=brain).code == 10  # the core: it blocks
    settle(brain)
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), session="agent-x")),
                  sess)


@pytest.mark.parametrize("dropped", [("sess_id", "scope"), ("sess_id", "scope", "type", "instance")])
def test_a_claim_edited_to_name_no_id_and_no_scope_still_denies_an_unbound_write(brain: Path,
                                                                                 dropped: tuple[str, ...]) -> None:
    """A hand edit that removes a live claim's ID and scope leaves a claim that does not read (SPEC 22: it holds the
    whole brain until repaired); it was read as a file that is not a claim, and its scope went free."""
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", brain=brain))
    path = brain / "claims" / f"{sess}.yml"
    kept = [line for line in path.read_text().splitlines(keepends=True) if line.split(":", 1)[0] not in dropped]
    path.write_text("".join(kept))
    subprocess.run(["git", "-C", str(brain), "commit", "-qam", "hand edit"], check=True, env=clean_env(identity="T"))
    assert run_bsi("check-scope", "src/a.py", brain=brain).code == 10
    assert run_bsi("claim", "open", "--scope", "docs/", "--story", "t", brain=brain).code == 10
    settle(brain)
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"), session="agent-x")),
                  sess)
