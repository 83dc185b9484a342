"""The on-disk parse cache (core/records/cache.py) through BrainStore: hits parse nothing, changes are always seen."""

from __future__ import annotations

import json
import marshal
import os
import pickle
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.config import BrainConfig
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import cache as cache_mod
from brain_tui.core.records.cache import CACHE_FILE, file_key
from brain_tui.core.records.statuses import BLOCKING_STATUSES, Status
from brain_tui.core.records.store import BrainStore

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def claim_text(sess_id: str, status: str = "open", scope: str = "wiki/", parent: str | None = None) -> str:
    lines = [
        f"sess_id: {sess_id}",
        "type: satellite" if parent else "type: solo",
        "instance: prod@laptop",
        f"scope: {scope}",
        f"status: {status}",
        "opened_at: '2026-11-29T09:00:00+00:00'",
        "expires_at: '2026-11-29T11:00:00+00:00'",
    ]
    if parent:
        lines.append(f"parent_satellite: {parent}")
    return "\n".join(lines) + "\n"


def make_brain(root: Path, claims: dict[str, str]) -> Path:
    for folder in ("claims", "signals", "locks"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for name, text in claims.items():
        (root / "claims" / name).write_text(text, encoding="utf-8")
    (root / "signals" / "sig-20261129-0900-a.yml").write_text(
        "sig_id: sig-20261129-0900-a\nfrom: a\nto: b\ntype: INFO\npayload: hi\nstate: pending\n", encoding="utf-8"
    )
    return root


def store(root: Path) -> BrainStore:
    """A new store: the state of a new `bsi` process (nothing in memory, only the disk cache)."""
    return BrainStore(root, UTC, BrainConfig())


def three_claims(tmp_path: Path) -> Path:
    return make_brain(tmp_path, {
        "sess-20261129-0900-a.yml": claim_text("sess-20261129-0900-a", "open", "wiki/"),
        "sess-20261129-0901-b.yml": claim_text("sess-20261129-0901-b", "closed", "todo/brain.md#Sprint 3"),
        "sess-20261129-0902-c.yml": claim_text("sess-20261129-0902-c", "paused", "agents/"),
    })


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """No racy window: an entry is trusted on its stat key alone (files here were written just now)."""
    monkeypatch.setattr(cache_mod, "RACY_NS", 0)


def test_a_new_process_with_a_warm_cache_parses_nothing(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    first = store(root)
    cold = first.snapshot(NOW)
    assert first.parsed_last == 4  # 3 claims + 1 signal
    assert (root / ".brain" / CACHE_FILE).is_file()

    second = store(root)
    warm = second.snapshot(NOW)
    assert second.parsed_last == 0
    assert second.files.verified == 0
    assert [(c.sess_id, c.status, c.scope, dict(c.data)) for c in warm.claims] == [
        (c.sess_id, c.status, c.scope, dict(c.data)) for c in cold.claims
    ]
    assert [s.sig_id for s in warm.signals] == ["sig-20261129-0900-a"]


def test_fresh_files_are_verified_by_digest_not_parsed(tmp_path: Path) -> None:
    root = three_claims(tmp_path)
    first = store(root)
    first.files._clock_ns = lambda: 0  # read "as they were written": inside the racy window, whatever the speed
    first.snapshot(NOW)
    second = store(root)
    second.snapshot(NOW)
    assert second.parsed_last == 0
    assert second.files.verified == 4


def test_same_size_edit_with_mtime_reset_is_read(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    path = root / "claims" / "sess-20261129-0902-c.yml"
    first = store(root)
    assert first.snapshot(NOW).claim("sess-20261129-0902-c").status == "paused"
    before = os.stat(path)

    text = path.read_bytes()
    assert text.count(b"paused") == 1
    with open(path, "r+b") as handle:  # in place: same inode
        handle.write(text.replace(b"paused", b"closed"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime lies
    after = os.stat(path)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (before.st_mtime_ns, before.st_size, before.st_ino)

    assert store(root).snapshot(NOW).claim("sess-20261129-0902-c").status == "closed"  # disk cache
    assert first.snapshot(NOW).claim("sess-20261129-0902-c").status == "closed"  # memory
    assert first.parsed_last == 1


def test_an_edit_in_the_same_clock_tick_is_caught_by_the_digest(tmp_path: Path) -> None:
    root = three_claims(tmp_path)
    path = root / "claims" / "sess-20261129-0902-c.yml"
    first = store(root)
    first.files._clock_ns = lambda: 0  # read in the tick the files were written in
    first.snapshot(NOW)
    text = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.write(text.replace(b"paused", b"closed"))
    # A filesystem with coarse timestamps gives the new content the very same stat: simulate it.
    first.files._entries["claims/sess-20261129-0902-c.yml"].key = file_key(os.stat(path))
    assert first.snapshot(NOW).claim("sess-20261129-0902-c").status == "closed"
    assert first.parsed_last == 1


def test_a_racy_entry_settles_once_the_file_is_old_enough(tmp_path: Path) -> None:
    root = three_claims(tmp_path)
    first = store(root)
    first.files._clock_ns = lambda: 0
    first.snapshot(NOW)
    first.files._clock_ns = lambda: 2**62  # far later: every file is now older than the window
    first.snapshot(NOW)
    assert first.files.verified == 4
    first.snapshot(NOW)
    assert first.files.verified == 0

    later = store(root)
    later.files._clock_ns = lambda: 2**62
    later.snapshot(NOW)
    assert later.files.verified == 0  # settled on disk too
    assert later.parsed_last == 0


def test_a_corrupt_cache_file_is_ignored_then_rebuilt(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    store(root).snapshot(NOW)
    db = root / ".brain" / CACHE_FILE
    db.write_bytes(b"this is not a database" * 100)

    again = store(root)
    snap = again.snapshot(NOW)
    assert again.parsed_last == 4
    assert {c.sess_id: c.status for c in snap.claims} == {
        "sess-20261129-0900-a": "open", "sess-20261129-0901-b": "closed", "sess-20261129-0902-c": "paused"}
    assert db.read_bytes().startswith(b"SQLite format 3\x00")
    third = store(root)
    third.snapshot(NOW)
    assert third.parsed_last == 0


def test_a_bad_row_only_costs_a_parse_of_that_file(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    store(root).snapshot(NOW)
    with sqlite3.connect(root / ".brain" / CACHE_FILE) as con:
        con.execute("UPDATE entries SET outcome = '{not json' WHERE path = 'claims/sess-20261129-0900-a.yml'")
    again = store(root)
    snap = again.snapshot(NOW)
    assert again.parsed_last == 1
    assert snap.claim("sess-20261129-0900-a").status == "open"


def test_another_code_fingerprint_empties_the_cache(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    store(root).snapshot(NOW)
    with sqlite3.connect(root / ".brain" / CACHE_FILE) as con:
        con.execute("UPDATE meta SET value = 'older' WHERE key = 'fingerprint'")
    again = store(root)
    again.snapshot(NOW)
    assert again.parsed_last == 4


def test_an_edit_of_the_readers_code_empties_the_cache(tmp_path: Path, settled: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The store names its readers' code (formats, …) to the cache: editing it re-parses everything."""
    from brain_tui.core.records import formats
    from brain_tui.core.records import store as store_mod

    assert formats.__file__ in store_mod.PARSER_CODE
    reader = tmp_path / "reader.py"
    reader.write_text("# readers v1\n", encoding="utf-8")
    monkeypatch.setattr(store_mod, "PARSER_CODE", (*store_mod.PARSER_CODE, str(reader)))
    root = three_claims(tmp_path / "brain")
    store(root).snapshot(NOW)
    warm = store(root)
    warm.snapshot(NOW)
    assert warm.parsed_last == 0
    reader.write_text("# readers v2\n", encoding="utf-8")
    again = store(root)
    again.snapshot(NOW)
    assert again.parsed_last == 4


def test_corrupt_files_are_cached_too(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    (root / "claims" / "sess-20261129-0903-bad.yml").write_text("sess_id: [unclosed\n", encoding="utf-8")
    first = store(root)
    cold = first.snapshot(NOW)
    assert [c.path for c in cold.corrupt] == ["claims/sess-20261129-0903-bad.yml"]
    second = store(root)
    warm = second.snapshot(NOW)
    assert second.parsed_last == 0
    assert [c.as_dict() for c in warm.corrupt] == [c.as_dict() for c in cold.corrupt]


def test_the_cache_never_pickles_and_holds_json(tmp_path: Path, settled: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the parse cache must not pickle or marshal")

    # Python's import system unmarshals bytecode: the modules a read imports lazily are imported first.
    store(three_claims(tmp_path / "warm")).snapshot(NOW)
    for module, names in ((pickle, ("dumps", "loads", "dump", "load", "Pickler", "Unpickler")),
                          (marshal, ("dumps", "loads", "dump", "load"))):
        for name in names:
            monkeypatch.setattr(module, name, refuse)
    root = three_claims(tmp_path / "brain")
    store(root).snapshot(NOW)
    second = store(root)
    second.snapshot(NOW)
    assert second.parsed_last == 0
    with sqlite3.connect(root / ".brain" / CACHE_FILE) as con:
        rows = dict(con.execute("SELECT path, outcome FROM entries").fetchall())
    assert set(rows) == {f"claims/{n}" for n in os.listdir(root / "claims")} | {
        "signals/sig-20261129-0900-a.yml"}
    outcome = json.loads(rows["claims/sess-20261129-0902-c.yml"])
    assert outcome == {"d": {
        "sess_id": "sess-20261129-0902-c", "type": "solo", "instance": "prod@laptop", "scope": "agents/",
        "status": "paused", "opened_at": "2026-11-29T09:00:00+00:00", "expires_at": "2026-11-29T11:00:00+00:00"}}


def test_data_json_cannot_hold_is_parsed_each_time_not_mangled(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    (root / "claims" / "sess-20261129-0904-k.yml").write_text(
        claim_text("sess-20261129-0904-k") + "extra:\n  1: one\n", encoding="utf-8")
    store(root).snapshot(NOW)
    second = store(root)
    snap = second.snapshot(NOW)
    assert second.parsed_last == 1
    assert snap.claim("sess-20261129-0904-k").data["extra"] == {1: "one"}


def test_deleted_files_leave_the_cache(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    first = store(root)
    first.snapshot(NOW)
    (root / "claims" / "sess-20261129-0901-b.yml").unlink()
    assert [c.sess_id for c in first.snapshot(NOW).claims] == ["sess-20261129-0900-a", "sess-20261129-0902-c"]
    with sqlite3.connect(root / ".brain" / CACHE_FILE) as con:
        paths = {row[0] for row in con.execute("SELECT path FROM entries")}
    assert "claims/sess-20261129-0901-b.yml" not in paths
    assert "claims/sess-20261129-0900-a.yml" in paths


def test_an_unwritable_cache_never_breaks_a_read(tmp_path: Path) -> None:
    root = three_claims(tmp_path)
    (root / ".brain").write_text("a file where the state folder should be", encoding="utf-8")
    first = store(root)
    assert len(first.snapshot(NOW).claims) == 3
    assert first.files.flush() is False
    assert len(store(root).snapshot(NOW).claims) == 3


def test_a_partial_snapshot_skips_other_statuses_without_decoding(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    # A closed claim that reuses an open claim's ID: the duplicate row must be the same either way.
    (root / "claims" / "sess-20261129-0900-z.yml").write_text(
        claim_text("sess-20261129-0900-a", "closed"), encoding="utf-8")
    full = store(root).snapshot(NOW)

    fresh = store(root)
    part = fresh.snapshot(NOW, only_statuses=BLOCKING_STATUSES)
    assert fresh.parsed_last == 0
    assert [c.sess_id for c in part.claims] == [
        c.sess_id for c in full.claims if c.status in BLOCKING_STATUSES]
    assert part.corrupt == full.corrupt
    assert [c.as_dict() for c in part.corrupt] == [{"path": "claims/sess-20261129-0900-z.yml", "line": 1,
                                                    "reason": "duplicate of claims/sess-20261129-0900-a.yml "
                                                              "(session ID sess-20261129-0900-a)"}]
    assert fresh.files._pending >= 1  # the closed claim's outcome was never fetched


def test_check_scope_reads_the_whole_brain_when_the_parent_chain_needs_it(tmp_path: Path, settled: None) -> None:
    root = make_brain(tmp_path, {
        "sess-20261129-0800-g.yml": claim_text("sess-20261129-0800-g", "open", "projects/"),
        "sess-20261129-0805-p.yml": claim_text("sess-20261129-0805-p", "closed", "projects/api/",
                                               parent="sess-20261129-0800-g"),
        "sess-20261129-0810-d.yml": claim_text("sess-20261129-0810-d", "open", "projects/api/v1/",
                                               parent="sess-20261129-0805-p"),
    })
    Brain(root, now=NOW.isoformat(), commit=False).snapshot()  # warm the cache and its hints
    entries = parse_scope("projects/api/v1/x.py", root)
    # d → p (closed) → g (open): delegation goes only through open ancestors, so it stops at p and g
    # conflicts (issue 11 item 2); the closed link is read all the same (the parent must exist).
    brain = Brain(root, now=NOW.isoformat(), commit=False)
    assert [c.sess_id for c in brain.check_scope(entries, parent="sess-20261129-0810-d")] == [
        "sess-20261129-0800-g"]
    plain = Brain(root, now=NOW.isoformat(), commit=False).check_scope(entries)
    assert sorted(c.sess_id for c in plain) == ["sess-20261129-0800-g", "sess-20261129-0810-d"]


def test_bsi_claim_list_reads_the_same_cold_and_warm(tmp_path: Path) -> None:

    from tests.bsi import ok, run_bsi

    root = three_claims(tmp_path)

    def bsi(*args: str) -> Any:
        return json.loads(ok(run_bsi(*args, "--json", brain=root, now=NOW.isoformat())))

    cold = bsi("claim", "list")
    assert (root / ".brain" / CACHE_FILE).is_file()
    warm = bsi("claim", "list")
    everything = bsi("claim", "list", "--all")
    assert cold == warm
    assert [c["sess_id"] for c in warm["claims"]] == [
        c["sess_id"] for c in everything["claims"] if c["status"] in BLOCKING_STATUSES]
    assert [c["sess_id"] for c in warm["claims"]] == ["sess-20261129-0900-a", "sess-20261129-0902-c"]


@pytest.mark.parametrize(("text", "answer"), [
    ("a: 1\nb: [x, {c: d}]\n", {"a": 1, "b": ["x", {"c": "d"}]}),
    ("a: yes\nb: true\nc: 2026-11-29\nd: ~\ne: 1:30\n", {"a": "yes", "b": True, "c": "2026-11-29", "d": None,
                                                       "e": 90}),
    ("a: 1\na: 2\n", (2, "duplicate key 'a'")),  # never last-one-wins (issue 11 item 6)
    ("a: {<<: {b: 1}}\n", {"a": {"b": 1}}),
    ("a: " + "[" * 63 + "]" * 63 + "\n", "64 levels"),
    ("a: " + "[" * 64 + "]" * 64 + "\n", (1, "nested deeper than 64")),
    ("".join(" " * i + "k:\n" for i in range(70)), (65, "nested deeper than 64")),
    ("a: &x 1\nb: 2\n", (1, "YAML anchors are not allowed")),
    ("a: !!binary aGk=\n", (1, "YAML tags are not allowed (tag:yaml.org,2002:binary)")),
    ("a: 1\n---\nb: 2\n", (2, "more than one YAML document")),
    ("? [a]\n: 1\n", (1, "found unhashable key")),
    ("a: =\n", None),
])
def test_the_one_pass_reader_answers_like_the_event_scan(text: str, answer: Any) -> None:
    """yamlio reads most files in one pass (no event scan): SPEC 13's refusals must not change."""
    from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text

    try:
        got: Any = safe_load_text(text)
    except CorruptYaml as exc:
        got = (exc.line, exc.reason)
    if answer == "64 levels":  # the mapping and 63 lists: data, not an error
        depth, node = 0, got["a"]
        while isinstance(node, list):
            depth, node = depth + 1, node[0] if node else None
        assert depth == 63
    elif answer is None:  # an error either way (the reason is PyYAML's)
        assert isinstance(got, tuple)
    else:
        assert got == answer


def test_a_hint_read_back_from_the_database_is_a_status_member(tmp_path: Path, settled: None) -> None:
    root = three_claims(tmp_path)
    (root / "claims" / "sess-20261129-0903-d.yml").write_text(
        claim_text("sess-20261129-0903-d", "on_hold"), encoding="utf-8")
    first = store(root)
    first.snapshot(NOW, only_statuses=BLOCKING_STATUSES)
    assert first.files.flush() is True
    fresh = store(root)
    fresh.files.load_only([f"claims/{p.name}" for p in (root / "claims").iterdir()])
    hints = {p.stem: fresh.files.hint(f"claims/{p.name}", p.stat()) for p in (root / "claims").iterdir()}
    assert hints == {"sess-20261129-0900-a": ("sess-20261129-0900-a", "open"),
                     "sess-20261129-0901-b": ("sess-20261129-0901-b", "closed"),
                     "sess-20261129-0902-c": ("sess-20261129-0902-c", "paused"),
                     "sess-20261129-0903-d": ("sess-20261129-0903-d", "on_hold")}
    unknown = hints.pop("sess-20261129-0903-d")
    assert all(h is not None and isinstance(h[1], Status) for h in hints.values())
    assert unknown is not None and type(unknown[1]) is str


def test_text_that_reads_as_sql_is_stored_and_cached_exactly(tmp_path: Path) -> None:
    # Defect 14.10 of the old scripts: messages were spliced into SQL unescaped. The read cache is SQLite: a story
    # and a gate message made of SQL come back exactly, cold and warm, and the cache keeps working.
    from tests.bsi import ok, run_bsi

    root = tmp_path / "brain"
    ok(run_bsi("init", str(root), cwd=tmp_path))
    sql = "x'); DROP TABLE entries; --\" OR 1=1; DELETE FROM meta WHERE 'a'='a"
    sess = ok(run_bsi("claim", "open", "--scope", "q/", "--story", sql, brain=root, now=NOW.isoformat())).strip()
    ok(run_bsi("gate", "request", sess, sql, brain=root, now=NOW.isoformat()))

    def shown() -> Any:
        return json.loads(ok(run_bsi("--json", "claim", "show", sess, brain=root, now=NOW.isoformat())))

    cold, warm = shown(), shown()
    assert cold == warm and cold["story_angle"] == sql and cold["gate_history"][-1]["message"] == sql
    assert (root / ".brain" / CACHE_FILE).is_file()
    con = sqlite3.connect(root / ".brain" / CACHE_FILE)
    try:
        assert {"entries", "meta"} <= {name for (name,) in con.execute("SELECT name FROM sqlite_master")}
    finally:
        con.close()
