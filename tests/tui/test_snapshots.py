"""Snapshot tests of the cockpit's screens (pytest-textual-snapshot).

Deterministic: the demo brain is built at a fixed now, the same clock is
injected into the app, the environment reading is fixed, there is no timer,
watcher or animation, inputs do not blink and the theme is set explicitly.
Regenerate with `pytest tests/tui/test_snapshots.py --snapshot-update` only
after reading the diff report.
"""

from __future__ import annotations

from .conftest import FULL_ENV, GATED, SEARCH


def _select(table_id: str, key: str):  # noqa: ANN202
    async def run_before(pilot) -> None:  # noqa: ANN001
        table = pilot.app.screen.query_one(table_id)
        table.focus()
        table.select_key(key)
        await pilot.pause()

    return run_before


def test_main_screen_80x24(snap_compare, make_app) -> None:  # noqa: ANN001
    """SSH on a phone: one pane at a time, the claims pane first."""
    assert snap_compare(make_app(), terminal_size=(80, 24))


def test_main_screen_120x40(snap_compare, make_app) -> None:  # noqa: ANN001
    """The wide layout: every pane at once."""
    assert snap_compare(make_app(), terminal_size=(120, 40))


def test_gate_screen(snap_compare, make_app) -> None:  # noqa: ANN001
    """`--gates` at 80x24, the gate claim selected: message, effect, result, files."""
    assert snap_compare(make_app(gates=True), press=["down"], terminal_size=(80, 24))


def test_open_form_with_conflict_preview(snap_compare, make_app) -> None:  # noqa: ANN001
    """`o` on a leaf, scope `*`: the preview lists every blocking claim it meets."""
    assert snap_compare(make_app(), press=["o", "asterisk"], terminal_size=(120, 40),
                        run_before=_select("#active", SEARCH))


def test_close_dialog_tier2(snap_compare, make_app) -> None:  # noqa: ANN001
    """`c` on a code satellite: Tier 2 asks the test counts."""
    assert snap_compare(make_app(), press=["c"], terminal_size=(100, 32), run_before=_select("#active", SEARCH))


def test_approve_dialog(snap_compare, make_app) -> None:  # noqa: ANN001
    """`a` on the waiting gate: message, effect, result, files; the Approve button has focus."""
    assert snap_compare(make_app(), press=["a"], terminal_size=(100, 32), run_before=_select("#active", GATED))


def test_gate_diff_80x24(snap_compare, make_app) -> None:  # noqa: ANN001
    """`a` then `d` on the waiting gate: changed files, tests figures, the coloured diff (issue 19)."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await _select("#active", GATED)(pilot)
        await pilot.press("a")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("d")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=run_before)


def test_help_screen(snap_compare, make_app) -> None:  # noqa: ANN001
    """`?`: every key from the command table."""
    assert snap_compare(make_app(), press=["question_mark"], terminal_size=(80, 24))


def test_ansi_dark(snap_compare, make_app) -> None:  # noqa: ANN001
    """A poor terminal: the ansi-dark theme uses only the terminal's 16 colours (`brain-tui` picks it under
    NO_COLOR, where Textual then drops the colours too — see test_no_color_keeps_meaning_without_colour)."""
    app = make_app(theme="ansi-dark")
    assert snap_compare(app, terminal_size=(80, 24))


def _keys_then_workers(*keys: str):  # noqa: ANN202
    """Press keys, then wait for the thread workers they started (the lint) and the refresh after them."""
    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.press(*keys)
        for _ in range(2):
            await pilot.pause()
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run_before


def test_environment_pane_80x24(snap_compare, make_app) -> None:  # noqa: ANN001
    """Pane 4 with a full fixed reading: git (dirty, ahead/behind), pm2, ports up/down, listening ports with their
    process, a port variable that is not a number, and a failing memory source shown as such."""
    app = make_app(env_provider=lambda _brain: (FULL_ENV, ""))
    assert snap_compare(app, press=["4"], terminal_size=(80, 24))


def test_breath_pane_80x24(snap_compare, make_app) -> None:  # noqa: ANN001
    """Pane 5: the demo's five sprints, each metric a bar chart with its threshold line, the inhale rule, the
    alerts (red bars where the core raised one)."""
    assert snap_compare(make_app(), press=["5"], terminal_size=(80, 24))


def test_lint_screen(snap_compare, make_app) -> None:  # noqa: ANN001
    """`l` (or the palette's "Lint"): the demo's deliberately invalid header, with path, line, field, message."""
    assert snap_compare(make_app(), terminal_size=(100, 24), run_before=_keys_then_workers("l"))


def test_main_screen_120x40_crowded(snap_compare, make_app, crowded_root) -> None:  # noqa: ANN001
    """46 active claims at 120x40: the claims pane takes the rows the other panes do not need."""
    assert snap_compare(make_app(), terminal_size=(120, 40))


def test_history_pane_120x40(snap_compare, make_app) -> None:  # noqa: ANN001
    """`7` in the wide layout: History across the bottom band (the environment gives way), every column shown."""
    assert snap_compare(make_app(), press=["7"], terminal_size=(120, 40))
