"""Git and sync: the git calls, the remote, the settling of protocol records in merges, and the audit trail.
What the protocol decides when the remote brings other machines' work in is a rule (`rules.reconcile`).

May import (pyproject's "Core's parts" contract): `records` beside it; below it `paths`; the core's
top-level modules. Never `environment`, `rules`, `sessions` or `agent_settings`."""
