"""The environment pane's readings, and the breath records' writes and metrics (their format is
`records.breath_records`).

May import (pyproject's "Core's parts" contract): `records`, `sync` (git's readings) and `paths` below it; the
core's top-level modules. Never `rules`, `sessions` or `agent_settings`."""
