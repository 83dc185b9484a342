"""The protocol's rules: claims and conflicts, effective status, tiers, triggers and hand-offs, gates, the
watchdog, preflight, locks, the circuit breaker, signals, alternatives, the attention queue, who may act
(`authority`) and the write decision. Imports `paths` and `records`; `sessions` for bindings, agent files,
launch and shell targets; `sync` and `environment` where a rule reads git or breath."""
