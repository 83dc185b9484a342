"""`bsi claim open|close|renew|release|show|list`, `check-scope`, `watchdog`: the SPEC 4–6, 11, 13, 19 contract."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.bsi import BSI, NOW, Run, clean_env, commits_since, git, head, last_commit, ok, run_bsi
from tests.conftest import claim_file, load_claim, tree_bytes

Bsi = Callable[..., Run]
ID_LINE = r"sess-20261129-1000-"


def open_claim(brain: Path, *args: str, now: str = NOW) -> str:
    """Open a claim and return its ID (stdout must be the ID alone)."""
    run = run_bsi("claim", "open", *args, brain=brain, now=now)
    assert run.code == 0, run.err
    assert run.out.endswith("\n") and run.out.count("\n") == 1, repr(run.out)
    return run.out.strip()


# -- open / show / list ---------------------------------------------------------------------------
def test_open_prints_the_id_alone_and_writes_the_spec_format(brain: Path, bsi: Bsi) -> None:
    before = head(brain)
    run = bsi("claim", "open", "--scope", "./brain-engine//server.py", "--ttl", "90m", "--story", "Implement BE-6",
              "--slug", "be6", "--instance", "prod@desktop", "--on-done", "notify → pilote", brain=brain)
    assert run.code == 0, run.err
    assert run.out == "sess-20261129-1000-be6\n"
    sess = run.out.strip()
    doc = load_claim(brain, sess)
    assert list(doc)[:9] == ["sess_id", "type", "instance", "scope", "story_angle", "status", "opened_at", "ttl",
                             "expires_at"]
    assert doc["sess_id"] == sess and doc["type"] == "solo" and doc["status"] == "open"
    assert doc["scope"] == "brain-engine/server.py"  # normalised
    assert doc["instance"] == "prod@desktop" and doc["story_angle"] == "Implement BE-6"
    assert doc["opened_at"] == "2026-11-29T10:00:00+00:00" and doc["expires_at"] == "2026-11-29T11:30:00+00:00"
    assert doc["ttl"] == "1h30m" and doc["on_done"] == "notify → pilote"
    assert commits_since(brain, before) == [f"bsi: open claim {sess}"]
    assert last_commit(brain)[1] == ["BRAIN-INDEX.md", f"claims/{sess}.yml"]


def test_open_json_show_and_list_shapes(brain: Path, bsi: Bsi) -> None:
    run = bsi("--json", "claim", "open", "--scope", "agents/", "--type", "pilote", "--slug", "pil", brain=brain)
    pilot = run.json()
    assert run.code == 0 and pilot["sess_id"] == "sess-20261129-1000-pil"
    assert pilot["status"] == "open" and pilot["scope"] == "agents/" and pilot["level"] == "pilote"
    assert pilot["tier"] == 3
    sat = ok(bsi("claim", "open", "--scope", "agents/x.md", "--parent", pilot["sess_id"], "--satellite-type", "code",
                 "--slug", "sat", brain=brain))
    shown = bsi("--json", "claim", "show", sat, brain=brain).json()
    assert shown["sess_id"] == sat and shown["type"] == "satellite" and shown["parent_satellite"] == pilot["sess_id"]
    assert (shown["level"], shown["tier"], shown["satellite_level"]) == ("leaf", 2, "leaf")
    text = bsi("claim", "show", sat, brain=brain)
    assert text.code == 0 and f"sess_id: {sat}" in text.out
    ok(bsi("claim", "close", sat, "--tests-total", "1", "--tests-passed", "1", "--tests-failed", "0", brain=brain))
    listed = bsi("--json", "claim", "list", brain=brain).json()
    assert set(listed) == {"claims", "corrupt"} and listed["corrupt"] == []
    assert [c["sess_id"] for c in listed["claims"]] == [pilot["sess_id"]]  # blocking claims only by default
    every = bsi("--json", "claim", "list", "--all", brain=brain).json()
    assert {c["sess_id"] for c in every["claims"]} == {pilot["sess_id"], sat}
    closed = bsi("--json", "claim", "list", "--status", "closed", brain=brain).json()
    assert [c["sess_id"] for c in closed["claims"]] == [sat]
    assert bsi("claim", "list", "--status", "bogus", brain=brain).code == 65
    assert sat in bsi("claim", "list", "--all", brain=brain).out


def test_two_claims_in_the_same_minute_with_the_same_slug_get_different_ids(brain: Path) -> None:
    first = open_claim(brain, "--scope", "a/", "--slug", "same")
    second = open_claim(brain, "--scope", "b/", "--slug", "same")
    assert first == "sess-20261129-1000-same"
    assert second != first and second.startswith(ID_LINE)
    assert claim_file(brain, first).exists() and claim_file(brain, second).exists()


def test_a_new_id_never_overwrites_a_corrupt_claim_file(brain: Path) -> None:
    bad = brain / "claims" / "sess-20261129-1000-dup.yml"
    bad.write_text("scope: elsewhere/\nsess_id: [unclosed\n")  # it may hold elsewhere/ (SPEC 22), not a/
    sess = open_claim(brain, "--scope", "a/", "--slug", "dup")
    assert sess != "sess-20261129-1000-dup"
    assert bad.read_text() == "scope: elsewhere/\nsess_id: [unclosed\n"


# -- the conflict matrix (SPEC 5.2, 5.3) ------------------------------------------------------------
@pytest.fixture(scope="module")
def matrix_brain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A brain holding a dir, a section, a file claim and a global search claim."""
    root = tmp_path_factory.mktemp("matrix") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    (root / "todo").mkdir()
    (root / "todo" / "brain.md").write_text("# todo\n\n## Sprint 3\n")
    ids = {
        "dir": open_claim(root, "--scope", "agents/", "--slug", "dir"),
        "section": open_claim(root, "--scope", "todo/brain.md#Sprint 3", "--slug", "section"),
        "file": open_claim(root, "--scope", "wiki/page.md", "--slug", "file"),
        "search": open_claim(root, "--scope", "*", "--satellite-type", "search", "--slug", "search"),
    }
    return {"root": root, "ids": ids}


#: The whole matrix is asked of `Brain` in tests/rules/test_scope_conflicts.py; here one case per exit code
#: and `--json` shape of `bsi check-scope` (10 with the conflicts, 0 free).
MATRIX = [
    # (new scope entries, conflicting holders, overlap kind)
    (["agents/x.md"], ["dir"], "parent/child"),
    (["agents-old/x.md"], [], None),
]


@pytest.mark.parametrize(("entries", "holders", "overlap"), MATRIX, ids=[" ".join(m[0]) for m in MATRIX])
def test_conflict_matrix_through_check_scope(matrix_brain: dict, entries: list[str], holders: list[str],
                                             overlap: str | None) -> None:
    root, ids = matrix_brain["root"], matrix_brain["ids"]
    run = run_bsi("--json", "check-scope", *entries, brain=root)
    assert run.code == (10 if holders else 0), run.err
    conflicts = run.json()["conflicts"]
    assert sorted(c["sess_id"] for c in conflicts) == sorted(ids[h] for h in holders)
    for conflict in conflicts:
        assert {"sess_id", "scope", "status", "overlap"} <= set(conflict)
        assert conflict["status"] == "open"
        if overlap:
            assert conflict["overlap"] == overlap
    assert ids["search"] not in {c["sess_id"] for c in conflicts}  # search claims never block


def test_a_refused_open_writes_nothing_and_names_every_conflict(matrix_brain: dict) -> None:
    root, ids = matrix_brain["root"], matrix_brain["ids"]
    before, files = head(root), tree_bytes(root)
    run = run_bsi("--json", "claim", "open", "--scope", "agents/x.md", "--scope", "wiki/", brain=root)
    assert run.code == 10
    doc = run.json()
    assert sorted(c["sess_id"] for c in doc["conflicts"]) == sorted([ids["dir"], ids["file"]])
    assert {c["overlap"] for c in doc["conflicts"]} == {"parent/child"}
    text = run_bsi("claim", "open", "--scope", "agents/x.md", brain=root)
    assert text.code == 10 and text.out == "" and ids["dir"] in text.err and "agents/" in text.err
    assert head(root) == before and tree_bytes(root) == files


def test_search_claims_are_never_blocked(matrix_brain: dict, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(matrix_brain["root"]), str(root)], check=True)
    assert run_bsi("check-scope", "agents/x.md", "--satellite-type", "search", brain=root).code == 0
    search = open_claim(root, "--scope", "agents/", "--scope", "todo/brain.md", "--satellite-type", "search")
    assert load_claim(root, search)["status"] == "open"
    # ...and an open search claim on everything blocks no one.
    assert open_claim(root, "--scope", "elsewhere/x.md")


def test_a_global_claim_blocks_everything(brain: Path, bsi: Bsi) -> None:
    everything = open_claim(brain, "--scope", "*", "--slug", "all")
    run = bsi("--json", "check-scope", "deep/inside/file.md", brain=brain)
    assert run.code == 10 and [c["sess_id"] for c in run.json()["conflicts"]] == [everything]


def test_delegation_along_the_tree_but_siblings_conflict(brain: Path, bsi: Bsi) -> None:
    pilot = open_claim(brain, "--scope", "brain-engine/", "--type", "pilote", "--slug", "pilot")
    sat = open_claim(brain, "--scope", "brain-engine/server.py", "--parent", pilot, "--satellite-type", "code",
                     "--slug", "sat")
    # a grandchild on the very same file: delegation along the whole chain
    grand = open_claim(brain, "--scope", "brain-engine/server.py", "--parent", sat, "--satellite-type", "test",
                       "--slug", "grand")
    assert load_claim(brain, grand)["parent_satellite"] == sat
    # a sibling on an overlapping scope conflicts with the sibling (and its descendant), not with the pilot
    run = bsi("--json", "claim", "open", "--scope", "brain-engine/", "--parent", pilot, "--satellite-type", "code",
              brain=brain)
    assert run.code == 10
    assert sorted(c["sess_id"] for c in run.json()["conflicts"]) == sorted([sat, grand])
    # a sibling on another file is fine
    assert open_claim(brain, "--scope", "brain-engine/other.py", "--parent", pilot, "--satellite-type", "code")
    # someone outside the tree meets the pilot
    outside = bsi("--json", "check-scope", "brain-engine/new.py", brain=brain)
    assert outside.code == 10 and [c["sess_id"] for c in outside.json()["conflicts"]] == [pilot]
    assert bsi("check-scope", "brain-engine/new.py", "--parent", pilot, brain=brain).code == 0


def test_unknown_parent_is_66_and_a_closed_parent_is_refused(brain: Path, bsi: Bsi) -> None:
    assert bsi("claim", "open", "--scope", "x/", "--parent", "sess-20261129-0900-ghost", brain=brain).code == 66
    assert bsi("claim", "open", "--scope", "x/", "--parent", "../etc", brain=brain).code == 65
    solo = open_claim(brain, "--scope", "x/")
    ok(bsi("claim", "close", solo, "--status", "ok", brain=brain))
    assert bsi("claim", "open", "--scope", "x/y.md", "--parent", solo, brain=brain).code == 12


# -- stale, watchdog, release ---------------------------------------------------------------------------
def test_stale_blocks_until_a_human_releases_it_with_a_reason(brain: Path, bsi: Bsi) -> None:
    sess = open_claim(brain, "--scope", "agents/", "--ttl", "90m")
    other = open_claim(brain, "--scope", "wiki/", "--ttl", "4h")
    early = bsi("watchdog", brain=brain, now="2026-11-29T11:29:00Z")
    assert early.code == 0 and early.out == "2 claims actifs, 0 stale détectés\n"
    before = head(brain)
    run = bsi("--json", "watchdog", brain=brain, now="2026-11-29T11:30:00Z")
    assert run.json() == {"active": 1, "stale": 1, "marked": [sess]}  # SPEC 19's shape, no more
    assert commits_since(brain, before) == [f"bsi: mark stale {sess}"]
    doc = load_claim(brain, sess)
    assert doc["status"] == "stale" and doc["stale_from"] == "open"
    assert doc["stale_since"] == "2026-11-29T11:30:00+00:00" and doc["stale_reason"] == "TTL expired without close"
    assert doc["gate_history"][-1]["event"] == "STALE"
    assert load_claim(brain, other)["status"] == "open"
    # hours later it still blocks: expired is not free, and nothing releases it automatically
    later = "2026-11-29T17:00:00Z"
    ok(bsi("watchdog", brain=brain, now=later))
    refused = bsi("--json", "claim", "open", "--scope", "agents/x.md", brain=brain, now=later)
    assert refused.code == 10 and refused.json()["conflicts"][0]["status"] == "stale"
    assert bsi("watchdog", brain=brain, now=later).out == "0 claims actifs, 2 stale détectés\n"
    # release needs a reason, and is the only way out besides the owner's close
    files = tree_bytes(brain)
    for args in ([], ["--reason", ""], ["--reason", "   "]):
        run = bsi("claim", "release", sess, *args, brain=brain, now=later)
        assert run.code == 65 and "reason" in run.err
    assert tree_bytes(brain) == files
    before = head(brain)
    ok(bsi("claim", "release", sess, "--reason", "session crashed: checked by hand", brain=brain, now=later))
    assert commits_since(brain, before) == [f"bsi: release {sess}"]
    doc = load_claim(brain, sess)
    assert doc["status"] == "released" and doc["gate_history"][-1]["event"] == "RELEASED"
    assert doc["gate_history"][-1]["by"] == "Ada Tester <ada@example.org>"
    assert doc["gate_history"][-1]["message"] == "session crashed: checked by hand"
    assert open_claim(brain, "--scope", "agents/x.md", now=later)
    assert bsi("claim", "release", other, "--reason", "again", brain=brain, now=later).code == 0
    assert bsi("claim", "release", sess, "--reason", "again", brain=brain, now=later).code == 12


def test_release_of_a_claim_that_is_not_stale_is_refused(brain: Path, bsi: Bsi) -> None:
    sess = open_claim(brain, "--scope", "a/")
    files = tree_bytes(brain)
    assert bsi("claim", "release", sess, "--reason", "why not", brain=brain).code == 12
    assert tree_bytes(brain) == files


# -- TTL ------------------------------------------------------------------------------------------------
# The TTL table is asked of `Brain` in tests/rules/test_ttl.py; `bsi` keeps one case accepted, one refused.
@pytest.mark.parametrize(("ttl", "expires"), [("2h30m", "2026-11-29T12:30:00+00:00")])
def test_ttl_accepted(brain: Path, ttl: str, expires: str) -> None:
    sess = open_claim(brain, "--scope", "a/", "--ttl", ttl)
    assert load_claim(brain, sess)["expires_at"] == expires


def test_default_ttl_is_two_hours(brain: Path) -> None:
    sess = open_claim(brain, "--scope", "a/")
    assert load_claim(brain, sess)["expires_at"] == "2026-11-29T12:00:00+00:00"


@pytest.mark.parametrize("flag", ["--ttl=9h", "--ttl="])
def test_ttl_refused_with_65_and_nothing_written(brain: Path, bsi: Bsi, flag: str) -> None:
    before, files = head(brain), tree_bytes(brain)
    run = bsi("claim", "open", "--scope", "a/", flag, brain=brain)
    assert run.code == 65 and run.out == ""
    assert len(run.err.strip().splitlines()) == 1 and "TTL" in run.err
    assert head(brain) == before and tree_bytes(brain) == files and git(brain, "status", "--porcelain") == ""


@pytest.mark.parametrize("branch", ["a b", "theme\nbe6", "x..y", "a~1", "a:b", "/x", "x/", "x.lock", ".x",
                                    "a//b", "a@{1}", "x*", "a/.b", "a.", "HEAD"])
def test_a_theme_branch_git_cannot_name_is_refused_with_65_and_nothing_written(brain: Path, bsi: Bsi,
                                                                             branch: str) -> None:
    """SPEC 13: bad data on the command line is exit 65, one line, nothing written. A `--theme-branch` that no git
    branch can be named (git check-ref-format) would leave a claim that preflight refuses for ever (exit 6, SPEC
    10), with a multi-line refusal when the name holds a newline."""
    before, files = head(brain), tree_bytes(brain)
    run = bsi("claim", "open", "--scope", "a/", "--theme-branch", branch, brain=brain)
    assert run.code == 65 and run.out == "", run
    assert len(run.err.strip().splitlines()) == 1 and "branch" in run.err
    assert head(brain) == before and tree_bytes(brain) == files


@pytest.mark.parametrize("branch", ["theme/be6", "feature/été-2026", "release-1.2", "main"])
def test_a_theme_branch_git_can_name_is_written(brain: Path, branch: str) -> None:
    sess = open_claim(brain, "--scope", "a/", "--theme-branch", branch)
    assert load_claim(brain, sess)["theme_branch"] == branch


def test_an_empty_ttl_given_to_renew_is_refused_not_taken_for_the_default(brain: Path, bsi: Bsi) -> None:
    """SPEC 6.4: a malformed TTL is 65; `--ttl ''` is given, and empty (as `--instance ''` or `--slug ''`)."""
    sess = open_claim(brain, "--scope", "a/")
    before, files = head(brain), tree_bytes(brain)
    run = bsi("claim", "renew", sess, "--ttl", "", brain=brain, now="2026-11-29T11:00:00Z")
    assert run.code == 65 and run.out == "" and len(run.err.strip().splitlines()) == 1 and "TTL" in run.err
    assert head(brain) == before and tree_bytes(brain) == files


def test_a_negative_ttl_given_as_a_separate_word_is_bad_data_not_usage(brain: Path, bsi: Bsi) -> None:
    assert bsi("claim", "open", "--scope", "a/", "--ttl", "-1h", brain=brain).code == 65


def test_renew_never_goes_past_eight_hours_after_opening(brain: Path, bsi: Bsi) -> None:
    sess = open_claim(brain, "--scope", "a/", "--ttl", "4h")
    before = head(brain)
    run = bsi("claim", "renew", sess, "--ttl", "4h", brain=brain, now="2026-11-29T13:00:00Z")
    assert run.code == 0 and "2026-11-29T17:00:00+00:00" in run.out
    assert commits_since(brain, before) == [f"bsi: renew claim {sess}"]
    assert last_commit(brain)[1] == ["BRAIN-INDEX.md", f"claims/{sess}.yml"]
    renewed = bsi("--json", "claim", "renew", sess, "--ttl", "8h", brain=brain, now="2026-11-29T16:00:00Z")
    assert renewed.json()["expires_at"] == "2026-11-29T18:00:00+00:00"  # clipped at opened + 8 h
    assert bsi("claim", "renew", sess, "--ttl", "9h", brain=brain, now="2026-11-29T16:00:00Z").code == 65
    assert bsi("--json", "watchdog", brain=brain, now="2026-11-29T17:59:00Z").json()["marked"] == []
    marked = bsi("--json", "watchdog", brain=brain, now="2026-11-29T18:00:00Z").json()
    assert marked["marked"] == [sess]
    assert bsi("claim", "renew", sess, brain=brain, now="2026-11-29T18:00:00Z").code == 12  # stale: no renew


def test_watchdog_marks_stale_at_eight_hours_whatever_the_written_expiry(brain: Path, bsi: Bsi) -> None:
    """A claim written by another tool with a far expiry still goes stale 8 h after opening."""
    path = brain / "claims" / "sess-20261129-1000-long.yml"
    path.write_text("sess_id: sess-20261129-1000-long\nscope: long/\nstatus: open\n"
                    "opened_at: 2026-11-29T10:00:00+00:00\nexpires_at: 2026-11-30T10:00:00+00:00\n")
    git(brain, "add", "claims")
    git(brain, "commit", "-q", "-m", "hand-written claim")
    assert bsi("--json", "watchdog", brain=brain, now="2026-11-29T17:59:00Z").json()["marked"] == []
    run = bsi("--json", "watchdog", brain=brain, now="2026-11-29T18:00:00Z")
    assert run.json()["marked"] == ["sess-20261129-1000-long"]
    doc = yaml.safe_load(path.read_text())
    assert doc["status"] == "stale" and "8 h" in doc["stale_reason"]


def test_a_claim_whose_ttl_expired_is_stale_for_its_ttl_even_past_eight_hours(brain: Path, bsi: Bsi) -> None:
    """SPEC 6.3: the watchdog's reason is "TTL expired without close" once the TTL ran out, however long ago."""
    eight = open_claim(brain, "--scope", "eight/", "--ttl", "8h")
    legacy = brain / "claims" / "sess-20261129-1000-old.yml"  # v2/v3: no expires_at, expiry = opened_at + 2 h
    legacy.write_text("sess_id: sess-20261129-1000-old\nscope: old/\nstatus: open\nopened_at: \"2026-11-29T10:00\"\n")
    git(brain, "add", "claims")
    git(brain, "commit", "-q", "-m", "legacy claim")
    run = bsi("--json", "watchdog", brain=brain, now="2026-11-30T10:00:00Z")
    assert sorted(run.json()["marked"]) == sorted([eight, "sess-20261129-1000-old"])
    for doc in (load_claim(brain, eight), yaml.safe_load(legacy.read_text())):
        assert doc["stale_reason"] == "TTL expired without close"
        assert doc["gate_history"][-1]["message"] == "TTL expired without close"


def test_the_owner_may_close_a_stale_claim_late(brain: Path, bsi: Bsi) -> None:
    sess = open_claim(brain, "--scope", "a/")
    ok(bsi("watchdog", brain=brain, now="2026-11-29T13:00:00Z"))
    before = head(brain)
    ok(bsi("claim", "close", sess, "--status", "ok", brain=brain, now="2026-11-29T13:05:00Z"))
    doc = load_claim(brain, sess)
    assert doc["status"] == "closed" and doc["closed_at"] == "2026-11-29T13:05:00+00:00"
    assert doc["result"]["status"] == "ok"
    assert commits_since(brain, before) == [f"bsi: close claim {sess}"]


# -- bad input -------------------------------------------------------------------------------------------
BAD_SCOPES = ["../x", "a/../../b", "/etc", "/etc/passwd", "a\x01b", "ag\x1b[31ments/", "x\x7f", "", "todo/brain.md#",
              "a\\b"]


def test_bad_scope_is_65_with_one_line_and_nothing_written(brain: Path, bsi: Bsi) -> None:
    before, files = head(brain), tree_bytes(brain)
    commands = [("claim", "open", "--scope", scope) for scope in BAD_SCOPES]
    commands += [("claim", "open", "--scope", "good/", "--scope", "../bad"), ("check-scope", "../x"),
                 ("check-scope", "/etc")]
    for command in commands:
        run = bsi(*command, brain=brain)
        assert run.code == 65, (command, run.err)
        assert run.out == "" and len(run.err.splitlines()) == 1 and "scope" in run.err, (command, run.err)
    assert head(brain) == before and tree_bytes(brain) == files
    assert git(brain, "status", "--porcelain") == ""


BAD_IDS = ["nope", "sess-a/b", "sess-../../etc/passwd", "../claims/x", "sess-", "sess-a b"]


def test_bad_ids_are_65(brain: Path, bsi: Bsi) -> None:
    files = tree_bytes(brain)
    commands = [("claim", "show", sess_id) for sess_id in BAD_IDS]
    for sess_id in ("sess-../../etc/passwd", "nope"):
        commands += [("claim", "close", sess_id, "--status", "ok"), ("claim", "renew", sess_id),
                     ("claim", "release", sess_id, "--reason", "x")]
    for command in commands:
        run = bsi(*command, brain=brain)
        assert run.code == 65, (command, run.code, run.err)
        assert "session ID" in run.err
    assert tree_bytes(brain) == files


def test_unknown_claim_is_66(brain: Path, bsi: Bsi) -> None:
    for command in (("claim", "show", "sess-20261129-0000-none"), ("claim", "renew", "sess-20261129-0000-none"),
                    ("claim", "close", "sess-20261129-0000-none", "--status", "ok")):
        run = bsi(*command, brain=brain)
        assert run.code == 66 and "not found" in run.err


@pytest.mark.parametrize("args", [("frobnicate",), ("claim", "frob"), ("claim", "open", "--scope", "a/", "--frob"),
                                  ("claim",), ("claim", "open"), ("--bogus", "claim", "list"), ()])
def test_unknown_command_or_flag_is_64(brain: Path, bsi: Bsi, args: tuple[str, ...]) -> None:
    run = bsi(*args, brain=brain)
    assert run.code == 64
    assert "usage" in run.err.lower() or "missing subcommand" in run.err


# -- discovery ------------------------------------------------------------------------------------------
def test_no_brain_is_66_naming_init_and_demo(tmp_path: Path, bsi: Bsi) -> None:
    for run in (bsi("claim", "list", cwd=tmp_path), bsi("claim", "list", brain=tmp_path / "missing", cwd=tmp_path)):
        assert run.code == 66
        assert "bsi init" in run.err and "--demo" in run.err


def test_discovery_by_flag_env_and_walking_up(brain: Path, bsi: Bsi, tmp_path: Path) -> None:
    sess = open_claim(brain, "--scope", "a/")
    deep = brain / "notes" / "deep"
    deep.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    runs = [
        bsi("claim", "list", brain=brain, cwd=elsewhere),
        bsi("claim", "list", cwd=elsewhere, env=clean_env(BRAIN_ROOT=str(brain))),
        bsi("claim", "list", cwd=deep),
    ]
    for run in runs:
        assert run.code == 0 and sess in run.out, run.err
    # $BRAIN_NOW stands in for --now
    env_now = bsi("--json", "watchdog", now=None, cwd=brain, env=clean_env(BRAIN_NOW="2026-11-29T13:00:00Z"))
    assert env_now.json()["marked"] == [sess]
    assert bsi("claim", "list", now="yesterday", brain=brain).code == 65


# -- git audit --------------------------------------------------------------------------------------------
def test_no_commit_leaves_the_change_in_the_working_tree(brain: Path, bsi: Bsi) -> None:
    before = head(brain)
    sess = ok(bsi("--no-commit", "claim", "open", "--scope", "a/", brain=brain))
    assert head(brain) == before
    status = git(brain, "status", "--porcelain").splitlines()
    assert sorted(status) == sorted([" M BRAIN-INDEX.md", f"?? claims/{sess}.yml"])


def test_each_mutating_command_makes_one_commit_of_exactly_its_files(brain: Path, bsi: Bsi) -> None:
    (brain / "other.md").write_text("another session's work\n")
    git(brain, "add", "other.md")
    steps: list[tuple[tuple[str, ...], str]] = []

    def step(*args: str, now: str = NOW) -> str:
        rev = head(brain)
        out = ok(bsi(*args, brain=brain, now=now))
        subjects = commits_since(brain, rev)
        assert len(subjects) == 1, (args, subjects)
        steps.append((args, subjects[0]))
        return out

    pilot = step("claim", "open", "--scope", "be/", "--type", "pilote", "--slug", "pil")
    assert last_commit(brain) == (f"bsi: open claim {pilot}", ["BRAIN-INDEX.md", f"claims/{pilot}.yml"])
    sat = step("claim", "open", "--scope", "be/x.md", "--parent", pilot, "--satellite-type", "brain-write",
               "--slug", "sat")
    assert last_commit(brain) == (f"bsi: open satellite {sat}", ["BRAIN-INDEX.md", f"claims/{sat}.yml"])
    step("claim", "renew", sat, "--ttl", "3h")
    assert last_commit(brain) == (f"bsi: renew claim {sat}", ["BRAIN-INDEX.md", f"claims/{sat}.yml"])
    step("claim", "close", sat, "--status", "ok", "--files", "be/x.md")
    subject, files = last_commit(brain)
    sig = load_claim(brain, sat)["result"]["signal_id"]
    assert subject == f"bsi: close satellite {sat}"
    assert files == ["BRAIN-INDEX.md", f"claims/{sat}.yml", f"signals/{sig}.yml"]
    solo = step("claim", "open", "--scope", "solo/", "--ttl", "1h")
    step("watchdog", now="2026-11-29T11:05:00Z")
    assert last_commit(brain) == (f"bsi: mark stale {solo}", ["BRAIN-INDEX.md", f"claims/{solo}.yml"])
    step("claim", "release", solo, "--reason", "gone", now="2026-11-29T11:05:00Z")
    assert last_commit(brain) == (f"bsi: release {solo}", ["BRAIN-INDEX.md", f"claims/{solo}.yml"])
    step("signal", "ack", sig)
    assert last_commit(brain) == (f"bsi: signal {sig} delivered", ["BRAIN-INDEX.md", f"signals/{sig}.yml"])
    step("claim", "close", pilot, "--status", "ok")
    assert last_commit(brain) == (f"bsi: close pilote {pilot} [orchestrated]",
                                  ["BRAIN-INDEX.md", f"claims/{pilot}.yml"])
    # the other session's staged file was never taken, and is still staged
    assert "other.md" not in git(brain, "log", "--name-only", "--format=").split()
    assert git(brain, "diff", "--cached", "--name-only").split() == ["other.md"]
    assert len(steps) == 9


# -- round trip and hostile text ----------------------------------------------------------------------------
HAND_WRITTEN = """\
# claim written by hand — keep this comment
sess_id: sess-20261129-0930-hand   # the session
type: solo
scope: hand/
custom_field: {keep: me, list: [1, 2]}   # unknown key
status: open
opened_at: "2026-11-29T09:30"
ttl: 2h
expires_at: "2026-11-29T11:30:00+00:00"
story_angle: 'it''s "quoted"'
zz_last: true
"""


def test_round_trip_edit_changes_only_the_edited_lines(brain: Path, bsi: Bsi) -> None:
    path = brain / "claims" / "sess-20261129-0930-hand.yml"
    path.write_text(HAND_WRITTEN)
    ok(bsi("claim", "renew", "sess-20261129-0930-hand", "--ttl", "4h", brain=brain, now="2026-11-29T10:00:00Z"))
    after = path.read_text()
    old_lines, new_lines = HAND_WRITTEN.splitlines(), after.splitlines()
    assert len(old_lines) == len(new_lines)
    changed = [(a, b) for a, b in zip(old_lines, new_lines, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1].startswith("expires_at:") and "2026-11-29T14:00:00" in changed[0][1]
    ok(bsi("claim", "close", "sess-20261129-0930-hand", "--status", "ok", brain=brain))
    closed = path.read_text()
    assert closed.startswith("# claim written by hand — keep this comment\nsess_id: sess-20261129-0930-hand   # the")
    assert "custom_field: {keep: me, list: [1, 2]}   # unknown key" in closed
    doc = yaml.safe_load(closed)
    assert doc["zz_last"] is True and doc["story_angle"] == "it's \"quoted\"" and doc["status"] == "closed"
    assert list(doc)[:5] == ["sess_id", "type", "scope", "custom_field", "status"]


HOSTILE = [
    'say "hi" and \'bye\'',
    "a # not a comment",
    "key: value: more",
    "line one\nline two\n\nline four",
    "escape \x1b[31mred\x1b[0m and bell \x07",
    ":@ ?# {a: [b]} & *x !tag %y | > -",
    "  leading and trailing  ",
    "nel\x85 ls\u2028 bom\ufeff zw\u200b bidi\u202e end",
    "[@click=app.quit] [ link=x]",
    "- dash",
    "null",
    "yes",
    "",
]


def test_hostile_story_survives_a_write_and_read_exactly(brain: Path, bsi: Bsi) -> None:
    ids = {open_claim(brain, "--scope", f"h{i}/", "--story", story): story for i, story in enumerate(HOSTILE)}
    for sess, story in ids.items():
        text = claim_file(brain, sess).read_text(encoding="utf-8")
        assert load_claim(brain, sess)["story_angle"] == story
        assert yaml.load(text, Loader=yaml.SafeLoader)["story_angle"] == story, text  # pure-Python reader agrees
    listed = bsi("--json", "claim", "list", brain=brain).json()["claims"]
    assert {c["sess_id"]: c["story_angle"] for c in listed} == ids
    renewed = list(ids)[:5]
    for sess in renewed:
        ok(bsi("claim", "renew", sess, "--ttl", "3h", brain=brain))
        assert load_claim(brain, sess)["story_angle"] == ids[sess]


def test_invalid_utf8_text_is_refused_not_crashed(brain: Path) -> None:
    cmd = [*BSI, "--brain", str(brain), "--now", NOW,
           "claim", "open", "--scope", "a/", "--story", b"bad \xff byte"]
    proc = subprocess.run(cmd, capture_output=True, env=clean_env(), check=False)
    assert proc.returncode == 65, proc.stderr
    assert b"Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert git(brain, "status", "--porcelain") == ""


def test_list_shows_no_ttl_for_a_closed_claim(brain: Path, bsi: Bsi) -> None:
    sess = bsi("claim", "open", "--scope", "wiki/", "--slug", "done", brain=brain).out.strip()
    assert bsi("claim", "close", sess, "--status", "ok", brain=brain).code == 0
    row = next(line for line in bsi("claim", "list", "--all", brain=brain).out.splitlines() if sess in line)
    assert row.split()[1] == "closed"
    assert row.split()[4] == "—", row


def test_renew_of_a_claim_without_ttl_uses_the_brain_default(brain: Path) -> None:
    """One default TTL: a legacy claim without `ttl:` reads as expiring at +ttl_default and renews by it too."""
    (brain / "brain-compose.yml").write_text("ttl_default: 4h\n", encoding="utf-8")
    (brain / "claims" / "sess-20261129-0900-leg.yml").write_text(
        "sess_id: sess-20261129-0900-leg\nstatus: open\nscope: notes/\nopened_at: 2026-11-29T09:00:00Z\n",
        encoding="utf-8")
    shown = run_bsi("--json", "claim", "show", "sess-20261129-0900-leg", brain=brain)
    assert shown.code == 0, shown.err
    assert shown.json()["expires_at"].startswith("2026-11-29T13:00")
    renewed = run_bsi("--json", "claim", "renew", "sess-20261129-0900-leg", brain=brain)
    assert renewed.code == 0, renewed.err
    after = run_bsi("--json", "claim", "show", "sess-20261129-0900-leg", brain=brain).json()
    assert after["expires_at"].startswith("2026-11-29T14:00"), after["expires_at"]


def test_show_prints_the_claim_file_with_its_hidden_characters_visible(brain: Path, bsi: Bsi) -> None:
    story = "fix \u202eevil\u202c and \u200bhidden\tkept"
    sess = ok(bsi("claim", "open", "--scope", "src/", "--story", story, brain=brain))
    shown = ok(bsi("claim", "show", sess, brain=brain))
    assert "\u202e" not in shown and "\u200b" not in shown
    assert "⟨U+202E⟩evil⟨U+202C⟩" in shown and "⟨U+200B⟩hidden" in shown
    assert f"sess_id: {sess}\n" in shown and "scope: src/\n" in shown  # the file's lines and indentation as written
    assert load_claim(brain, sess)["story_angle"] == story  # stored as given (SPEC 13)


def test_claim_list_shows_hostile_words_of_a_claim_file_as_placeholders(brain: Path) -> None:
    # A status written by hand (another session's text) reaches the terminal only as placeholders: an
    # escape sequence in the table would recolour, retitle or clear the pilot's terminal (SPEC 15).
    sess = open_claim(brain, "--scope", "wiki/")
    path = claim_file(brain, sess)
    text = path.read_text(encoding="utf-8")
    text = text.replace("status: open", 'status: "open\\e]0;owned\\a\\e[5m\\u202e"')
    path.write_text(text, encoding="utf-8")
    run = run_bsi("claim", "list", "--all", brain=brain)
    assert run.code == 0, run.err
    assert "\x1b" not in run.out and "\x07" not in run.out and "\u202e" not in run.out
    assert "open⟨ESC⟩]0;owned⟨BEL⟩⟨ESC⟩[5m⟨U+202E⟩" in run.out
