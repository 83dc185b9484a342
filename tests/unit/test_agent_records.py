"""The `.json` records of an agents folder, as the hand-over, pending and session reads list them."""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.sessions.agent_files import json_records


def test_json_records_lists_the_json_files_in_name_order_and_none_for_one_that_does_not_read(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('{"sess_id": "sess-b"}')
    (tmp_path / "a.json").write_text("not json")
    (tmp_path / ".c.json").write_text("{}")
    (tmp_path / "d.txt").write_text("{}")
    assert list(json_records(str(tmp_path))) == [("a.json", str(tmp_path / "a.json"), None),
                                                 ("b.json", str(tmp_path / "b.json"), {"sess_id": "sess-b"})]
    assert list(json_records(str(tmp_path / "missing"))) == []
