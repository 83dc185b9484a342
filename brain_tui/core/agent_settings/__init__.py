"""The agents' settings files as `bsi hooks install` and `bsi mcp install` write them: Claude Code's
`.claude/settings.json` and `.mcp.json` (`claude`), Gemini CLI's (`gemini`), Codex's (`codex`), the sandbox
fence in Claude Code's settings (`sandbox`), and what they share (`files`: load, merge, render, the report).
The demo brain carries the same files.

May import (pyproject's "Core's parts" contract, the top layer): every other part of the core (today
`paths.layout`, `records.yamlio`, `sessions.fence`) and the core's top-level modules. No part imports it."""
