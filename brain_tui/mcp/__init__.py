"""`bsi mcp`: the BSI protocol as MCP tools over stdio (SPEC 20.3)."""
