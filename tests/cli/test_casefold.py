"""Two spellings of one macOS file are one scope and one lock: `bsi claim open`, `check-scope`, `lock`,
`preflight` compare paths case-folded and NFC-normalised (SPEC 5, 9, 10); what was written is kept."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.conftest import claim_file, load_claim
from tests.refusals import assert_second_name_refused

NFD_CAFE = unicodedata.normalize("NFD", "café.md")


def open_claim(brain: Path, *args: str) -> str:
    return ok(run_bsi("claim", "open", *args, brain=brain))


# The table of respellings is asked of `Brain` in tests/rules/test_scope_conflicts.py; `bsi` keeps one case.
@pytest.mark.parametrize(("held", "asked"), [("Notes/", "notes/x.md")])
def test_a_respelled_scope_is_refused_with_exit_10(brain: Path, held: str, asked: str) -> None:
    _holder, check = assert_second_name_refused(brain, held, asked)
    assert check["conflicts"][0]["scope"] == held.rstrip("/") + ("/" if held.endswith("/") else "")


def test_different_sections_of_a_respelled_file_are_still_free(brain: Path) -> None:
    open_claim(brain, "--scope", "todo.md#Sprint 3", "--slug", "first")
    assert run_bsi("check-scope", "TODO.md#Sprint 4", brain=brain).code == 0
    assert run_bsi("check-scope", "Other.md", brain=brain).code == 0


def test_the_written_spelling_is_kept_in_the_claim_and_its_json(brain: Path) -> None:
    sess = open_claim(brain, "--scope", "Notes/Plan.md", "--scope", "notes/plan.md", "--scope", "README.md")
    assert load_claim(brain, sess)["scope"] == ["Notes/Plan.md", "README.md"]  # a folded duplicate is dropped
    shown = run_bsi("--json", "claim", "show", sess, brain=brain).json()
    assert shown["scope"] == ["Notes/Plan.md", "README.md"]
    assert "Notes/Plan.md" in claim_file(brain, sess).read_text()


def test_a_lock_on_a_respelled_path_is_refused_and_the_lock_file_keeps_its_name(brain: Path) -> None:
    first = open_claim(brain, "--scope", "one/", "--slug", "one")
    second = open_claim(brain, "--scope", "two/", "--slug", "two")
    doc = run_bsi("--json", "lock", "acquire", "README.md", first, brain=brain).json()
    assert doc["file"] == "README.md" and doc["path"] == "locks/README.md.yml"
    refused = run_bsi("lock", "acquire", "readme.md", second, brain=brain)
    assert refused.code == 1 and first in refused.err, refused.err
    assert sorted(p.name for p in (brain / "locks").glob("*.yml")) == ["README.md.yml"]
    assert run_bsi("lock", "acquire", "Readme.MD", second, brain=brain).code == 1
    check = run_bsi("--json", "lock", "check", "readme.md", brain=brain)
    assert check.code == 1 and check.json()["lock"]["holder"] == first
    assert run_bsi("lock", "release", "README.MD", second, brain=brain).code == 2
    again = run_bsi("--json", "lock", "acquire", "readme.md", first, brain=brain).json()  # re-entry, same lock
    assert again["action"] == "extended" and again["path"] == "locks/README.md.yml" and again["file"] == "README.md"
    assert sorted(p.name for p in (brain / "locks").glob("*.yml")) == ["README.md.yml"]
    nfd = run_bsi("lock", "acquire", NFD_CAFE, first, brain=brain)
    assert nfd.code == 0, nfd.err
    assert run_bsi("lock", "acquire", "CAFÉ.md", second, brain=brain).code == 1
    ok(run_bsi("lock", "release", "readme.MD", first, brain=brain))
    assert not (brain / "locks" / "README.md.yml").exists()
    assert run_bsi("lock", "acquire", "readme.md", second, brain=brain).code == 0


def test_preflight_folds_the_lock_and_the_kernel_zone(brain: Path) -> None:
    pilot = open_claim(brain, "--scope", "*", "--slug", "pilot")
    sat = open_claim(brain, "--scope", "Agents/", "--scope", "Shared/", "--parent", pilot, "--slug", "sat")
    other = open_claim(brain, "--scope", "elsewhere/", "--parent", pilot, "--slug", "other")
    ok(run_bsi("lock", "acquire", "shared/README.md", other, brain=brain))
    locked = run_bsi("--json", "preflight", "check", sat, "Shared/readme.md", brain=brain)
    assert locked.code == 2 and locked.json()["check"] == "lock" and other in locked.err, locked.err
    zone = run_bsi("preflight", "check", sat, "AGENTS/helper.md", brain=brain)
    assert zone.code == 5, zone.err
    assert run_bsi("preflight", "check", sat, "Shared/other.md", brain=brain).code == 0
    assert run_bsi("preflight", "check", sat, "SHARED/Other.md", brain=brain).code == 0  # same folder on macOS
    assert run_bsi("preflight", "check", sat, "sharedx/a.md", brain=brain).code == 1


def test_a_corrupt_lock_file_of_a_respelled_path_refuses_the_lock(brain: Path) -> None:
    sess = open_claim(brain, "--scope", "one/", "--slug", "one")
    (brain / "locks" / "readme.md.yml").write_text("file: [unclosed\n")
    refused = run_bsi("lock", "acquire", "README.md", sess, brain=brain)
    assert refused.code == 65 and "locks/readme.md.yml" in refused.err and "corrupt" in refused.err, refused.err
    assert not (brain / "locks" / "README.md.yml").exists()


def test_a_path_read_as_a_file_on_linux_meets_the_folder_below_it(brain: Path) -> None:
    (brain / "Notes").mkdir()
    (brain / "Notes" / "x.md").write_text("# x\n")
    holder = open_claim(brain, "--scope", "Notes/x.md", "--slug", "first")
    run = run_bsi("--json", "claim", "open", "--scope", "notes", "--slug", "second", brain=brain)
    assert run.code == 10 and [c["sess_id"] for c in run.json()["conflicts"]] == [holder], run.err
    assert run.json()["conflicts"][0]["overlap"] == "parent/child"


def test_a_search_claim_never_writes_a_respelled_file_another_claim_holds(brain: Path) -> None:
    holder = open_claim(brain, "--scope", "todo.md", "--slug", "holder")
    search = open_claim(brain, "--scope", "*", "--satellite-type", "search", "--slug", "search")
    refused = run_bsi("--json", "preflight", "check", search, "TODO.md", brain=brain)
    assert refused.code == 1 and holder in refused.err, refused.err
    assert run_bsi("preflight", "check", search, "other.md", brain=brain).code == 0
