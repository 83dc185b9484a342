"""Tests for brain_tui.core.paths.scope: grammar, normalisation, intersection, ScopeIndex (SPEC 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.scope import (
    ScopeEntry,
    covers_file,
    format_scope,
    overlap,
    parse_entry,
    parse_scope,
    scopes_overlap,
)
from brain_tui.core.paths.scope_index import ScopeIndex
from brain_tui.core.paths.scope_paths import normalize_path
from tests.unit.entries import D, F, S, pairwise_conflicts

G = ScopeEntry("global", "")




# --------------------------------------------------------------------------- normalisation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("agents/x.md", "agents/x.md"),
        ("./agents/x.md", "agents/x.md"),
        ("././agents/x.md", "agents/x.md"),
        (".//./agents/x.md", "agents/x.md"),
        ("agents/./x.md", "agents/x.md"),
        ("agents//x.md", "agents/x.md"),
        ("agents///sub//x.md", "agents/sub/x.md"),
        ("agents/", "agents/"),
        ("agents//", "agents/"),
        ("./agents/.", "agents/"),
        ("  todo/brain.md  ", "todo/brain.md"),
        ("my notes/a b.md", "my notes/a b.md"),
        ("café/ünï.md", "café/ünï.md"),
        ("a..b/c...md", "a..b/c...md"),
    ],
)
def test_normalize_path_accepts(text: str, expected: str) -> None:
    assert normalize_path(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("../x", "'..'"),
        ("agents/../../etc/passwd", "'..'"),
        ("agents/..", "'..'"),
        ("./..", "'..'"),
        ("/etc/passwd", "absolute"),
        ("/agents/", "absolute"),
        ("", "empty"),
        ("   ", "empty"),
        ("./", "empty"),
        (".", "empty"),
        ("agents\x00/x.md", "control"),
        ("agents/x\n.md", "control"),
        ("agents/\x1bx.md", "control"),
        ("agents/x\x7f.md", "control"),
        ("agents/x\x85y.md", "control"),
        ("agents/x\x9b.md", "control"),
        ("agents\\x.md", "backslash"),
        ("C:\\brain\\x.md", "backslash"),
    ],
)
def test_normalize_path_rejects(text: str, reason: str) -> None:
    with pytest.raises(InvalidData) as info:
        normalize_path(text)
    assert reason in info.value.message
    assert "\n" not in info.value.message
    assert info.value.exit_code == 65


# --------------------------------------------------------------------------- parse_entry


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*", G),
        ("/", G),
        ("global", G),
        ("  *  ", G),
        ("brain/", G),
        ("agents/", D("agents")),
        ("./agents/", D("agents")),
        ("agents/sub/", D("agents/sub")),
        ("todo/brain.md", F("todo/brain.md")),
        ("./todo//brain.md", F("todo/brain.md")),
        ("agents", F("agents")),
        ("todo/brain.md#Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md #Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md # Sprint 3 ", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md ## Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md##Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md   ##   Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md ## Sprint BSI", S("todo/brain.md", "Sprint BSI")),
        ("todo/brain.md § Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md§Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md § ## Sprint 3", S("todo/brain.md", "Sprint 3")),
        ("todo/brain.md#C# notes", S("todo/brain.md", "C# notes")),
        ("todo/brain.md § Sprint #3", S("todo/brain.md", "Sprint #3")),
        ("./todo/brain.md#Sprint 3", S("todo/brain.md", "Sprint 3")),
    ],
)
def test_parse_entry_spellings(text: str, expected: ScopeEntry) -> None:
    assert parse_entry(text) == expected


def test_brain_slash_is_global_without_brain_folder(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    assert parse_entry("brain/", tmp_path) == G
    assert parse_entry("brain/", str(tmp_path)) == G
    assert parse_entry("brain/") == G


def test_brain_slash_is_dir_with_brain_folder(tmp_path: Path) -> None:
    (tmp_path / "brain").mkdir()
    assert parse_entry("brain/", tmp_path) == D("brain")
    assert parse_entry("brain", tmp_path) == D("brain")


def test_brain_file_is_not_a_brain_folder(tmp_path: Path) -> None:
    (tmp_path / "brain").write_text("x")
    assert parse_entry("brain/", tmp_path) == G


def test_existing_folder_without_slash_is_dir(tmp_path: Path) -> None:
    (tmp_path / "agents" / "sub").mkdir(parents=True)
    (tmp_path / "todo").mkdir()
    (tmp_path / "todo" / "brain.md").write_text("## Sprint 3\n")
    assert parse_entry("agents", tmp_path) == D("agents")
    assert parse_entry("./agents/sub", tmp_path) == D("agents/sub")
    assert parse_entry("todo/brain.md", tmp_path) == F("todo/brain.md")
    assert parse_entry("todo/missing.md", tmp_path) == F("todo/missing.md")
    assert parse_entry("newdir", tmp_path) == F("newdir")
    assert parse_entry("agents") == F("agents")  # no root: only the slash tells


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "../x",
        "agents/../../x",
        "/etc/passwd",
        "agents\\x.md",
        "agents/\x00x",
        "agents/x\x1b[31m",
        "todo/brain.md#",
        "todo/brain.md ##",
        "todo/brain.md ## ##  ",
        "todo/brain.md §",
        "#Sprint 3",
        " ## Sprint 3",
        "agents/#Sprint 3",
        "../todo.md#Sprint",
        "todo/brain.md#Sprint\x003",
        "todo/brain.md#Sprint\n3",
        "src/a.py#Intro",
        "Makefile ## Build",
        "notes/plan.txt § Intro",
    ],
)
def test_parse_entry_rejects(text: str) -> None:
    with pytest.raises(InvalidData) as info:
        parse_entry(text)
    message = info.value.message
    assert message.startswith("invalid scope ")
    assert "\n" not in message and "\x00" not in message and "\x1b" not in message


def test_parse_entry_message_says_what_and_why() -> None:
    with pytest.raises(InvalidData) as info:
        parse_entry("../x")
    assert info.value.message == "invalid scope '../x': '..' is not allowed"


def test_section_of_existing_folder_rejected(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    with pytest.raises(InvalidData, match="folder"):
        parse_entry("agents#Intro", tmp_path)


def test_trailing_slash_on_an_existing_file_rejected(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    with pytest.raises(InvalidData, match="not a folder"):
        parse_entry("./src/a.py/", tmp_path)
    assert parse_entry("src/b.py/", tmp_path) == D("src/b.py")  # nothing there yet: the slash makes a folder
    assert parse_entry("src/a.py/", tmp_path, typed=False) == D("src/a.py")  # a claim file still loads


def test_a_section_through_a_link_to_a_file_that_is_not_markdown_rejected(tmp_path: Path) -> None:
    """A link named like a markdown file leads to `src/a.py`: its "sections" would each hold the whole python file
    (two claims `alias.md#A` and `alias.md#B` met nowhere, and both holders wrote `src/a.py`)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    (tmp_path / "src" / "plan.md").write_text("## A\n")
    (tmp_path / "src" / "alias.md").symlink_to("a.py")
    (tmp_path / "src" / "plan-link.md").symlink_to("plan.md")
    for text in ("src/alias.md#A", "src/alias.md ## B"):
        with pytest.raises(InvalidData, match="markdown"):
            parse_entry(text, tmp_path)
    assert parse_entry("src/plan-link.md#A", tmp_path).key == "src/plan.md"  # a link to a markdown file: taken
    assert parse_entry("src/alias.md#A", tmp_path, typed=False).key == "src/a.py"  # a claim file still loads


def test_a_read_back_section_of_a_file_that_is_not_markdown_still_loads() -> None:
    assert parse_entry("src/a.py#Intro", typed=False) == S("src/a.py", "Intro")
    assert parse_entry("docs/Guide.MARKDOWN#Setup") == S("docs/Guide.MARKDOWN", "Setup")


def test_parse_entry_rejects_non_string() -> None:
    with pytest.raises(InvalidData):
        parse_entry(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- ScopeEntry


@pytest.mark.parametrize(
    ("entry", "text"),
    [
        (G, "*"),
        (D("agents"), "agents/"),
        (D("agents/sub"), "agents/sub/"),
        (F("todo/brain.md"), "todo/brain.md"),
        (S("todo/brain.md", "Sprint 3"), "todo/brain.md#Sprint 3"),
    ],
)
def test_entry_str(entry: ScopeEntry, text: str) -> None:
    assert str(entry) == text
    assert parse_entry(text) == entry


def test_dir_named_brain_round_trips() -> None:
    entry = D("brain")
    assert parse_entry(str(entry)) == entry
    assert parse_entry("./brain/") == entry


def test_section_key() -> None:
    assert S("a.md", "Sprint 3").section_key == "sprint 3"
    assert S("a.md", "  ## SPRINT 3 ").section_key == "sprint 3"
    assert S("a.md", "Straße").section_key == S("a.md", "STRASSE").section_key
    assert F("a.md").section_key == ""


@pytest.mark.parametrize("spelled", ["**Sprint 3**", "__Sprint 3__", "*Sprint 3*", "_Sprint 3_", "`Sprint 3`",
                                     "**Sprint** 3", "~~Sprint 3~~", "Sprint\u200b 3"])
def test_a_heading_spelled_with_markdown_emphasis_is_the_same_section(spelled: str) -> None:
    # `## **Sprint 3**` is the section a reader calls "Sprint 3": one section, whichever spelling claims it
    held = parse_entry("todo.md#Sprint 3")
    asked = parse_entry(f"todo.md#{spelled}")
    assert overlap(held, asked) == "section"
    assert overlap(asked, S("todo.md", "Sprint 4")) is None


def test_entry_unknown_kind() -> None:
    with pytest.raises(ValueError):
        ScopeEntry("folder", "x")


def test_entries_are_ordered_and_hashable() -> None:
    entries = {F("b"), D("a"), F("b")}
    assert len(entries) == 2
    assert sorted([F("b"), D("a"), G]) == [D("a"), F("b"), G]


# --------------------------------------------------------------------------- parse_scope / format_scope


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("*", (G,)),
        ("agents/", (D("agents"),)),
        ("agents/ todo/brain.md", (D("agents"), F("todo/brain.md"))),
        ("agents/,todo/brain.md", (D("agents"), F("todo/brain.md"))),
        (" agents/ ,  todo/brain.md,,\tx.md\n", (D("agents"), F("todo/brain.md"), F("x.md"))),
        ("agents/ agents/ ./agents/", (D("agents"),)),
        ("todo/brain.md ## Sprint BSI", (S("todo/brain.md", "Sprint BSI"),)),
        ("todo/brain.md § Sprint, 3", (S("todo/brain.md", "Sprint, 3"),)),
        (["agents/", "todo/brain.md#Sprint 3"], (D("agents"), S("todo/brain.md", "Sprint 3"))),
        (("x.md", "y.md"), (F("x.md"), F("y.md"))),
        (["my notes/a b.md"], (F("my notes/a b.md"),)),
        (["b.md", "a.md", "b.md"], (F("b.md"), F("a.md"))),
        (["a.md#Sprint 3", "a.md ## sprint 3"], (S("a.md", "Sprint 3"),)),
        (["a.md#Sprint 3", "a.md#Sprint 4"], (S("a.md", "Sprint 3"), S("a.md", "Sprint 4"))),
    ],
)
def test_parse_scope(value: object, expected: tuple[ScopeEntry, ...]) -> None:
    assert parse_scope(value) == expected


def test_parse_scope_uses_root(tmp_path: Path) -> None:
    (tmp_path / "brain").mkdir()
    (tmp_path / "agents").mkdir()
    assert parse_scope("brain/ agents", tmp_path) == (D("brain"), D("agents"))
    assert parse_scope(["brain/"]) == (G,)


@pytest.mark.parametrize(
    "value",
    ["", "   ", " , ,", [], (), None, 3, {"a": 1}, ["agents/", 3], [None], ["ok.md", ""], "a.md ../b.md"],
)
def test_parse_scope_rejects(value: object) -> None:
    with pytest.raises(InvalidData):
        parse_scope(value)


def test_format_scope() -> None:
    assert format_scope([F("todo/brain.md")]) == "todo/brain.md"
    assert format_scope([S("todo/brain.md", "Sprint 3")]) == "todo/brain.md#Sprint 3"
    assert format_scope([G]) == "*"
    assert format_scope([D("agents"), F("x.md")]) == ["agents/", "x.md"]
    with pytest.raises(InvalidData):
        format_scope([])


def test_format_scope_single_entry_with_space_stays_one_entry() -> None:
    written = format_scope([F("my notes/a b.md")])
    assert written == ["my notes/a b.md"]
    assert parse_scope(written) == (F("my notes/a b.md"),)


@pytest.mark.parametrize(
    "entries",
    [
        (G,),
        (D("agents"),),
        (D("brain"),),
        (S("todo/brain.md", "Sprint, 3 notes"),),
        (D("agents"), F("todo/brain.md"), S("todo/brain.md", "Sprint 3")),
    ],
)
def test_format_parse_round_trip(entries: tuple[ScopeEntry, ...]) -> None:
    assert parse_scope(format_scope(entries)) == entries


# --------------------------------------------------------------------------- overlap matrix (SPEC 5.2)

OVERLAP_TABLE = [
    # global vs all
    (G, G, "direct"),
    (G, D("agents"), "parent/child"),
    (G, F("todo/brain.md"), "parent/child"),
    (G, S("todo/brain.md", "Sprint 3"), "parent/child"),
    # dirs
    (D("agents"), D("agents"), "direct"),
    (D("agents"), D("agents/sub"), "parent/child"),
    (D("agents"), D("agents/sub/deeper"), "parent/child"),
    (D("agents"), D("agents-old"), None),
    (D("agents"), D("agent"), None),
    (D("a/b"), D("a/c"), None),
    (D("agents"), F("agents/x.md"), "parent/child"),
    (D("agents"), F("agents/sub/x.md"), "parent/child"),
    (D("agents"), F("agents-old/x.md"), None),
    (D("agents"), F("agentsx.md"), None),
    (D("agents/sub"), F("agents/x.md"), None),
    (D("agents"), F("agents"), "direct"),
    # dir vs section of a file below it
    (D("todo"), S("todo/brain.md", "Sprint 3"), "parent/child"),
    (D("todo"), S("todo-old/brain.md", "Sprint 3"), None),
    (D("todo/sub"), S("todo/brain.md", "Sprint 3"), None),
    # files
    (F("todo/brain.md"), F("todo/brain.md"), "direct"),
    (F("todo/brain.md"), F("todo/other.md"), None),
    (F("todo/brain.md"), F("todo/brain.md.bak"), None),
    (F("a.md"), F("b/a.md"), None),
    # file vs section
    (F("todo/brain.md"), S("todo/brain.md", "Sprint 3"), "section"),
    (F("todo/other.md"), S("todo/brain.md", "Sprint 3"), None),
    # sections
    (S("todo/brain.md", "Sprint 3"), S("todo/brain.md", "Sprint 3"), "section"),
    (S("todo/brain.md", "Sprint 3"), S("todo/brain.md", "sprint 3"), "section"),
    (S("todo/brain.md", "Sprint 3"), S("todo/brain.md", "  SPRINT 3  "), "section"),
    (S("todo/brain.md", "Sprint 3"), S("todo/brain.md", "## Sprint 3"), "section"),
    (S("todo/brain.md", "Sprint 3"), S("todo/brain.md", "Sprint 4"), None),
    (S("todo/brain.md", "Sprint 3"), S("todo/other.md", "Sprint 3"), None),
]


@pytest.mark.parametrize(("a", "b", "expected"), OVERLAP_TABLE, ids=lambda v: str(v))
def test_overlap_matrix(a: ScopeEntry, b: ScopeEntry, expected: str | None) -> None:
    assert overlap(a, b) == expected
    assert overlap(b, a) == expected


def test_overlap_of_parsed_spellings() -> None:
    a = parse_entry("todo/brain.md ## Sprint BSI")
    b = parse_entry("todo/brain.md#sprint bsi")
    c = parse_entry("todo/brain.md § Sprint 4")
    assert overlap(a, b) == "section"
    assert overlap(a, c) is None
    assert overlap(parse_entry("brain/"), parse_entry("agents/x.md")) == "parent/child"


def test_scopes_overlap_first_pair() -> None:
    assert scopes_overlap([F("x.md")], [F("y.md")]) is None
    assert scopes_overlap([F("x.md"), D("agents")], [F("y.md"), F("agents/a.md")]) == "parent/child"
    assert scopes_overlap([F("y.md"), D("a")], [D("a"), F("y.md")]) == "direct"
    assert scopes_overlap([], [G]) is None


@pytest.mark.parametrize(
    ("entries", "path", "expected"),
    [
        ([G], "anything/at/all.md", True),
        ([D("agents")], "agents/x.md", True),
        ([D("agents")], "./agents//sub/x.md", True),
        ([D("agents")], "agents-old/x.md", False),
        ([D("agents")], "agents/../secrets.md", False),
        ([D("agents")], "/agents/x.md", False),
        ([F("todo/brain.md")], "todo/brain.md", True),
        ([F("todo/brain.md")], "todo/other.md", False),
        ([S("todo/brain.md", "Sprint 3")], "todo/brain.md", True),
        ([F("a.md"), D("b")], "b/c.md", True),
        ([], "a.md", False),
        ([D("agents")], "agents/x\x00.md", False),
    ],
)
def test_covers_file(entries: list[ScopeEntry], path: str, expected: bool) -> None:
    assert covers_file(entries, path) is expected


# --------------------------------------------------------------------------- ScopeIndex (examples)


def test_index_basic() -> None:
    index = ScopeIndex()
    index.add("sess-a", [D("agents")])
    index.add("sess-b", [F("todo/brain.md")])
    index.add("sess-c", [S("todo/brain.md", "Sprint 3")])
    index.add("sess-d", [G])
    assert len(index) == 4
    assert index.conflicts_with([F("agents/x.md")]) == [
        ("sess-a", "parent/child"),
        ("sess-d", "parent/child"),
    ]
    assert index.conflicts_with([S("todo/brain.md", "sprint 3")]) == [
        ("sess-b", "section"),
        ("sess-c", "section"),
        ("sess-d", "parent/child"),
    ]
    assert index.conflicts_with([S("todo/brain.md", "Sprint 4")]) == [
        ("sess-b", "section"),
        ("sess-d", "parent/child"),
    ]
    assert index.conflicts_with([G]) == [
        ("sess-a", "parent/child"),
        ("sess-b", "parent/child"),
        ("sess-c", "parent/child"),
        ("sess-d", "direct"),
    ]
    index.remove("sess-d")
    index.remove("sess-unknown")
    assert len(index) == 3
    assert index.conflicts_with([F("agents-old/x.md")]) == []
    assert index.conflicts_with([D("todo")]) == [("sess-b", "parent/child"), ("sess-c", "parent/child")]


def test_index_add_replaces_and_remove_prunes() -> None:
    index = ScopeIndex()
    index.add("a", [D("x/y/z")])
    index.add("a", [F("q.md")])
    assert len(index) == 1
    assert index.conflicts_with([D("x")]) == []
    assert index.conflicts_with([F("q.md")]) == [("a", "direct")]
    index.remove("a")
    assert len(index) == 0
    assert index._root.is_empty()


# --------------------------------------------------------------------------- properties

_COMPONENTS = ["a", "b", "a-old", "ab", "x.md", "y.md"]
_TITLES = ["Sprint 3", "sprint 3", "## Sprint 3", "Sprint 4", "Intro"]

paths = st.lists(st.sampled_from(_COMPONENTS), min_size=1, max_size=3).map("/".join)
entries_st = st.one_of(
    st.just(G),
    paths.map(D),
    paths.map(F),
    st.builds(S, paths, st.sampled_from(_TITLES)),
)
scopes_st = st.lists(entries_st, min_size=0, max_size=4)
FAST = settings(max_examples=200, deadline=None)


@FAST
@given(entries_st, entries_st)
def test_overlap_is_symmetric(a: ScopeEntry, b: ScopeEntry) -> None:
    assert overlap(a, b) == overlap(b, a)


@FAST
@given(entries_st)
def test_overlap_is_reflexive(a: ScopeEntry) -> None:
    assert overlap(a, a) is not None


@FAST
@given(paths, st.lists(st.sampled_from(_COMPONENTS), min_size=1, max_size=3), st.sampled_from(_TITLES))
def test_dir_contains_everything_below(base: str, tail: list[str], title: str) -> None:
    below = base + "/" + "/".join(tail)
    folder = D(base)
    for other in (D(below), F(below), S(below, title)):
        assert overlap(folder, other) == "parent/child"
        assert covers_file([folder], below)
    sibling = base + "-old/" + "/".join(tail)
    assert overlap(folder, F(sibling)) is None


@FAST
@given(paths, st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=12))
def test_different_sections_never_intersect(path: str, t1: str, t2: str) -> None:
    a, b = S(path, t1), S(path, t2)
    if a.section_key != b.section_key:
        assert overlap(a, b) is None
    else:
        assert overlap(a, b) == "section"


@FAST
@given(entries_st)
def test_str_parses_back(entry: ScopeEntry) -> None:
    if entry.kind == "section":
        entry = S(entry.path, entry.section.lstrip("# "))
    assert parse_entry(str(entry), typed=False) == entry  # as a claim file's scope is read back


@FAST
@given(
    st.dictionaries(st.sampled_from([f"sess-{i}" for i in range(8)]), scopes_st, max_size=8),
    st.lists(st.sampled_from([f"sess-{i}" for i in range(8)]), max_size=4),
    st.lists(scopes_st, min_size=1, max_size=3),
)
def test_index_matchespairwise_conflicts(
    owners: dict[str, list[ScopeEntry]], removed: list[str], queries: list[list[ScopeEntry]]
) -> None:
    index = ScopeIndex()
    for owner, entries in owners.items():
        index.add(owner, entries)
    assert len(index) == len(owners)
    for query in queries:
        assert index.conflicts_with(query) == pairwise_conflicts(owners, query)
    live = dict(owners)
    for owner in removed:
        index.remove(owner)
        live.pop(owner, None)
        assert len(index) == len(live)
        for query in queries:
            assert index.conflicts_with(query) == pairwise_conflicts(live, query)
    for owner in list(live):
        index.remove(owner)
    assert index._root.is_empty()
