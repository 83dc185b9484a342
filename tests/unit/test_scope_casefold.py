"""Scopes compare paths case-folded and NFC-normalised: `TODO.md` and `todo.md` are one file on macOS (SPEC 5).

A brain is checked out on case-insensitive, normalisation-insensitive APFS as well as on Linux, so two
spellings that one machine maps to one file must never be held by two claims. Every comparison of scope
paths (pairwise rule, `ScopeIndex`, coverage, duplicates) folds the same way; the written spelling stays.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from brain_tui.core.paths.scope import (
    ScopeEntry,
    covers_file,
    overlap,
    parse_entry,
    parse_scope,
    parse_scope_args,
    scopes_overlap,
)
from brain_tui.core.paths.scope_index import ScopeIndex
from tests.unit.entries import D, F, S, pairwise_conflicts

FAST = settings(max_examples=300, deadline=None)




def _recases_cleanly(char: str) -> bool:
    """Letters whose upper and lower case fold back to the same key (not Turkish dotless i and the like)."""
    folded = unicodedata.normalize("NFC", char).casefold()
    return all(unicodedata.normalize("NFC", unicodedata.normalize("NFC", other).casefold()) ==
               unicodedata.normalize("NFC", folded) for other in (char.upper(), char.lower()))


#: Every cased letter up to U+024F that recases cleanly: `st.characters(categories=("Lu", "Ll"),
#: max_codepoint=0x24F).filter(_recases_cleanly)`, listed once rather than filtered at every draw.
_CLEAN_LETTERS = tuple(char for char in map(chr, range(0x250))
                       if unicodedata.category(char) in ("Lu", "Ll") and _recases_cleanly(char))
_LETTERS = st.one_of(
    st.sampled_from("abcxyzABCXYZ019._-"),
    st.sampled_from("éÉüÜñÑøØåÅçÇßσΣжЖ"),
    st.sampled_from(_CLEAN_LETTERS),
)
_COMPONENT = st.text(_LETTERS, min_size=1, max_size=6).filter(lambda part: part not in (".", ".."))
_PATH = st.lists(_COMPONENT, min_size=1, max_size=3).map("/".join)


#: Which spelling of a character `respelled` takes: as written, upper-cased, lower-cased (one strategy for all).
_AS_WRITTEN_UPPER_LOWER = st.integers(0, 2)


@st.composite
def respelled(draw: st.DrawFn, text: str) -> str:
    """`text` with every character randomly upper- or lower-cased, then as NFC or NFD (macOS's spelling)."""
    chars = [(c, c.upper(), c.lower())[draw(_AS_WRITTEN_UPPER_LOWER)] for c in text]
    form = draw(st.sampled_from(("NFC", "NFD")))
    return unicodedata.normalize(form, "".join(chars))


@FAST
@given(st.data(), _PATH)
def test_a_path_and_any_respelling_of_it_intersect(data: st.DataObject, path: str) -> None:
    other = data.draw(respelled(path))
    assert overlap(F(path), F(other)) == "direct"
    assert overlap(D(path), D(other)) == "direct"
    assert overlap(D(path), F(other)) == "direct"
    assert overlap(D(path), F(other + "/x.md")) == "parent/child"
    assert overlap(D(other), S(path + "/x.md", "Intro")) == "parent/child"
    assert overlap(F(path), S(other, "Intro")) == "section"
    assert covers_file([F(path)], other) and covers_file([D(path)], other + "/x.md")


@FAST
@given(st.data(), _PATH, st.sampled_from(["Sprint 3", "Intro", "Café", "ÉTÉ"]))
def test_sections_fold_path_and_title_alike(data: st.DataObject, path: str, title: str) -> None:
    other_path = data.draw(respelled(path))
    other_title = data.draw(respelled(title))
    assert overlap(S(path, title), S(other_path, other_title)) == "section"
    assert overlap(S(path, title), S(other_path, title + " bis")) is None  # two sections of one file: free


@FAST
@given(st.data(), _PATH)
def test_parsed_spellings_intersect_and_keep_what_was_written(data: st.DataObject, path: str) -> None:
    if path.casefold() == "global":  # the global spelling is exactly `global`; `GLOBAL` names a file
        return
    other = data.draw(respelled(path))
    first, second = parse_entry(path), parse_entry(other)
    assert scopes_overlap([first], [second]) == "direct"
    assert first.path == unicodedata.normalize("NFC", path)  # written spelling kept (NFC), never folded
    assert second.path == unicodedata.normalize("NFC", other)


def test_the_attack_examples() -> None:
    assert overlap(parse_entry("TODO.md"), parse_entry("todo.md")) == "direct"
    assert overlap(parse_entry("Notes/"), parse_entry("notes/x.md")) == "parent/child"
    assert overlap(parse_entry("café.md"), parse_entry("cafe\u0301.md")) == "direct"
    assert overlap(parse_entry("CAFÉ.md"), parse_entry("cafe\u0301.md")) == "direct"
    assert overlap(parse_entry("todo.md#Sprint"), parse_entry("TODO.md#sprint")) == "section"
    assert overlap(parse_entry("Agents/"), parse_entry("agents-old/x.md")) is None  # component boundary kept
    assert str(parse_entry("TODO.md")) == "TODO.md"


def test_duplicates_fold_and_the_first_spelling_is_kept() -> None:
    assert parse_scope(["TODO.md", "todo.md", "Notes/", "NOTES/"]) == (F("TODO.md"), D("Notes"))
    assert parse_scope_args(["README.md", "readme.md"]) == (F("README.md"),)


# ------------------------------------------------------------------ the index equals the pairwise rule

_MIXED = ["a", "A", "b", "B", "x.md", "X.md", "X.MD", "café", "CAFÉ", "cafe\u0301", "straße", "STRASSE"]
_MIXED_PATHS = st.lists(st.sampled_from(_MIXED), min_size=1, max_size=3).map("/".join)
_MIXED_ENTRIES = st.one_of(
    st.just(ScopeEntry("global", "")),
    _MIXED_PATHS.map(D),
    _MIXED_PATHS.map(F),
    st.builds(S, _MIXED_PATHS, st.sampled_from(["Sprint", "SPRINT", "Intro"])),
)
_MIXED_SCOPES = st.lists(_MIXED_ENTRIES, min_size=0, max_size=4)
_OWNERS = [f"sess-{i}" for i in range(6)]


def _folded(entry: ScopeEntry) -> ScopeEntry:
    """The entry with its path spelled as its comparison key (the reference the index must agree with)."""
    path = unicodedata.normalize("NFC", unicodedata.normalize("NFC", entry.path).casefold())
    return ScopeEntry(entry.kind, path, entry.section)


@FAST
@given(st.dictionaries(st.sampled_from(_OWNERS), _MIXED_SCOPES, max_size=6),
       st.lists(_MIXED_SCOPES, min_size=1, max_size=3))
def test_index_answer_equals_the_pairwise_rule_on_respelled_paths(
    owners: dict[str, list[ScopeEntry]], queries: list[list[ScopeEntry]]
) -> None:
    index = ScopeIndex()
    for owner, entries in owners.items():
        index.add(owner, entries)
    folded_owners = {owner: [_folded(e) for e in entries] for owner, entries in owners.items()}
    for query in queries:
        expected = pairwise_conflicts(folded_owners, [_folded(e) for e in query])
        assert pairwise_conflicts(owners, query) == expected
        assert index.conflicts_with(query) == expected
    for owner in list(owners):
        index.remove(owner)
    assert len(index) == 0 and index._root.is_empty()


def test_index_examples() -> None:
    index = ScopeIndex()
    index.add("sess-a", [F("TODO.md")])
    index.add("sess-b", [D("Notes")])
    index.add("sess-c", [S("Plan.md", "Sprint")])
    assert index.conflicts_with([F("todo.md")]) == [("sess-a", "direct")]
    assert index.conflicts_with([F("notes/x.md")]) == [("sess-b", "parent/child")]
    assert index.conflicts_with([S("PLAN.MD", "sprint")]) == [("sess-c", "section")]
    assert index.conflicts_with([S("plan.md", "Other")]) == []


# ------------------------------------------------------------------ the key itself

@FAST
@given(st.text(max_size=12))
def test_path_key_is_idempotent_and_blind_to_the_unicode_form(text: str) -> None:
    from brain_tui.core.paths.path_keys import path_key

    key = path_key(text)
    assert path_key(key) == key
    assert path_key(unicodedata.normalize("NFD", text)) == key
    assert path_key(unicodedata.normalize("NFC", text)) == key


#: Greek letters with a perispomeni and an iota subscript (U+0345, which case-folds to a full iota): their
#: precomposed, decomposed and upper-case spellings are one name to canonical caseless matching, and to APFS.
_IOTA_SUBSCRIPT = [
    ("\u1fb7", "\u1fbc\u0342"),            # ᾷ and ᾼ + perispomeni
    ("\u1fc7", "\u0397\u0342\u0345"),     # ῇ and Η + perispomeni + ypogegrammeni
    ("\u1ff7", "\u03a9\u0345\u0342"),     # ῷ and Ω + ypogegrammeni + perispomeni (reordered by NFD)
]


def test_path_key_is_canonical_caseless_matching() -> None:
    """Two names equal by Unicode's canonical caseless match (D145: NFD, case fold, NFD) have one key: the case
    fold of U+0345 (an iota) must see the marks in canonical order, so the text is decomposed before it is folded."""
    from brain_tui.core.paths.path_keys import path_key

    for one, other in _IOTA_SUBSCRIPT:
        assert path_key(one) == path_key(other), (one, other)
        assert path_key(f"notes/{one}.md") == path_key(f"NOTES/{other}.md")
    groups: dict[str, set[str]] = {}
    for code in range(0x80, 0x2FFFF):
        if 0xD800 <= code < 0xE000:
            continue
        for text in {chr(code), chr(code).upper(), chr(code).lower(), unicodedata.normalize("NFD", chr(code))}:
            caseless = unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).casefold())
            groups.setdefault(caseless, set()).add(path_key(text))
    assert [keys for keys in groups.values() if len(keys) > 1] == []


def test_protocol_paths_and_the_brain_folder_fold() -> None:
    from brain_tui.core.paths.path_keys import brain_relative, is_protocol_path

    for rel in ("claims/x.yml", "CLAIMS/x.yml", "Claims", "brain-index.md", ".Brain/agents/x.json", "LOCKS/a"):
        assert is_protocol_path(rel), rel
    for rel in ("claimsx/x.yml", "src/claims/x.yml", "BRAIN-INDEX.md.bak", "notes.md"):
        assert not is_protocol_path(rel), rel
    assert brain_relative("/Users/me/brain", "/Users/Me/BRAIN/Notes/x.md") == "Notes/x.md"
    assert brain_relative("/Users/me/brain", "/users/me/brain") == ""
    assert brain_relative("/Users/me/brain", "/Users/me/brainx/x.md") is None
    assert brain_relative("/Users/me/brain", "/Users/me") is None


# ------------------------------------------------------------------ a "file" with something below it is a folder

@FAST
@given(st.data(), _PATH, _COMPONENT, st.sampled_from(["file", "section"]))
def test_a_file_entry_meets_every_entry_below_its_path(data: st.DataObject, path: str, tail: str, kind: str) -> None:
    upper = F(path) if kind == "file" else S(path, "Intro")
    below = data.draw(respelled(path)) + "/" + tail
    for other in (F(below), D(below), S(below, "Intro")):
        assert overlap(upper, other) == "parent/child"
        assert overlap(other, upper) == "parent/child"
    assert overlap(upper, F(path + "x/" + tail)) is None  # component boundary kept


def test_a_path_parsed_as_a_file_on_linux_still_meets_the_folder_below_it(tmp_path: Path) -> None:
    (tmp_path / "Notes").mkdir()
    linux_reading = parse_entry("notes", tmp_path)  # case-sensitive: no folder `notes`, so a file
    assert overlap(linux_reading, parse_entry("Notes/x.md", tmp_path)) == "parent/child"
    index = ScopeIndex()
    index.add("sess-a", [parse_entry("Notes/x.md", tmp_path)])
    assert index.conflicts_with([linux_reading]) == [("sess-a", "parent/child")]


def test_a_path_below_a_folder_is_cut_by_parts_when_a_case_fold_changes_a_names_length(tmp_path) -> None:  # noqa: ANN001
    """``ß`` folds to ``ss``: the relative path is cut after the folder's parts, never at its length in characters."""
    from brain_tui.core.paths.path_keys import below_folder

    for folder, inside in (("Straße", "STRASSE"), ("STRASSE", "Straße")):
        base = tmp_path / folder
        assert below_folder(base, str(tmp_path / inside / "notes" / "a.md")) == "notes/a.md"
        assert below_folder(base, str(tmp_path / inside)) == ""
        assert below_folder(base, str(tmp_path / (inside + "x") / "a.md")) is None
    assert below_folder("/", "/etc/passwd") == "etc/passwd"
