"""brain-tui: the BSI protocol core, the `bsi` command line and the cockpit."""

__version__ = "0.1.0"
