"""`python -m brain_tui`: the `bsi` command (`brain_tui.entry`)."""

from brain_tui.entry import run

run()
