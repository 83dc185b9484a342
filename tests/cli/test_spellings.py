"""Second spellings of one file that a supported file system folds are one scope; lookalikes that every one of
them keeps apart stay two (SPEC 5.1, 5.2): HFS+ (macOS disks) ignores the zero-width joiners and direction marks
in names, APFS and ext4 keep Cyrillic `а` and Latin `a`, `／` and `/`, distinct."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.hooks.test_pre_tool_use import assert_denied, event, hook
from tests.refusals import assert_second_name_refused


# The tables of ignored code points and of lookalikes are asked of `Brain` in tests/rules/test_scope_conflicts.py;
# `bsi` keeps one case of each (exit 10, exit 0).
@pytest.mark.parametrize(("held", "asked"), [("notes/", "no\u200dtes/x.md")])
def test_a_name_with_code_points_hfs_ignores_is_the_same_file(brain: Path, held: str, asked: str) -> None:
    assert_second_name_refused(brain, held, asked)


def test_an_unbound_write_with_an_ignored_code_point_meets_the_holder(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "todo.md", "--slug", "first", brain=brain))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "to\u200cdo.md"), session="x")),
                  holder)


@pytest.mark.parametrize(("held", "asked"), [("a.md", "\u0430.md")])  # Cyrillic a
def test_lookalikes_every_file_system_keeps_apart_are_two_scopes(brain: Path, held: str, asked: str) -> None:
    ok(run_bsi("claim", "open", "--scope", held, "--slug", "first", brain=brain))
    ok(run_bsi("claim", "open", "--scope", asked, "--slug", "second", brain=brain))


def test_a_section_whose_file_is_a_folder_here_still_holds_it(brain: Path) -> None:
    """`notes.md#Intro` opened where `notes.md` was a file (or nothing yet); here `notes.md/` is a folder: the claim
    still loads and still holds that path, so no second session gets `notes.md/` or what is below it."""
    holder = ok(run_bsi("claim", "open", "--scope", "notes.md#Intro", "--slug", "first", brain=brain))
    (brain / "notes.md").mkdir()
    listed = run_bsi("--json", "claim", "list", brain=brain)
    assert [row["sess_id"] for row in listed.json()["claims"]] == [holder], listed.err
    for asked in ("notes.md/", "notes.md", "NOTES.md/x.md", "notes.md/deep/y.md"):
        run = run_bsi("--json", "claim", "open", "--scope", asked, "--slug", "second", brain=brain)
        assert run.code == 10, (asked, run.out, run.err)
        assert [c["sess_id"] for c in run.json()["conflicts"]] == [holder]
    assert run_bsi("claim", "open", "--scope", "notes.md#Other", "--slug", "typed", brain=brain).code == 65
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "notes.md" / "a.md"), session="x")),
                  holder)


def test_a_new_id_never_names_the_file_of_an_id_in_another_case(brain: Path) -> None:
    """`claims/sess-…-AB.yml` (a legacy ID) and `claims/sess-…-ab.yml` are one file on macOS: a new claim never
    takes the case twin of an ID in use, or a checkout there would hold one of the two claims only."""
    legacy = "sess-20261129-1000-AB"
    held = ok(run_bsi("claim", "open", "--scope", "x/", "--slug", "ab", brain=brain))
    (brain / "claims" / f"{held}.yml").rename(brain / "claims" / f"{legacy}.yml")
    text = (brain / "claims" / f"{legacy}.yml").read_text().replace(held, legacy)
    (brain / "claims" / f"{legacy}.yml").write_text(text)
    new = ok(run_bsi("claim", "open", "--scope", "y/", "--slug", "ab", brain=brain))
    assert new.lower() != legacy.lower()
    assert sorted(p.stem.lower() for p in (brain / "claims").glob("sess-*.yml")) == sorted([legacy.lower(), new])
