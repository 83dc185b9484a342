"""`bsi breath inhale|reference|expire|show` and the breath metrics (SPEC 17)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import yaml

from brain_tui.core.environment.breath_metrics import metrics
from brain_tui.core.errors import InvalidData
from brain_tui.core.records.breath_records import record_from_mapping, validate_sprint_id
from tests import bsi as runner
from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00Z"
S1 = "sprint-20261129-1000-be6"


bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)
git = partial(runner.git, env=INHERITED_ENV)



@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One initialised brain for the module (each test uses its own sprint IDs)."""
    root = tmp_path_factory.mktemp("breath") / "brain"
    proc = run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    return root


def rec(sprint: str, opened: str, inhale: dict[str, list[str]], referenced: Sequence[str] = (),
        released: Sequence[str] = (), closed: str | None = "2026-11-29T12:00:00Z", **extra: Any) -> dict[str, Any]:
    """A raw breath record mapping."""
    data: dict[str, Any] = {"sprint": sprint, "opened_at": opened, "inhale": inhale,
                            "referenced": list(referenced), "released": list(released), **extra}
    if closed:
        data["closed_at"] = closed
    return data


def alert_metrics(m: Any) -> list[str]:
    """The metric names of a SprintMetrics' alerts."""
    return [a["metric"] for a in m.alerts]


# -- metrics, by hand ---------------------------------------------------------------------------------
def test_metrics_match_hand_computed_values() -> None:
    # loaded = {a, b, c} (b counted once although two agents load it); referenced = {a, d}
    # stale = loaded − referenced = {b, c}; released ∩ loaded = {a} (z was never loaded)
    (m,) = metrics([rec("sprint-x", "2026-11-29T09:00:00Z", {"dev": ["a", "b"], "test": ["b", "c"]},
                        referenced=["a", "d"], released=["a", "z"])])
    assert (m.loaded, m.referenced, m.stale, m.released) == (3, 2, 2, 1)
    assert m.context_load == pytest.approx(3 / 2)
    assert m.stale_ratio == pytest.approx(2 / 3)
    assert m.breath_depth == 3 - 1
    assert m.exhale_rate == pytest.approx(1 / 3)
    assert alert_metrics(m) == ["stale_ratio", "exhale_rate"]


@pytest.mark.parametrize(("loaded", "referenced", "alert"), [(4, 2, False), (5, 2, True)])
def test_context_load_alert_above_2(loaded: int, referenced: int, alert: bool) -> None:
    files = [f"f{i}" for i in range(loaded)]
    # reference only loaded files, release everything: only context_load and stale_ratio can fire
    (m,) = metrics([rec("sprint-x", "2026-11-29T09:00:00Z", {f"agent{i}": [f] for i, f in enumerate(files)},
                        referenced=files[:referenced], released=files)])
    assert m.context_load == pytest.approx(loaded / referenced)
    assert ("context_load" in alert_metrics(m)) is alert


@pytest.mark.parametrize(("stale", "alert"), [(3, False), (4, True)])
def test_stale_ratio_alert_above_30_percent(stale: int, alert: bool) -> None:
    files = [f"f{i}" for i in range(10)]
    (m,) = metrics([rec("sprint-x", "2026-11-29T09:00:00Z", {f"agent{i}": [f] for i, f in enumerate(files)},
                        referenced=files[stale:], released=files)])
    assert m.stale_ratio == pytest.approx(stale / 10)
    assert ("stale_ratio" in alert_metrics(m)) is alert


@pytest.mark.parametrize(("released", "alert"), [(2, False), (1, True)])
def test_exhale_rate_alert_below_50_percent(released: int, alert: bool) -> None:
    files = ["a", "b", "c", "d"]
    (m,) = metrics([rec("sprint-x", "2026-11-29T09:00:00Z", {"dev": files[:2], "test": files[2:]},
                        referenced=files, released=files[:released])])
    assert m.exhale_rate == pytest.approx(released / 4)
    assert ("exhale_rate" in alert_metrics(m)) is alert


def test_exhale_alerts_wait_for_the_expire() -> None:
    (m,) = metrics([rec("sprint-x", "2026-11-29T09:00:00Z", {"dev": ["a", "b"]}, referenced=["a", "b"],
                        closed=None)])
    assert m.is_open and m.exhale_rate == 0.0
    assert m.alerts == ()


def test_division_by_zero_gives_null_metrics_without_alert() -> None:
    (m,) = metrics([rec("sprint-x", "2026-11-29T09:00:00Z", {})])
    assert (m.context_load, m.stale_ratio, m.exhale_rate, m.breath_depth) == (None, None, None, 0)
    assert m.alerts == ()
    (m,) = metrics([rec("sprint-y", "2026-11-29T09:00:00Z", {"dev": ["a"]}, released=["a"])])
    assert m.context_load is None and "context_load" not in alert_metrics(m)
    assert m.as_dict()["context_load"] is None


def depth_sprints(depths: list[int]) -> list[dict[str, Any]]:
    """Closed sprints whose breath_depth is each of `depths`, opened a day apart; IDs in reverse order."""
    out = []
    for day, depth in enumerate(depths):
        files = [f"f{i}" for i in range(depth + 1)]
        out.append(rec(f"sprint-{chr(ord('z') - day)}", f"2026-11-{10 + day}T09:00:00Z", {"dev": files},
                       referenced=files, released=files[:1], closed=f"2026-11-{10 + day}T11:00:00Z"))
    return out


def test_breath_depth_alert_when_it_grows_3_sprints_in_a_row() -> None:
    result = metrics(depth_sprints([5, 1, 2, 3, 4, 4]))
    assert [m.breath_depth for m in result] == [5, 1, 2, 3, 4, 4]  # ordered by opened_at, not by ID
    assert [m.sprint for m in result][:2] == ["sprint-z", "sprint-y"]
    assert ["breath_depth" in alert_metrics(m) for m in result] == [False, False, False, True, True, False]
    alert = next(a for a in result[3].alerts if a["metric"] == "breath_depth")
    assert "1 → 2 → 3" in alert["message"]


def test_breath_depth_trend_ignores_flat_steps_and_open_sprints() -> None:
    sprints = depth_sprints([1, 2, 2, 3])
    assert not any("breath_depth" in alert_metrics(m) for m in metrics(sprints))
    # an open sprint in the middle is not part of the closed series
    sprints = depth_sprints([1, 2, 9, 3])
    sprints[2]["closed_at"] = None
    result = metrics(sprints)
    assert ["breath_depth" in alert_metrics(m) for m in result] == [False, False, False, True]


def test_two_sources_per_agent_rule_is_an_alert() -> None:
    (m,) = metrics([rec("sprint-x", "2026-11-29T09:00:00Z",
                        {"tech-lead": ["a", "b", "c"], "testing": ["d", "e"]}, referenced=["a", "b", "c", "d", "e"],
                        released=["a", "b", "c", "d", "e"])])
    inhale = [a for a in m.alerts if a["metric"] == "inhale"]
    assert len(inhale) == 1
    assert inhale[0]["agent"] == "tech-lead" and inhale[0]["value"] == 3


def test_record_from_mapping_refuses_a_bad_sprint_id() -> None:
    with pytest.raises(ValueError):
        record_from_mapping({"sprint": "../claims/x", "inhale": {}})


# -- the CLI ------------------------------------------------------------------------------------------
def test_inhale_reference_expire_show_round_trip(brain: Path) -> None:
    sprint = S1
    p = bsi(brain, "breath", "inhale", sprint, "--agent", "tech-lead", "--session", "sess-20261129-1000-pilot",
            "projets/x.md", "./src/auth.ts")
    assert p.code == 0, p.err
    p = bsi(brain, "breath", "inhale", sprint, "--agent", "testing", "tests/auth.spec.ts",
            now="2026-11-29T10:30:00Z")
    assert p.code == 0, p.err
    assert git(brain, "log", "-1", "--format=%s").strip() == f"bsi: breath inhale {sprint}"
    p = bsi(brain, "breath", "reference", sprint, "projets/x.md", "src/auth.ts")
    assert p.code == 0, p.err
    assert git(brain, "log", "-1", "--format=%s").strip() == f"bsi: breath reference {sprint}"
    p = bsi(brain, "breath", "expire", sprint, "projets/x.md", "tests/auth.spec.ts",
            "--keep", "src/auth.ts=pagination not tested", now="2026-11-29T12:00:00Z")
    assert p.code == 0, p.err
    assert git(brain, "log", "-1", "--format=%s").strip() == f"bsi: breath expire {sprint}"
    assert git(brain, "status", "--porcelain", "breath").strip() == ""  # committed

    data = yaml.safe_load((brain / "breath" / f"{sprint}.yml").read_text(encoding="utf-8"))
    assert data["sprint"] == sprint and data["session"] == "sess-20261129-1000-pilot"
    assert data["opened_at"] == "2026-11-29T10:00:00+00:00"  # the first inhale, not the second
    assert data["closed_at"] == "2026-11-29T12:00:00+00:00"
    assert data["inhale"] == {"tech-lead": ["projets/x.md", "src/auth.ts"], "testing": ["tests/auth.spec.ts"]}
    assert data["referenced"] == ["projets/x.md", "src/auth.ts"]
    assert data["released"] == ["projets/x.md", "tests/auth.spec.ts"]
    assert data["kept"] == {"src/auth.ts": "pagination not tested"}
    assert list(data)[:4] == ["sprint", "session", "opened_at", "closed_at"]

    p = bsi(brain, "breath", "show", sprint, "--json")
    assert p.code == 0, p.err
    doc = json.loads(p.out)
    (row,) = doc["sprints"]
    assert {"sprint", "context_load", "stale_ratio", "breath_depth", "exhale_rate", "alerts"} <= set(row)
    # loaded 3, referenced 2, stale 1 (tests/auth.spec.ts), released 2
    assert row["sprint"] == sprint
    assert row["context_load"] == pytest.approx(1.5)
    assert row["stale_ratio"] == pytest.approx(1 / 3, abs=1e-4)
    assert row["breath_depth"] == 1
    assert row["exhale_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert [a["metric"] for a in row["alerts"]] == ["stale_ratio"]
    assert all(isinstance(a["message"], str) for a in row["alerts"])
    text = bsi(brain, "breath", "show", sprint)
    assert text.code == 0 and sprint in text.out and "stale_ratio 33% > 30%" in text.out


def test_inhale_over_two_sources_is_reported_not_refused(brain: Path) -> None:
    sprint = "sprint-rule-2"
    p = bsi(brain, "breath", "inhale", sprint, "--agent", "tech-lead", "--json", "a.md", "b.md", "c.md")
    assert p.code == 0, p.err
    assert "at most 2" in p.err
    assert [a["metric"] for a in json.loads(p.out)["alerts"]] == ["inhale"]
    assert (brain / "breath" / f"{sprint}.yml").is_file()
    row = json.loads(bsi(brain, "breath", "show", sprint, "--json").out)["sprints"][0]
    assert any(a["metric"] == "inhale" and a["agent"] == "tech-lead" for a in row["alerts"])


# every action is asked of `Brain` in tests/rules/test_breath_ids.py; `bsi` keeps one for the exit code
@pytest.mark.parametrize("args", [["inhale", "--agent", "a", "x.md"]])
def test_bad_sprint_id_exits_65_on_every_action(brain: Path, args: list[str]) -> None:
    before = sorted(p.name for p in brain.rglob("*.yml"))
    p = bsi(brain, "breath", args[0], "../claims/evil", *args[1:])
    assert p.code == 65, p.err
    assert "invalid sprint ID" in p.err
    assert sorted(p.name for p in brain.rglob("*.yml")) == before


@pytest.mark.parametrize("bad", ["sprint-a/b", "sess-20261129-1000-x", "sprint-", "sprint-a b", "sprint-é", ""])
def test_sprint_id_pattern(bad: str) -> None:
    with pytest.raises(InvalidData) as err:
        validate_sprint_id(bad)
    assert err.value.exit_code == 65
    assert validate_sprint_id("sprint-20261129-1000-be6.v2_x") == "sprint-20261129-1000-be6.v2_x"


def test_reference_before_inhale_is_not_found(brain: Path) -> None:
    p = bsi(brain, "breath", "reference", "sprint-never-opened", "x.md")
    assert p.code == 66
    assert not (brain / "breath" / "sprint-never-opened.yml").exists()
    assert bsi(brain, "breath", "show", "sprint-never-opened").code == 66


def test_bad_paths_and_keep_syntax_are_refused(brain: Path) -> None:
    assert bsi(brain, "breath", "inhale", "sprint-paths", "--agent", "a", "/etc/passwd").code == 65
    assert bsi(brain, "breath", "inhale", "sprint-paths", "--agent", "a", "../outside.md").code == 65
    assert bsi(brain, "breath", "inhale", "sprint-paths", "--agent", "a", "ok.md").code == 0
    assert bsi(brain, "breath", "expire", "sprint-paths", "--keep", "ok.md").code == 64
    assert bsi(brain, "breath", "expire", "sprint-paths", "ok.md", "--keep", "ok.md=why").code == 65


def test_edits_keep_comments_of_a_hand_written_record(brain: Path) -> None:
    path = brain / "breath" / "sprint-hand.yml"
    path.write_text("# written by hand\nsprint: sprint-hand\nopened_at: '2026-11-28T09:00:00+00:00'\n"
                    "inhale:\n  dev: [a.md]  # the only source\nreferenced: []\nreleased: []\nkept: {}\n",
                    encoding="utf-8")
    assert bsi(brain, "breath", "reference", "sprint-hand", "a.md").code == 0
    text = path.read_text(encoding="utf-8")
    assert "# written by hand" in text and "# the only source" in text
    assert yaml.safe_load(text)["referenced"] == ["a.md"]


def test_corrupt_record_is_a_row_not_a_crash(brain: Path) -> None:
    (brain / "breath" / "sprint-broken.yml").write_text("sprint: [unclosed\n", encoding="utf-8")
    p = bsi(brain, "breath", "show", "--json")
    assert p.code == 0, p.err
    doc = json.loads(p.out)
    assert any(c["path"] == "breath/sprint-broken.yml" for c in doc["corrupt"])
    assert bsi(brain, "breath", "reference", "sprint-broken", "a.md").code == 65
    (brain / "breath" / "sprint-broken.yml").unlink()


def test_demo_brain_has_breath_alerts(demo_brain: Path) -> None:
    """The demo brain (`bsi demo` at NOW, built once a session: tests/conftest.py) shows every breath alert."""
    root = demo_brain
    rows = json.loads(bsi(root, "breath", "show", "--json").out)["sprints"]
    assert len(rows) == 5
    alerts = {a["metric"] for r in rows for a in r["alerts"]}
    assert {"context_load", "stale_ratio", "exhale_rate", "breath_depth", "inhale"} <= alerts
    assert [r["open"] for r in rows] == [False, False, False, False, True]
    assert "bsi: breath demo sprints" in git(root, "log", "--format=%s")


def test_text_from_the_brain_reaches_the_terminal_inert(brain: Path) -> None:
    """A record's file name and an agent's name are brain text: no escape or bidi control is printed raw (SPEC 15)."""
    hostile = brain / "breath" / "sprint-x\x1b]0;pwned\x07\x1b[2J.yml"
    hostile.write_text("sprint: [unclosed\n", encoding="utf-8")
    try:
        shown = bsi(brain, "breath", "show")
        assert shown.code == 0, shown.err
        assert "sprint-x" in shown.err and "0;pwned" in shown.err
        inhaled = bsi(brain, "breath", "inhale", "sprint-inert", "--agent", "\u202eagent\u200b", "a.md", "b.md",
                      "c.md")
        assert inhaled.code == 0, inhaled.err
        assert "agent" in inhaled.out and "at most 2" in inhaled.err
        expired = bsi(brain, "breath", "expire", "sprint-inert", "a.md", "\u202eb.md")
        assert expired.code == 0 and "was not inhaled" in expired.err, expired.err
        for out in (shown.out, shown.err, inhaled.out, inhaled.err, expired.out, expired.err):
            assert not any(ch in out for ch in "\x1b\x07\u202e\u200b"), out
    finally:
        hostile.unlink()
