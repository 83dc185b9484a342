"""The protocol's records and their store: the model, the file formats and YAML (breath records too), the
parse cache, the change set and its journal, unreadable records and their repair, BRAIN-INDEX.md and the JSON
views. Imports `paths`; `sync.gitops` for the journal, the index and repair; `rules.conflicts` for
repair."""
