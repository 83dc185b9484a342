"""SPEC 17, to the letter: "`loaded` counts distinct files".

A record written by `bsi breath` holds normalised paths, but a record written by hand (or by another tool) may name
one file twice in two spellings (`y.md` and `./y.md`, `src//a.py` and `src/a.py`): it is one file, counted once in
every figure, as SPEC 5.1's normalisation reads any brain path.
"""

from __future__ import annotations

import json
from pathlib import Path

from brain_tui.core.environment.breath_metrics import metrics
from tests.bsi import INHERITED_ENV, run_bsi

NOW = "2026-11-29T10:00:00Z"

#: One sprint naming y.md and src/a.py twice each, in two spellings.
SPELLED_TWICE = {
    "sprint": "sprint-spelled",
    "opened_at": "2026-11-29T09:00:00Z",
    "closed_at": "2026-11-29T09:30:00Z",
    "inhale": {"a": ["x.md", "y.md"], "b": ["./y.md", "src//a.py"], "c": ["src/a.py"]},
    "referenced": ["./x.md", "x.md", "src/a.py"],
    "released": ["x.md", "./src/a.py"],
}


def test_one_file_in_two_spellings_is_loaded_once() -> None:
    (m,) = metrics([SPELLED_TWICE])
    shown = m.as_dict()
    # loaded {x.md, y.md, src/a.py} = 3; referenced {x.md, src/a.py} = 2; released {x.md, src/a.py} = 2
    assert (shown["loaded"], shown["referenced"], shown["released"]) == (3, 2, 2), shown
    assert shown["context_load"] == 1.5
    assert shown["stale_ratio"] == round(1 / 3, 4)
    assert shown["breath_depth"] == 1
    assert shown["exhale_rate"] == round(2 / 3, 4)


def test_breath_show_counts_a_hand_written_record_by_file(tmp_path: Path) -> None:
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV).code == 0
    lines = [
        "sprint: sprint-spelled",
        "opened_at: 2026-11-29T09:00:00Z",
        "closed_at: 2026-11-29T09:30:00Z",
        "inhale: {a: [x.md, y.md], b: [./y.md, src//a.py], c: [src/a.py]}",
        "referenced: [./x.md, x.md, src/a.py]",
        "released: [x.md, ./src/a.py]",
    ]
    (root / "breath" / "sprint-spelled.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shown = run_bsi("--json", "breath", "show", brain=root, now=NOW, env=INHERITED_ENV)
    assert shown.code == 0, shown.err
    (sprint,) = json.loads(shown.out)["sprints"]
    assert (sprint["loaded"], sprint["referenced"], sprint["released"]) == (3, 2, 2), sprint
    assert (sprint["context_load"], sprint["breath_depth"]) == (1.5, 1), sprint


def test_inhale_counts_the_agent_sources_as_show_does(tmp_path: Path) -> None:
    """An inhale into a hand-written record: `./y.md` there and `y.md` now are one source, not two (the inhale rule's
    alert and `breath show` agree)."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV).code == 0
    record = "sprint: sprint-two\nopened_at: 2026-11-29T09:00:00Z\ninhale: {dev: [./y.md, z.md]}\n"
    (root / "breath" / "sprint-two.yml").write_text(record, encoding="utf-8")
    inhaled = run_bsi("--json", "breath", "inhale", "sprint-two", "--agent", "dev", "y.md", brain=root, now=NOW,
                      env=INHERITED_ENV)
    assert inhaled.code == 0, inhaled.err
    assert json.loads(inhaled.out)["alerts"] == [], inhaled.out
    shown = run_bsi("--json", "breath", "show", brain=root, now=NOW, env=INHERITED_ENV)
    (sprint,) = json.loads(shown.out)["sprints"]
    assert sprint["loaded"] == 2 and not [a for a in sprint["alerts"] if a["metric"] == "inhale"], sprint
