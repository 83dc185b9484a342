"""A breath record that does not read (SPEC 13, 17): every action on it is refused with exit 65 in one line naming the
file, nothing is written or committed, and `breath show` of it says it is corrupt rather than missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import INHERITED_ENV, bsi_at, git, run_bsi

NOW = "2026-11-29T10:00:00Z"
bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)

#: sprint → the record's text: each reads as a corrupt row in `breath show`, or holds a field no edit can keep.
RECORDS = {
    "sprint-dup": "sprint: sprint-dup\ninhale: {a: [x.md]}\ninhale: {b: [y.md]}\n",
    "sprint-map": "sprint: sprint-map\ninhale: {a: {x: 1}}\n",
    "sprint-kept": "sprint: sprint-kept\ninhale: {a: [x.md]}\nreferenced: 5\nkept: 7\n",
    "sprint-list": "- a\n- b\n",
}
ACTIONS = {
    "reference": ["reference", "{s}", "x.md"],
    "expire": ["expire", "{s}", "x.md"],
    "inhale": ["inhale", "{s}", "--agent", "z", "q.md"],
}


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("breath-corrupt") / "brain"
    proc = run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    for sprint, text in RECORDS.items():
        (root / "breath" / f"{sprint}.yml").write_text(text, encoding="utf-8")
    (root / "breath" / "sprint-date.yml").write_text(
        "sprint: sprint-date\ninhale: {a: [x.md]}\nopened_at: 2026-13-45\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "hand-written records", env=INHERITED_ENV)
    return root


@pytest.mark.parametrize("sprint", sorted(RECORDS))
@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_an_edit_of_a_record_that_does_not_read_is_refused_whole(brain: Path, sprint: str, action: str) -> None:
    before = (brain / "breath" / f"{sprint}.yml").read_bytes()
    head = git(brain, "rev-parse", "HEAD").strip()
    proc = bsi(brain, "breath", *[arg.format(s=sprint) for arg in ACTIONS[action]])
    assert proc.code == 65, (proc.code, proc.err)
    lines = proc.err.strip().splitlines()
    assert len(lines) == 1 and f"breath/{sprint}.yml" in lines[0] and "internal error" not in proc.err, proc.err
    assert (brain / "breath" / f"{sprint}.yml").read_bytes() == before
    assert git(brain, "rev-parse", "HEAD").strip() == head


@pytest.mark.parametrize("sprint", sorted(RECORDS))
def test_show_of_a_corrupt_record_says_corrupt_not_missing(brain: Path, sprint: str) -> None:
    proc = bsi(brain, "breath", "show", sprint)
    assert proc.code == 65, (proc.code, proc.err)
    assert f"breath/{sprint}.yml" in proc.err and "no breath record" not in proc.err, proc.err
    as_json = bsi(brain, "breath", "show", sprint, "--json")
    assert as_json.code == 65 and json.loads(as_json.out)["exit"] == 65


def test_a_record_with_an_impossible_date_is_edited_not_crashed_on(brain: Path) -> None:
    """A date the reader keeps as text (month 13) is no reason for an internal error: the edit goes through."""
    proc = bsi(brain, "breath", "reference", "sprint-date", "x.md")
    assert proc.code == 0, proc.err
    proc = bsi(brain, "breath", "expire", "sprint-date", "x.md")
    assert proc.code == 0, proc.err
    text = (brain / "breath" / "sprint-date.yml").read_text(encoding="utf-8")
    assert "2026-13-45" in text and "closed_at" in text
