"""A stdio MCP server of the tests' own with one file-writing tool, as a user may add one (run as a script)."""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer

server: MCPServer = MCPServer("files")


@server.tool()
def write_file(path: str, content: str) -> str:
    """Write `content` to the file at `path` (made with its folders when missing)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"wrote {path}"


if __name__ == "__main__":
    server.run()
