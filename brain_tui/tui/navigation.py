"""Going to things from anywhere: `n` (the next item that needs you), a pane or a claim from the palette."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .corrupt import PREFIX

if TYPE_CHECKING:
    from brain_tui.core.rules.attention import AttentionItem

    from .app import BrainApp
    from .screens.cockpit import CockpitScreen


def item_key_at(queue: list[AttentionItem], sig_id: str | None, row_key: str | None) -> str | None:
    """The key of the queue item a cockpit row stands for (for `n`, the item after it): the selected signal's; else
    the selected claim's own (not a signal's); else, on the row of a file that does not read (``corrupt:<path>``),
    that file's; else None."""
    path = row_key.removeprefix(PREFIX) if row_key and row_key.startswith(PREFIX) else None
    for item in queue:
        if sig_id:
            found = item.sig_id == sig_id
        elif path:
            found = item.sess_id is None and item.path == path
        else:
            found = bool(row_key) and item.sess_id == row_key and item.sig_id is None
        if found:
            return item.key
    return None


class Navigator:
    """Held by `BrainApp`: the moves that may close screens to reach the cockpit or the queue."""

    def __init__(self, app: BrainApp) -> None:
        self.app = app

    def next_item(self) -> None:
        """`n`: go to the next item of the attention queue, from any screen."""
        app = self.app
        if not app.queue:
            app.notify("nothing waits for a human", timeout=2, markup=False)
            return
        if app.modal_open():
            return
        from .screens.cockpit import CockpitScreen

        while not isinstance(app.screen, CockpitScreen) and not hasattr(app.screen, "go_to_item") \
                and len(app.screen_stack) > 2:
            app.pop_screen()
        target = app.screen
        go = getattr(target, "go_to_item", None)
        if go is None:
            return
        current = getattr(target, "current_item_key", lambda: None)()
        keys = [item.key for item in app.queue]
        index = (keys.index(current) + 1) % len(keys) if current in keys else 0
        go(app.queue[index], index + 1, len(app.queue))

    def cockpit(self) -> CockpitScreen | None:
        """Back to the cockpit screen (closing what is above it) and return it."""
        from .screens.cockpit import CockpitScreen

        app = self.app
        while not isinstance(app.screen, CockpitScreen) and len(app.screen_stack) > 2:
            app.pop_screen()
        return app.screen if isinstance(app.screen, CockpitScreen) else None

    def go_to_pane(self, key: str) -> None:
        """Palette: show pane `key` of the cockpit."""
        cockpit = self.cockpit()
        if cockpit is not None:
            cockpit.action_pane(key)

    def go_to_claim(self, sess_id: str) -> None:
        """Palette / jump: select the claim in the cockpit, else open its detail."""
        cockpit = self.cockpit()
        if cockpit is not None and cockpit.jump_to(sess_id):
            return
        claim = self.app.claim(sess_id)
        if claim is not None:
            from .screens.detail import DetailScreen

            self.app.push_screen(DetailScreen(self.app.snapshot, claim=claim))
