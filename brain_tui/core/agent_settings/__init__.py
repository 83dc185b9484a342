"""The agents' settings files as `bsi hooks install` and `bsi mcp install` write them: Claude Code's
`.claude/settings.json` and `.mcp.json` (`claude`), Gemini CLI's (`gemini`), Codex's (`codex`), the sandbox
fence in Claude Code's settings (`sandbox`), and what they share (`files`: load, merge, render, the report).
The demo brain carries the same files. Imports `paths.layout`, `sessions.fence` and `errors`."""
