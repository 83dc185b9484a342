"""Breath figures as shown (SPEC 17): what `bsi breath` echoes is what it recorded, and a value next to a threshold is
never rounded onto it (a 30.4 % stale ratio that alerts must not read "30% > 30%")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain_tui.core.environment.breath_metrics import metrics
from brain_tui.tui.widgets.breath_panel import fmt_value, render_breath
from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00Z"
bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("breath-figures") / "brain"
    proc = run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    return root


def test_inhale_and_expire_echo_the_distinct_files_they_recorded(brain: Path) -> None:
    sprint = "sprint-echo"
    inhaled = bsi(brain, "breath", "inhale", sprint, "--agent", "dev", "./a.md", "a.md", "src//b.py", "--json")
    assert inhaled.code == 0, inhaled.err
    assert json.loads(inhaled.out)["files"] == ["a.md", "src/b.py"]
    text = bsi(brain, "breath", "inhale", sprint, "--agent", "dev", "./a.md", "a.md")
    assert text.code == 0 and "inhaled 1 file(s)" in text.out, text.out
    expired = bsi(brain, "breath", "expire", sprint, "./a.md", "a.md", "--keep", "./src/b.py=open TODO", "--json")
    assert expired.code == 0, expired.err
    doc = json.loads(expired.out)
    assert doc["released"] == ["a.md"] and doc["kept"] == {"src/b.py": "open TODO"}
    shown = json.loads(bsi(brain, "breath", "show", sprint, "--json").out)["sprints"][0]
    assert (shown["loaded"], shown["released"], shown["kept"]) == (2, 1, 1)


def closed(loaded: int, referenced: int, released: int) -> dict[str, object]:
    files = [f"f{i}.md" for i in range(loaded)]
    return {"sprint": "sprint-near", "opened_at": "2026-11-29T09:00:00Z", "closed_at": "2026-11-29T11:00:00Z",
            "inhale": {f"agent{i}": [f] for i, f in enumerate(files)}, "referenced": files[:referenced],
            "released": files[:released]}


# (loaded, referenced, released): stale 7/23 = 30.4 % (> 30 %), exhale 11/23 = 47.8 %, load 501/250 = 2.004 (> 2.0),
# exhale 199/400 = 49.75 % (< 50 %)
@pytest.mark.parametrize(("record", "metric", "avoid"), [
    (closed(23, 16, 23), "stale_ratio", "30%"),
    (closed(501, 250, 501), "context_load", "2.00"),
    (closed(400, 400, 199), "exhale_rate", "50%"),
])
def test_an_alerting_value_never_reads_as_its_threshold(record: dict[str, object], metric: str, avoid: str) -> None:
    (m,) = metrics([record])
    alert = next(a for a in m.alerts if a["metric"] == metric)
    value_shown = alert["message"].split()[1]  # "<metric> <value> <op> <threshold>: <word>"
    assert value_shown != avoid.strip(), alert["message"]
    assert fmt_value(metric, getattr(m, metric)) == value_shown
    pane = render_breath([m], width=60).plain
    last = next(line for line in pane.splitlines() if line.startswith(("<", ">"))
                and line.split()[0] == ("<50%" if metric == "exhale_rate" else ">30%" if metric == "stale_ratio"
                                        else ">2.0"))
    assert last.split()[-1] == value_shown, pane


def test_the_command_line_table_does_not_round_onto_a_threshold(brain: Path) -> None:
    sprint = "sprint-table"
    files = [f"n{i}.md" for i in range(23)]
    assert bsi(brain, "breath", "inhale", sprint, "--agent", "dev", *files).code == 0
    assert bsi(brain, "breath", "reference", sprint, *files[:16]).code == 0
    assert bsi(brain, "breath", "expire", sprint, *files).code == 0
    shown = bsi(brain, "breath", "show", sprint)
    assert shown.code == 0, shown.err
    row = next(line for line in shown.out.splitlines() if line.startswith(sprint))
    assert "30.4%" in row.split() and "30%" not in row.split(), row
    assert "stale_ratio 30.4% > 30%" in shown.out


@pytest.mark.parametrize("session", ["../../x", "notasess", "sess-\x1b[31m", "sess-a/b", ""])
def test_inhale_session_that_is_no_session_id_is_refused(brain: Path, session: str) -> None:
    """SPEC 4 and 13: `--session` names a session, `^sess-[A-Za-z0-9._-]+$`; anything else is exit 65, nothing
    written."""
    sprint = "sprint-badsess"
    proc = bsi(brain, "breath", "inhale", sprint, "--agent", "dev", "--session", session, "a.md")
    assert proc.code == 65, (proc.code, proc.err)
    assert len(proc.err.strip().splitlines()) == 1 and "session" in proc.err
    assert not (brain / "breath" / f"{sprint}.yml").exists()
    good = bsi(brain, "breath", "inhale", "sprint-goodsess", "--agent", "dev", "--session", "sess-20261129-1000-ab",
               "a.md")
    assert good.code == 0, good.err
