"""The environment pane's readings and the breath metrics (records and computed sprints).

May import (pyproject's "Core's parts" contract): `records`, `sync` (git's readings) and `paths` below it; the
core's top-level modules. Never `rules`, `sessions` or `agent_settings`."""
