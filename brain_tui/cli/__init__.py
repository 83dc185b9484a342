"""`bsi`: the command line over brain_tui.core (thin: no rules here)."""

from brain_tui.cli.main import main

__all__ = ["main"]
