"""The environment and breath panes and the lint screen (SPEC 16–18, issue 6).

The breath pane draws each metric as a two-row bar chart with its threshold
line; the bars the core flagged are red. The environment pane shows every
source, and a failing or hung source as such. The lint screen lists `bsi lint`
findings through `safe_text`.
"""

from __future__ import annotations

import subprocess
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content

from brain_tui.core.environment.breath_metrics import SprintMetrics
from brain_tui.tui import sources
from brain_tui.tui.screens.lint import LintScreen
from brain_tui.tui.styles import ERROR, OK, WARN
from brain_tui.tui.widgets.breath_panel import BLOCKS, LINE, bar_cells, render_breath
from brain_tui.tui.widgets.env_panel import render_env

from .conftest import FULL_ENV, screen_text, settle

pytestmark = pytest.mark.anyio

RED = ERROR  # the error role: bold, in the theme's $text-error


def sprint(name: str, *, load: float | None = 1.0, stale: float | None = 0.0, depth: int = 1,
           exhale: float | None = 0.5, alerts: tuple[dict[str, Any], ...] = (), open_: bool = False) -> SprintMetrics:
    return SprintMetrics(sprint=f"sprint-20261129-1000-{name}", opened_at=None,
                         closed_at=None if open_ else datetime(2026, 11, 29, 11, tzinfo=UTC),
                         loaded=2, referenced=2, released=1, stale=0, kept=0, context_load=load,
                         stale_ratio=stale, breath_depth=depth, exhale_rate=exhale, alerts=alerts)


def styles_of(text: Content, fragment: str, after: str = "") -> set[str]:
    """The styles of the spans covering the first occurrence of `fragment` in `text` (after `after`)."""
    start = text.plain.index(fragment, text.plain.index(after) if after else 0)
    end = start + len(fragment)
    return {str(span.style) for span in text.spans if span.start <= start and span.end >= end}


def row(text: Content, label: str) -> str:
    return next(line for line in text.plain.splitlines() if line.startswith(label))


# -- breath ---------------------------------------------------------------------------------------
def test_bar_cells_put_the_threshold_between_the_two_rows() -> None:
    assert bar_cells(1.0, 2.0, 0) == (4, 0)  # half of the lower row
    assert bar_cells(2.0, 2.0, 0) == (8, 0)  # exactly on the line: nothing above it
    assert bar_cells(3.0, 2.0, 0) == (8, 4)  # past it: half of the upper row
    assert bar_cells(9.0, 2.0, 0) == (8, 8)  # clipped at twice the threshold
    assert bar_cells(0.01, 2.0, 0) == (1, 0)  # a small value stays visible
    assert bar_cells(None, 2.0, 0) is None
    assert bar_cells(4, None, 4.0) == (8, 8)  # no threshold: scaled to the largest value


def test_breath_chart_draws_the_threshold_line_and_reddens_flagged_bars() -> None:
    over = {"metric": "context_load", "value": 3.0, "message": "context_load 3.00 > 2.0: over-loading"}
    data = [sprint("one"), sprint("two", load=3.0, alerts=(over,))]
    text = render_breath(data, width=60)
    upper, lower = row(text, "load"), row(text, ">2.0")
    assert upper.count(LINE) >= 3 + 2  # the line runs across sprint one and its gap
    assert BLOCKS[4] * 3 in upper  # sprint two goes half-way past the line …
    assert RED in styles_of(text, BLOCKS[4] * 3)  # … in red, because the core flagged it
    assert lower.split()[1:] == [BLOCKS[4] * 3, BLOCKS[8] * 3, "3.00"]
    assert OK in styles_of(text, BLOCKS[4] * 3, after=">2.0")  # sprint one: within the limit
    assert RED in styles_of(text, BLOCKS[8] * 3, after=">2.0")
    assert lower.rstrip().endswith("3.00")  # the last sprint's value
    assert "⚠ two context_load 3.00 > 2.0: over-loading" in text.plain


def test_breath_chart_lists_alerts_newest_first_and_the_inhale_rule() -> None:
    inhale = {"metric": "inhale", "agent": "tech-lead", "value": 3, "message": "tech-lead inhaled 3 sources"}
    retention = {"metric": "exhale_rate", "value": 0.2, "message": "exhale_rate 20% < 50%: retention"}
    data = [sprint("old", exhale=0.2, alerts=(retention,)), sprint("new", alerts=(inhale,), open_=True)]
    text = render_breath(data, width=60)
    plain = text.plain
    assert plain.index("⚠ new") < plain.index("⚠ old")
    assert "✓" in row(text, "inhale") and "3!" in row(text, "inhale")
    assert "≤2/ag" in row(text, "inhale")
    assert row(text, "sprint").split()[1:3] == ["old", "new•"]  # the open sprint is marked


def test_breath_chart_shows_only_the_sprints_that_fit() -> None:
    data = [sprint(f"s{i}") for i in range(12)]
    narrow = render_breath(data, width=40)
    wide = render_breath(data, width=100)
    assert row(narrow, "sprint").split()[1:] == ["s7", "s8", "s9", "s10", "s11", "last"]
    assert len(row(wide, "sprint").split()) == 8 + 2  # at most 8 sprints
    assert all(len(line) <= 40 for line in narrow.plain.splitlines() if not line.startswith("⚠"))


def test_breath_without_records_says_so() -> None:
    assert "no breath records" in render_breath([]).plain
    assert "breath: boom" in render_breath(None, "breath: boom").plain


def test_breath_sprint_names_are_made_safe() -> None:
    text = render_breath([sprint("x\x1b[31m")], width=60)
    assert "\x1b" not in text.plain


async def test_breath_pane_on_the_demo_brain(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("5")
        await settle(pilot)
        text = screen_text(app)
        assert "5 Breath · 5 sprints · 5 alerts" in text
        for label in ("load", "stale", "depth", "exhale", "inhale"):
            assert f"│ {label}" in text
        assert "be6b breath_depth grew 3 sprints in a row" in text
        assert "tech-lead inhaled 3 sources" in text


# -- environment ----------------------------------------------------------------------------------
def test_env_shows_every_source_and_the_failing_one() -> None:
    text = render_env(FULL_ENV).plain
    assert "desktop · prod@desktop" in text
    assert "main · 2 dirty · ↑1 ↓2 · origin fetched 2m ago" in text
    assert "dirty  wiki/concepts.md, todo/brain.md" in text
    assert "brain-api online up 1d02h" in text and "brain-mcp errored ↻12" in text
    assert "brain-api :7700 ● up" in text and "brain-mcp :7701 ○ down" in text
    assert "BRAIN_KEY_PORT :? ✗ not a port number" in text
    assert "listen 22 sshd · 7700 node" in text
    assert "mem ✗ PermissionError" in text  # the failing source shows as such …
    assert "disk 63% (40.0G free)" in text  # … and the others still fill in


def test_env_pm2_not_found_and_git_error() -> None:
    data = replace(FULL_ENV, pm2={"available": False, "error": "pm2 not found", "processes": []},
                   git={"error": "git timed out"})
    text = render_env(data)
    assert "pm2    pm2 not found" in text.plain
    assert "git    ✗ git timed out" in text.plain and RED in styles_of(text, "✗ git timed out")


def test_env_says_git_is_in_the_middle_of_an_operation() -> None:
    idle = render_env(FULL_ENV).plain
    assert "git op" not in idle
    data = replace(FULL_ENV, git={**FULL_ENV.git, "operation": "rebase",
                                  "operation_end": "`git rebase --continue` or `--abort`"})
    text = render_env(data)
    line = row(text, "git op")
    assert "a rebase is in progress: bsi writes refuse until it ends (`git rebase --continue` or `--abort`)" in line
    assert WARN in styles_of(text, "a rebase is in progress")
    assert text.plain.index("git op") > text.plain.index("main · 2 dirty")  # under the git row


async def test_the_env_pane_reads_a_merge_under_way_from_git(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """The pane as the cockpit fills it (`Brain.env`, the real git reading): a MERGE_HEAD in the brain's git
    directory shows as the `git op` row."""
    tip = subprocess.run(["git", "-C", str(demo_root), "rev-parse", "HEAD"], capture_output=True, text=True,
                         check=True).stdout
    (demo_root / ".git" / "MERGE_HEAD").write_text(tip, encoding="utf-8")
    app = make_app(env_provider=lambda brain: (brain.env(5.0), ""))
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("4")
        await settle(pilot)
        text = screen_text(app)
        assert "git op a merge is in progress" in text, text


async def test_a_hung_environment_source_times_out_and_says_so(make_app) -> None:  # noqa: ANN001
    release = threading.Event()
    calls: list[int] = []

    def hung(_brain):  # noqa: ANN001, ANN202
        calls.append(1)
        if len(calls) > 1:  # the first reading (at mount, outside a tick) answers; the ticks' readings hang
            release.wait(30)
        return FULL_ENV, ""

    app = make_app(env_provider=hung)
    app.readings.env_guard = sources.Bounded("environment", 0.2)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("4")
        app.readings.env_tick()
        await settle(pilot)
        assert "environment: no answer after 0.2 s (a slow pm2, git or disk?)" in screen_text(app)
        app.readings.env_tick()  # the first call still hangs: no second thread, a clear note
        await settle(pilot)
        assert "previous reading has not finished" in screen_text(app)
        release.set()


def test_bounded_passes_answers_and_errors_through() -> None:
    bounded = sources.Bounded("x", 5)
    assert bounded(lambda: 42) == 42
    with pytest.raises(ValueError, match="bad"):
        bounded(lambda: (_ for _ in ()).throw(ValueError("bad")))


# -- lint -----------------------------------------------------------------------------------------
async def test_lint_screen_lists_findings_from_the_palette(make_app, demo_root: Path) -> None:  # noqa: ANN001
    (demo_root / "wiki" / "evil\x1b[31m.md").write_text("# no header\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert any(t.startswith("Lint") for t in titles)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LintScreen)
        findings = app.screen.findings
        assert findings is not None
        assert {(f.path, f.field) for f in findings} >= {("wiki/concepts.md", "type")}
        text = screen_text(app)
        assert "wiki/concepts.md" in text and "invalid type 'notes'" in text
        assert "2 finding(s) in 2 file(s)" in text
        assert "\x1b" not in text and "⟨ESC⟩" in text  # the hostile file name is shown inert
        await pilot.press("escape")
        assert not isinstance(app.screen, LintScreen)


async def test_lint_screen_on_a_clean_brain(make_app, demo_root: Path) -> None:  # noqa: ANN001
    concepts = demo_root / "wiki" / "concepts.md"
    concepts.write_text(concepts.read_text(encoding="utf-8").replace("type: notes", "type: reference"),
                        encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l")
        await settle(pilot)
        assert app.screen.findings == []
        assert "every header is valid" in screen_text(app)


async def test_lint_selection_shows_the_whole_finding_at_80x24(make_app) -> None:  # noqa: ANN001
    # The selection line was one line that wrapped out of sight: at 80 columns "expected one of invariant |" and
    # the other allowed values were never shown anywhere, so the fix could not be read off the screen.
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LintScreen)
        finding = next(f for f in app.screen.findings or [] if f.path == "wiki/concepts.md")
        assert "expected one of" in finding.message
        lines = [line.strip() for line in screen_text(app).splitlines()]
        shown = " ".join(lines[lines.index(next(x for x in lines if x.startswith("wiki/concepts.md:3"))):-1])
        assert finding.message in shown, shown
