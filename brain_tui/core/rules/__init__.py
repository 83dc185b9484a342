"""The protocol's rules: claims and conflicts, effective status, tiers, triggers and hand-offs, gates, the
watchdog, preflight, locks, the circuit breaker, signals, alternatives, the attention queue, who may act
(`authority`), the write decision, the last door every write's files pass (`last_door`), the repair of a claim
file that does not read, and what a sync decides about claims lost or IDs taken while offline (`reconcile`).

May import (pyproject's "Core's parts" contract): `sessions` beside it (bindings, agent files, launch, shell
targets); below it `environment`, `records`, `sync` and `paths`; the core's top-level modules. Never
`agent_settings`."""
