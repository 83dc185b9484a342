"""The agents' side: bindings and liveness, the agent process, hand-over, the hook index and its files, shell
targets, the sandbox fence, launch in tmux, transcripts, live sessions and notices. `hook_index` and
`agent_files` (with `paths.path_keys`) are the hook's fast path: standard library only at import.

May import (pyproject's "Core's parts" contract): `rules` beside it (authority, circuit, locks, claims,
hand-offs); below it `environment`, `records`, `sync` (the audit trail) and `paths`; the core's top-level
modules. Never `agent_settings`."""
