"""The command palette finds panes and claims, not only commands (`ctrl+p`, or `:` to jump to a claim).

Textual's palette reads a hit's prompt and help as markup when they are strings (and `Matcher.highlight`
parses its candidate as markup), so a claim's text reaches it only as a `Content` built from plain text:
a story such as ``[@click=app.quit]here[/]`` shows literally and acts on nothing (SPEC 15).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.command import CommandInput, CommandPalette, DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from brain_tui.core.records.model import BrainSnapshot, Claim

from .commands import COMMANDS, PANES
from .editing import KeysRead, after_keys, relay
from .present import short_id
from .safe import safe_str, safe_text
from .themes import save_settings, settings_path

if TYPE_CHECKING:
    from .app import BrainApp

#: At most this many claims are offered for one query.
MAX_CLAIM_HITS = 30
#: A query this long also searches the finished claims the cockpit does not hold, by file name (session ID).
MIN_HISTORY_QUERY = 3
#: A palette entry: (label, help, what choosing it runs).
Target = tuple[str, str, Callable[[], None]]


class BrainPalette(CommandPalette):
    """Textual's palette with a footer of its own keys, enter and esc (the cockpit's footer below it named keys
    that do nothing while the palette has them)."""

    BINDINGS = [  # per key, these replace Textual's palette's own
        Binding("escape", "escape", "Cancel", id="palette-cancel"),
        # priority: the footer names the focused input's own enter (hidden) before a screen's
        Binding("enter", "choose", "Choose", priority=True, id="palette-choose"),
    ]

    def __init__(self) -> None:
        super().__init__(id="--command-palette")
        #: The query of the newest search and its worker (`_gather_commands`).
        self._gathering: tuple[str, Worker[None]] | None = None
        #: Enter was pressed: choose once the hits shown are the query's (`_choose_when_found`).
        self._enter_waits = False

    def compose(self) -> ComposeResult:
        """The palette, then a footer with its keys (the palette's hint left out: this is the palette)."""
        from .widgets.footer import FittingFooter

        yield from super().compose()
        footer = FittingFooter()
        footer.show_command_palette = False
        yield footer

    def footer_offers(self, action: str) -> bool:
        """Only the palette's own keys: the others are letters of the query here."""
        return action in ("choose", "escape")

    def action_choose(self) -> None:
        """Enter: what the palette does on enter in its input (run the highlighted hit, or search), on the hits of
        the query typed before it.

        Enter is a priority key: the app runs it as it arrives, while the letters typed just before it (`:api-tests`
        then enter, in one burst) are still on their way to the input, and its search runs after them. The choice
        waits for both (`KeysRead`, then the search's end): never the hits of a shorter query, never nothing."""
        self._enter_waits = True
        after_keys(self, self._choose_when_found)

    def _gather_commands(self, search_value: str) -> Worker[None]:
        """Textual's search for `search_value`, remembered with its worker (what an enter waits for)."""
        worker: Worker[None] = super()._gather_commands(search_value)
        self._gathering = (search_value, worker)
        return worker

    def _choose_when_found(self) -> None:
        """Choose, if the hits shown are those of the query as typed; else the search's end will."""
        if not self._enter_waits or not self.is_current:
            return
        gathering = self._gathering
        query = self.query_one(CommandInput).value.strip()
        if gathering is not None and gathering[0] == query and gathering[1].state == WorkerState.SUCCESS:
            self._enter_waits = False
            self._select_or_command()

    @on(KeysRead)
    def _keys_read(self, message: KeysRead) -> None:
        """The keys typed before enter have reached the input: look at the query (`editing.relay`)."""
        relay(message, self.app)

    @on(Worker.StateChanged)
    def _search_ended(self, event: Worker.StateChanged) -> None:
        """A search ended: an enter that waited for it chooses now."""
        if event.state == WorkerState.SUCCESS and self._enter_waits:
            self._choose_when_found()


class JumpPalette(BrainPalette):
    """The palette `:` opens to jump to a claim: enter says "Jump"."""

    BINDINGS = [Binding("enter", "choose", "Jump", priority=True, id="palette-jump")]


class BrainProvider(Provider):
    """Panes ("Pane: Signals") and claims (by ID, slug, scope or story): choosing one goes there."""

    @property
    def brain_app(self) -> BrainApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def _targets(self) -> list[Target]:
        app = self.brain_app
        targets: list[Target] = []
        for key, name in PANES:
            targets.append((f"Pane: {name}", f"show pane {key}", partial(app.navigator.go_to_pane, key)))
        targets += (self._claim_target(claim, app.snapshot) for claim in reversed(app.snapshot.claims))
        return targets

    def _claim_target(self, claim: Claim, snapshot: BrainSnapshot, note: str = "") -> Target:
        """The entry of one claim: choosing it goes there."""
        app = self.brain_app
        label = f"Claim: {short_id(claim.sess_id, snapshot.now, snapshot.tz)} · {claim.status}{note}"
        help_text = safe_str(f"{claim.sess_id} · {claim.scope_text} · {claim.story}", 160)
        return safe_str(label, 100), help_text, partial(app.navigator.go_to_claim, claim.sess_id)

    async def discover(self) -> Hits:
        """Before typing: the panes."""
        for label, help_text, run in self._targets()[: len(PANES)]:
            yield DiscoveryHit(label, run, help=help_text)

    async def search(self, query: str) -> Hits:
        """Panes and claims whose label or ID, scope and story match `query`; then the older finished claims
        whose session ID holds it (one history page read, `brain.audit.history_page`)."""
        matcher = self.matcher(query)
        claims = 0
        for label, help_text, run in self._targets():
            score = max(matcher.match(label), matcher.match(help_text) * 0.9)
            if score <= 0:
                continue
            if label.startswith("Claim:"):
                claims += 1
                if claims > MAX_CLAIM_HITS:
                    continue
            yield Hit(score, highlight(matcher, label), run, text=label, help=inert_help(help_text))
        if claims < MAX_CLAIM_HITS and len(query.strip()) >= MIN_HISTORY_QUERY:
            for label, help_text, run in await asyncio.to_thread(self._history_targets, query.strip(),
                                                                 MAX_CLAIM_HITS - claims):
                yield Hit(max(matcher.match(label), 0.5) * 0.8, highlight(matcher, label), run, text=label,
                          help=inert_help(help_text))

    def _history_targets(self, needle: str, limit: int) -> list[Target]:
        """The finished claims outside the steady read whose file name holds `needle` (in a thread)."""
        app = self.brain_app
        snapshot = app.snapshot
        try:
            with app.read_lock:
                found = app.brain.audit.history_page(0, limit, needle, snapshot=snapshot)
        except Exception:  # noqa: BLE001 - the palette offers what it can read; the history pane tells why
            return []
        # A claim of the steady read is already offered.
        return [self._claim_target(claim, snapshot, " (history)") for claim in found.claims
                if snapshot.claim(claim.sess_id) is None]


def highlight(matcher: Matcher, text: str) -> Content:
    """`text` (a hit's label, already `safe_str`) as plain `Content`, the letters `matcher` found in it in the
    matcher's style (`Matcher.highlight` without markup)."""
    content = safe_text(text, None)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            if not text[offset].isspace():
                content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def inert_help(text: str) -> str:
    """A hit's help line (already `safe_str`) as plain `Content`, typed as the `str` that `Hit.help` declares:
    the palette parses a string help as markup, a `Content` not."""
    return cast(str, safe_text(text, None))


def system_commands(app: BrainApp, screen: Screen[Any]) -> Iterable[SystemCommand]:
    """The palette's commands: ours first (the same table as keys and help), then the theme and bell toggles."""
    for command in COMMANDS:
        if app.readonly and command.mutating:
            continue
        target = app if "app" in command.where else screen
        if "app" not in command.where and not hasattr(target, f"action_{command.action}"):
            continue
        yield SystemCommand(f"{command.label} ({command.shown_key})", command.description,
                            partial(app.run_action, command.action, target))
    yield SystemCommand(f"Theme: keep {app.theme} for later cockpits",
                        "Start every later cockpit and browser tab with the theme shown (saved)",
                        app.action_keep_theme)
    yield SystemCommand(f"Bell and notices: turn {'off' if app.bell_enabled else 'on'}",
                        "Ring, show a desktop notice and run notify: (or none of these) when something new "
                        "needs you (remembered; --no-bell at start)", partial(toggle_bell, app))


def toggle_bell(app: BrainApp) -> None:
    """Turn the bell and the desktop notices (escapes and `notify:` command) on or off, and remember it."""
    app.bell_enabled = not app.bell_enabled
    app.settings["bell"] = app.bell_enabled
    save_settings(app.settings, settings_path())
    app.notify(f"bell and notices {'on' if app.bell_enabled else 'off'}", timeout=2, markup=False)
