"""The agents' side: bindings and liveness, the agent process, hand-over, the hook index and its files, shell
targets, the sandbox fence, launch in tmux, transcripts, live sessions and notices. Imports `paths`,
`records`, `rules` (authority, circuit, locks, claims, hand-offs) and `sync.audit`. `hook_index` and
`agent_files` (with `paths.path_keys`) are the hook's fast path: standard library only at import."""
