"""Going to things from anywhere: `n` (the next item that needs you), a pane or a claim from the palette."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import BrainApp


class Navigation:
    """Mixed into `BrainApp`: the moves that may close screens to reach the cockpit or the queue."""

    def action_next_item(self: BrainApp) -> None:
        """`n`: go to the next item of the attention queue, from any screen."""
        if not self.queue:
            self.notify("nothing waits for a human", timeout=2, markup=False)
            return
        if self.modal_open():
            return
        from .screens.cockpit import CockpitScreen

        while not isinstance(self.screen, CockpitScreen) and not hasattr(self.screen, "go_to_item") \
                and len(self.screen_stack) > 2:
            self.pop_screen()
        target = self.screen
        go = getattr(target, "go_to_item", None)
        if go is None:
            return
        current = getattr(target, "current_item_key", lambda: None)()
        keys = [item.key for item in self.queue]
        index = (keys.index(current) + 1) % len(keys) if current in keys else 0
        go(self.queue[index], index + 1, len(self.queue))

    def _cockpit(self: BrainApp) -> Any:
        """Back to the cockpit screen (closing what is above it) and return it."""
        from .screens.cockpit import CockpitScreen

        while not isinstance(self.screen, CockpitScreen) and len(self.screen_stack) > 2:
            self.pop_screen()
        return self.screen if isinstance(self.screen, CockpitScreen) else None

    def go_to_pane(self: BrainApp, key: str) -> None:
        """Palette: show pane `key` of the cockpit."""
        cockpit = self._cockpit()
        if cockpit is not None:
            cockpit.action_pane(key)

    def go_to_claim(self: BrainApp, sess_id: str) -> None:
        """Palette / jump: select the claim in the cockpit, else open its detail."""
        cockpit = self._cockpit()
        if cockpit is not None and cockpit.jump_to(sess_id):
            return
        claim = self.claim(sess_id)
        if claim is not None:
            from .screens.detail import DetailScreen

            self.push_screen(DetailScreen(self.snapshot, claim=claim))
