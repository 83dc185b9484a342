"""Every rule and file format of the BSI protocol. Never imports Textual.

`Brain` (brain.py, facade.py, facade_launch.py) is the one typed facade the front-ends call. Its parts:

- `paths`: file names, path keys, scopes, text bounds and inert text;
- `records`: the model, formats, store, cache, change set and journal, BRAIN-INDEX.md, JSON views;
- `rules`: the protocol's rules (claims, gates, tiers, preflight, locks, signals, attention, authority,
  the write decision);
- `sync`: git, the remote, reconciliation and settling, the audit trail;
- `sessions`: agent bindings, hooks index, shell targets, fence, launch, transcripts, live sessions, notices;
- `environment`: the environment readings and breath metrics;
- `agent_settings`: the agents' settings files (hooks, MCP server entry, sandbox fence) as bsi writes them.

Beside them at this level: errors, clock, ids, config and bootstrap, which every part may import. Each part's
`__init__` says what it holds and what it imports.
"""
