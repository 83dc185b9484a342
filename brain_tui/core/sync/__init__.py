"""Git and sync: the git calls, the remote, reconciliation of what was lost offline, the settling of protocol
records in merges, and the audit trail. Imports `paths`, `records` and `rules.conflicts`."""
