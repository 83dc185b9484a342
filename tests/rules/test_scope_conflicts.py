"""Scope intersection and conflicts (SPEC 5.1–5.3), asked of `Brain` in process: the conflict matrix, second
spellings a file system folds (case, NFC, code points HFS+ ignores), lookalikes kept apart, and second names
through symlinks. tests/cli keeps one `bsi` case of each for the exit code and the `--json` shape."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from brain_tui.core.paths.scope import parse_scope_args
from tests.bsi import ok, run_bsi
from tests.rules.facade import assert_second_name_refused, at, open_in

NFD_CAFE = unicodedata.normalize("NFD", "café.md")


# -- the conflict matrix (SPEC 5.2, 5.3) ------------------------------------------------------------
@pytest.fixture(scope="module")
def matrix_brain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A brain holding a dir, a section, a file claim and a global search claim."""
    root = tmp_path_factory.mktemp("matrix") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    (root / "todo").mkdir()
    (root / "todo" / "brain.md").write_text("# todo\n\n## Sprint 3\n")
    ids = {
        "dir": open_in(root, "agents/", slug="dir"),
        "section": open_in(root, "todo/brain.md#Sprint 3", slug="section"),
        "file": open_in(root, "wiki/page.md", slug="file"),
        "search": open_in(root, "*", satellite_type="search", slug="search"),
    }
    return {"root": root, "ids": ids}


MATRIX = [
    # (new scope entries, conflicting holders, overlap kind)
    (["agents/"], ["dir"], "direct"),
    (["agents/x.md"], ["dir"], "parent/child"),
    (["agents/sub/deep/y.md"], ["dir"], "parent/child"),
    (["agents-old/x.md"], [], None),
    (["agents.md"], [], None),
    (["todo/brain.md"], ["section"], "section"),
    (["todo/brain.md#Sprint 3"], ["section"], None),
    (["todo/brain.md ## sprint 3 "], ["section"], None),
    (["todo/brain.md § Sprint 3"], ["section"], None),
    (["todo/brain.md#Sprint 4"], [], None),
    (["todo/"], ["section"], None),
    (["wiki/page.md"], ["file"], "direct"),
    (["wiki/other.md"], [], None),
    (["wiki/"], ["file"], "parent/child"),
    (["*"], ["dir", "section", "file"], None),
    (["global"], ["dir", "section", "file"], None),
    (["free/", "agents/x.md"], ["dir"], None),
    (["free/ other.md, more/"], [], None),
]


@pytest.mark.parametrize(("entries", "holders", "overlap"), MATRIX, ids=[" ".join(m[0]) for m in MATRIX])
def test_conflict_matrix(matrix_brain: dict, entries: list[str], holders: list[str], overlap: str | None) -> None:
    root, ids = matrix_brain["root"], matrix_brain["ids"]
    brain = at(root)
    conflicts = [c.as_dict() for c in brain.check_scope(parse_scope_args(entries, brain.root))]
    assert sorted(c["sess_id"] for c in conflicts) == sorted(ids[h] for h in holders)
    for conflict in conflicts:
        assert {"sess_id", "scope", "status", "overlap"} <= set(conflict)
        assert conflict["status"] == "open"
        if overlap:
            assert conflict["overlap"] == overlap
    assert ids["search"] not in {c["sess_id"] for c in conflicts}  # search claims never block


# -- second spellings of one file (SPEC 5.1, 5.2) -----------------------------------------------------------
CASEFOLD = [
    ("TODO.md", "todo.md"),
    ("Notes/", "notes/x.md"),
    ("notes/x.md", "NOTES/"),
    ("café.md", NFD_CAFE),
    ("CAFÉ.md", NFD_CAFE),
    ("todo.md#Sprint", "TODO.md#sprint"),
    ("Plan.md", "plan.md#Intro"),
    ("Projets/Alpha/", "projets/ALPHA/b.md"),
    ("\u1fb7/", "\u1fbc\u0342/x.md"),  # ᾷ and ᾼ + perispomeni: one name once decomposed and case-folded
]


@pytest.mark.parametrize(("held", "asked"), CASEFOLD)
def test_a_respelled_scope_is_refused(brain: Path, held: str, asked: str) -> None:
    _holder, check = assert_second_name_refused(brain, held, asked)
    assert check[0]["scope"] == held.rstrip("/") + ("/" if held.endswith("/") else "")


HFS_IGNORED = [
    ("todo.md", "to\u200cdo.md"),
    ("todo.md", "todo.md\ufeff"),
    ("notes/", "no\u200dtes/x.md"),
    ("Caf\u00e9\u200e/", "caf\u00e9/a.md"),
    ("plan.md#Sprint", "pl\u202aan.md"),
    ("a\u200bb.md", "AB.md"),
]


@pytest.mark.parametrize(("held", "asked"), HFS_IGNORED)
def test_a_name_with_code_points_hfs_ignores_is_the_same_file(brain: Path, held: str, asked: str) -> None:
    assert_second_name_refused(brain, held, asked)


LOOKALIKES = [
    ("a.md", "\u0430.md"),           # Cyrillic a
    ("docs/x.md", "docs\uff0fx.md"),  # full-width solidus: one file name, not a folder
]


@pytest.mark.parametrize(("held", "asked"), LOOKALIKES)
def test_lookalikes_every_file_system_keeps_apart_are_two_scopes(brain: Path, held: str, asked: str) -> None:
    open_in(brain, held, slug="first")
    open_in(brain, asked, slug="second")


# -- second names through symlinks (SPEC 5.2) ---------------------------------------------------------------
SYMLINKED = [
    ("alias/", "real/"),
    ("real/", "alias/"),
    ("alias", "real/x.md"),
    ("real/x.md", "alias/"),
    ("alias/x.md", "real/x.md"),
    ("link.md", "real/x.md"),
    ("real/x.md", "link.md"),
    ("link.md#Sprint", "real/x.md#sprint"),
    ("alias/x.md#Sprint", "link.md"),
    ("all/", "notes.md"),
    ("notes.md", "all"),
    ("later/", "planned/a.md"),
    ("ALIAS/", "real/"),
]


@pytest.mark.parametrize(("held", "asked"), SYMLINKED)
def test_a_second_name_through_a_symlink_is_refused(linked: Path, held: str, asked: str) -> None:
    assert_second_name_refused(linked, held, asked)


@pytest.fixture
def way_out_and_back(brain: Path) -> tuple[Path, str]:
    """A brain in a subfolder of a repository with `up -> ..`: `up/<brain>/x` is the brain's own `x`."""
    (brain / "real").mkdir()
    (brain / "real" / "f.md").write_text("## Sprint\n")
    (brain / "agents").mkdir(exist_ok=True)
    (brain / "up").symlink_to("..")
    return brain, f"up/{brain.name}"


OUT_AND_BACK = [
    ("real/f.md", "{back}/real/f.md"),
    ("{back}/real/", "real/f.md"),
    ("real/", "{back}/up/{name}/real/new.md"),
    ("notes.md", "{back}/notes.md"),
]


@pytest.mark.parametrize(("held", "asked"), OUT_AND_BACK)
def test_a_name_out_of_the_brain_and_back_in_is_the_same_scope(way_out_and_back: tuple[Path, str], held: str,
                                                                asked: str) -> None:
    brain, back = way_out_and_back
    assert_second_name_refused(brain, held.format(back=back, name=brain.name),
                               asked.format(back=back, name=brain.name))
