"""brain-tui: the Textual cockpit over `brain_tui.core` (screens, widgets, themes)."""
