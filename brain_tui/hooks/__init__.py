"""`bsi hook EVENT`: the protocol enforced inside the agents' loop (SPEC 20.2).

Claude Code (and Codex CLI, Gemini CLI) run `bsi hook EVENT` at each event
and read its exit code and stdout. This package is on the hot path of every
write an agent makes: it imports only what each decision needs, never
touches the network and never commits. It calls the core facade, never the CLI.
"""
