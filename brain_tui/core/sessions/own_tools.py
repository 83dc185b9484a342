"""bsi's own MCP server as the agents' clients name its tools (the hook leaves these to the server).

Claude Code and Codex name another server's tool ``mcp__<server>__<tool>``, Gemini CLI ``mcp_<server>_<tool>``:
a server whose name starts like bsi's (``bsi__x``, ``bsi_files``) gives names that start like bsi's tools too, so
a tool is bsi's own only when its whole name is one of these. Standard library only: the hook imports it.
"""

from __future__ import annotations

SERVER = "bsi"
#: The tools `bsi mcp` serves (tests compare them with the server's `tools/list`).
TOOLS = frozenset((
    "brain_state", "my_claim", "claim_open", "claim_renew", "claim_close", "claim_list", "check_scope", "preflight",
    "signal_send", "signal_list", "signal_ack", "gate_request", "gate_status", "lock_acquire", "lock_release",
))


def is_own(tool: str) -> bool:
    """Whether `tool` (a client's full tool name) is one of bsi's own, in any client's spelling."""
    for prefix in (f"mcp__{SERVER}__", f"mcp_{SERVER}_"):
        if tool.startswith(prefix) and tool[len(prefix):] in TOOLS:
            return True
    return False



def own_names() -> str:
    """bsi's tool names as one regular expression alternation (sorted: the same text on every install)."""
    return "|".join(sorted(TOOLS))
