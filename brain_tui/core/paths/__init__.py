"""Where things are: the brain's file names (`layout`), path keys through links and case folding, scopes and
their index, text bounds and inert text. Imports the core's top-level modules (errors, clock) and
`records.changes` (the bounds of a staged write)."""
