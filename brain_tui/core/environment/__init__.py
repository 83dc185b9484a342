"""The environment pane's readings and the breath metrics (records and computed sprints). Imports `paths`,
`records` and `sync.gitops`."""
