"""A write's cost follows the live claims (issue 18): one read of the brain, no old closed claim decoded,
and BRAIN-INDEX.md byte-identical to the one rendered from every claim."""

from __future__ import annotations

import importlib.util
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.paths.layout import INDEX_FILE
from brain_tui.core.paths.scope import parse_scope_args
from brain_tui.core.records import formats, index, store
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.rules import claims
from brain_tui.core.rules.claims import CloseRequest, OpenRequest

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
OLD = "sess-20260901-0900-old"
RECENT = "sess-20261120-0900-recent"
LIVE = "sess-20261129-0900-live"


def _claim(sess_id: str, status: str, scope: str, opened: datetime, closed: datetime | None = None) -> str:
    lines = [f"sess_id: {sess_id}", "type: solo", "instance: prod@laptop", f"scope: {scope}",
             f"status: {status}", f"opened_at: '{opened.isoformat()}'",
             f"expires_at: '{(opened + timedelta(hours=2)).isoformat()}'"]
    if closed is not None:
        lines.append(f"closed_at: '{closed.isoformat()}'")
    return "\n".join(lines) + "\n"


def _brain(root: Path) -> Path:
    (root / "claims").mkdir(parents=True)
    (root / "signals").mkdir()
    files = {
        OLD: _claim(OLD, "closed", "wiki/old/", datetime(2026, 9, 1, 9, tzinfo=UTC),
                    datetime(2026, 9, 1, 11, tzinfo=UTC)),
        RECENT: _claim(RECENT, "closed", "wiki/recent/", datetime(2026, 11, 20, 9, tzinfo=UTC),
                       datetime(2026, 11, 20, 11, tzinfo=UTC)),
        LIVE: _claim(LIVE, "open", "projects/", datetime(2026, 11, 29, 9, tzinfo=UTC)),
    }
    for sess_id, text in files.items():
        (root / "claims" / f"{sess_id}.yml").write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Counts `BrainStore.snapshot` calls and the claim files decoded into claims (by path)."""
    seen: dict[str, Any] = {"snapshots": 0, "decoded": []}
    real_snapshot = store.BrainStore.snapshot
    real_decode = formats.claim_from_mapping

    def snapshot(self: store.BrainStore, *args: Any, **kwargs: Any) -> Any:
        seen["snapshots"] += 1
        return real_snapshot(self, *args, **kwargs)

    def decode(data: Any, rel_path: str, *args: Any, **kwargs: Any) -> Any:
        seen["decoded"].append(rel_path)
        return real_decode(data, rel_path, *args, **kwargs)

    monkeypatch.setattr(store.BrainStore, "snapshot", snapshot)
    monkeypatch.setattr(store, "claim_from_mapping", decode)
    return seen


def _open(brain: Brain, scope: str) -> str:
    req = OpenRequest(scope=parse_scope_args([scope], brain.root), ttl=timedelta(hours=2), instance="t@h")
    return brain.open_claim(req)


def test_claim_open_reads_the_brain_once_and_decodes_no_old_closed_claim(tmp_path: Path,
                                                                          counted: dict[str, Any]) -> None:
    brain = Brain(_brain(tmp_path / "b"), now=NOW.isoformat(), commit=False)
    sess_id = _open(brain, "deploy/")
    assert counted["snapshots"] == 1, "a write decides, indexes and answers on one read of the brain"
    assert f"claims/{OLD}.yml" not in counted["decoded"], "a claim closed before the 30-day window was decoded"
    text = (brain.root / INDEX_FILE).read_text(encoding="utf-8")
    assert sess_id in text and LIVE in text and RECENT in text  # active rows and the 30-day history
    assert OLD not in text


def test_claim_close_reads_the_brain_once(tmp_path: Path, counted: dict[str, Any]) -> None:
    brain = Brain(_brain(tmp_path / "b"), now=NOW.isoformat(), commit=False)
    brain.close_claim(LIVE, CloseRequest(status="ok"))
    assert counted["snapshots"] == 1
    assert f"claims/{OLD}.yml" not in counted["decoded"]
    block = (brain.root / INDEX_FILE).read_text(encoding="utf-8")
    history = block.split(index.H_HISTORY, 1)[1]
    assert LIVE in history and RECENT in history and OLD not in history


def test_an_old_closed_claim_is_refused_as_on_the_whole_brain(tmp_path: Path) -> None:
    """Closing a claim closed months ago asks for a claim the partial read skipped: decided on the whole brain."""
    root = _brain(tmp_path / "b")
    brain = Brain(root, now=NOW.isoformat(), commit=False)
    with pytest.raises(BsiError) as whole:
        claims.close_claim(ChangeSet(brain.store.snapshot(NOW)), OLD, CloseRequest(status="ok"))
    with pytest.raises(BsiError) as got:
        brain.close_claim(OLD, CloseRequest(status="ok"))
    assert (type(got.value), got.value.exit_code, got.value.message) == (
        type(whole.value), whole.value.exit_code, whole.value.message)


def _generate(root: Path, size: int) -> None:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "generate.py"
    spec = importlib.util.spec_from_file_location("bench_generate", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    module.generate(root, size, now=NOW.isoformat(), git=False)


def test_index_from_the_live_claims_equals_the_index_of_every_claim(tmp_path: Path) -> None:
    """On a generated 2,000-claim brain, the block `bsi index` writes is the one rendered from every claim."""
    root = tmp_path / "gen"
    _generate(root, 2000)
    brain = Brain(root, now=NOW.isoformat(), commit=False)
    expected = index.render_block(brain.store.snapshot(NOW), brain.display_tz)
    brain.regenerate_index()
    text = (root / INDEX_FILE).read_text(encoding="utf-8")
    got = text[text.index(index.START):text.index(index.END) + len(index.END)]
    assert got == expected
    assert got.count("\n| sess-") > 10  # the history holds rows: the equality is not between two empty tables


def test_the_index_render_decodes_no_claim_closed_before_the_window(tmp_path: Path, counted: dict[str, Any]) -> None:
    brain = Brain(_brain(tmp_path / "b"), now=NOW.isoformat(), commit=False)
    brain.regenerate_index()
    assert counted["decoded"], "the live claims are decoded"
    assert f"claims/{OLD}.yml" not in counted["decoded"]
    assert RECENT in (brain.root / INDEX_FILE).read_text(encoding="utf-8")
