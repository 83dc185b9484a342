"""A file or folder whose name holds a space is one scope entry when it exists (SPEC 5.1, README "Claims").

`--scope "a/ b.md"` stays two entries (the old scripts' form, and what a claim file's string says), but a value
naming an existing path whole — `--scope "wiki/Meeting notes.md"` — is that one path: split, it claimed two other
paths, and the file itself stayed free for anyone. A value split that holds whitespace is said on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import run_bsi
from tests.conftest import load_claim


def _brain(tmp_path: Path) -> Path:
    root = tmp_path / "brain"
    assert run_bsi("init", str(root)).code == 0
    (root / "wiki" / "Team notes").mkdir(parents=True)
    (root / "wiki" / "Meeting notes.md").write_text("# Notes\n", encoding="utf-8")
    return root


def test_an_existing_file_whose_name_holds_a_space_is_one_entry(tmp_path: Path) -> None:
    root = _brain(tmp_path)
    opened = run_bsi("claim", "open", "--scope", "wiki/Meeting notes.md", "--slug", "meet", brain=root)
    assert opened.code == 0, opened.err
    sess = opened.out.strip()
    assert load_claim(root, sess)["scope"] == ["wiki/Meeting notes.md"]  # a list: as a string it would split
    assert "entries" not in opened.err
    held = run_bsi("--json", "check-scope", "wiki/Meeting notes.md", brain=root)
    assert held.code == 10 and json.loads(held.out)["conflicts"][0]["sess_id"] == sess
    free = run_bsi("check-scope", "notes.md", brain=root)  # a piece of the name is no entry of the claim
    assert free.code == 0, free.out + free.err


def test_an_existing_folder_whose_name_holds_a_space_is_one_entry(tmp_path: Path) -> None:
    root = _brain(tmp_path)
    opened = run_bsi("claim", "open", "--scope", "wiki/Team notes", "--slug", "team", brain=root)
    assert opened.code == 0, opened.err
    assert load_claim(root, opened.out.strip())["scope"] == ["wiki/Team notes/"]
    assert run_bsi("check-scope", "wiki/Team notes/a.md", brain=root).code == 10


def test_several_entries_in_one_value_are_still_split_and_said(tmp_path: Path) -> None:
    root = _brain(tmp_path)
    opened = run_bsi("claim", "open", "--scope", "wiki/ todo.md", "--slug", "two", brain=root)
    assert opened.code == 0, opened.err
    assert load_claim(root, opened.out.strip())["scope"] == ["wiki/", "todo.md"]
    assert "2 entries" in opened.err and "wiki/" in opened.err
    missing = run_bsi("check-scope", "notes/New meeting.md", brain=root)  # no such file: the legacy split
    assert "2 entries" in missing.err


def test_a_folder_glob_of_an_existing_folder_whose_name_holds_a_space_is_that_folder(tmp_path: Path) -> None:
    # `agents/*` means the folder `agents/` (SPEC 5.1); so does `wiki/Team notes/*`: split, it claimed `wiki/Team`
    # and `notes/`, and check-scope called a held folder free
    root = _brain(tmp_path)
    opened = run_bsi("claim", "open", "--scope", "wiki/Team notes", "--slug", "team", brain=root)
    assert opened.code == 0, opened.err
    for spelling in ("wiki/Team notes/*", "wiki/Team notes/**"):
        held = run_bsi("check-scope", spelling, brain=root)
        assert held.code == 10 and "entries" not in held.err, held.out + held.err


def test_a_spaced_name_beside_another_entry_is_split_and_said(tmp_path: Path) -> None:
    """`wiki/Team notes/a.md wiki/b.md`: the name `a.md wiki` exists nowhere, so the value is several entries (said
    on stderr), never one odd path the claim would hold in silence."""
    root = _brain(tmp_path)
    checked = run_bsi("check-scope", "wiki/Team notes/a.md wiki/b.md", brain=root)
    assert "entries" in checked.err, checked.err
    new_file = run_bsi("claim", "open", "--scope", "wiki/Team notes/new file.md", "--slug", "new", brain=root)
    assert new_file.code == 0 and "entries" not in new_file.err
    assert load_claim(root, new_file.out.strip())["scope"] == ["wiki/Team notes/new file.md"]


def test_a_scope_with_a_spaced_name_is_shown_with_commas_between_its_entries(tmp_path: Path) -> None:
    """`wiki/Team notes/` and `todo.md` shown "wiki/Team notes/ todo.md" read as three entries: with a name holding
    a space among them, the entries are shown separated by commas."""
    root = _brain(tmp_path)
    spaced = run_bsi("claim", "open", "--scope", "wiki/Team notes/", "--scope", "todo.md", "--slug", "sp", brain=root)
    assert spaced.code == 0, spaced.err
    shown = run_bsi("--json", "check-scope", "todo.md", brain=root)
    assert json.loads(shown.out)["conflicts"][0]["scope"] == "wiki/Team notes/, todo.md"
    assert "holds wiki/Team notes/, todo.md [" in run_bsi("check-scope", "todo.md", brain=root).out
