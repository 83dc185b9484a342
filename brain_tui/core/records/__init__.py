"""The protocol's records and their store: the model, the file formats and YAML (breath records too), the parse
cache, the change set and its journal, unreadable records and what they may hold, BRAIN-INDEX.md and the JSON views.

May import (pyproject's "Core's parts" contract): `sync` beside it (git's calls: `gitops`);
below it `paths`; the core's top-level modules. Never `environment`, `rules`, `sessions` or `agent_settings`."""
