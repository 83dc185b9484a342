"""`bsi`: the command line over brain_tui.core (thin: no rules here)."""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`/`collections`: `bsi hook` must start fast
if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run `bsi` (see `brain_tui.cli.main.main`)."""
    from brain_tui.cli.main import main as run_main

    return run_main(argv)
