"""The tools as the real clients take them (SPEC 20.3): the parameter names SPEC lists, and input schemas inside
what Claude Code's API, Gemini CLI and Codex accept (no `$ref`/`$defs`, no type lists, no `type` beside `anyOf`,
no union at the top, every property typed), and tool names that fit their prefixed function names."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp.client.client import Client

from tests.mcp.test_mcp_server import in_process

#: SPEC 20.3's tools and the parameters it names for them (a tool may take more: `sess_id`, optional).
SPEC_PARAMETERS: dict[str, set[str]] = {
    "brain_state": set(), "my_claim": set(),
    "claim_open": {"scope", "story", "ttl", "type", "satellite_type", "level", "parent", "slug", "on_done",
                   "on_partial", "on_fail"},
    "claim_renew": set(),
    "claim_close": {"status", "files", "commit", "tests_total", "tests_passed", "tests_failed", "notes"},
    "claim_list": set(), "check_scope": {"scopes"}, "preflight": {"file"},
    "signal_send": {"to", "type", "payload", "scope"}, "signal_list": {"pending", "to"}, "signal_ack": {"sig_id"},
    "gate_request": {"message"}, "gate_status": set(), "lock_acquire": {"file", "ttl_min"},
    "lock_release": {"file"},
}
#: JSON Schema words some client's model API refuses or cannot resolve.
REFUSED_WORDS = {"$ref", "$defs", "definitions", "allOf", "oneOf", "not", "if", "then", "else", "patternProperties"}
#: Gemini's function names (`mcp_bsi_<tool>`), Claude Code's (`mcp__bsi__<tool>`): at most 64 characters.
FUNCTION_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$")


def nodes(schema: Any, at: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema of `schema`, with where it sits."""
    if isinstance(schema, dict):
        yield at, schema
        for key, value in schema.items():
            if key in ("properties",) and isinstance(value, dict):
                for name, sub in value.items():
                    yield from nodes(sub, f"{at}.{name}")
            elif key in ("items", "anyOf"):
                for i, sub in enumerate(value if isinstance(value, list) else [value]):
                    yield from nodes(sub, f"{at}.{key}[{i}]")


def typed(schema: dict[str, Any]) -> bool:
    """The node says its type: `type`, or an `anyOf` whose every branch does."""
    if isinstance(schema.get("type"), str):
        return True
    branches = schema.get("anyOf")
    return isinstance(branches, list) and bool(branches) and all(typed(b) for b in branches)


def test_every_tool_spec_names_is_there_with_its_parameters_and_a_schema_every_client_takes(brain: Path) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in in_process(brain, body)}
    assert set(tools) == set(SPEC_PARAMETERS)
    for name, tool in tools.items():
        assert FUNCTION_NAME.match(f"mcp__bsi__{name}") and (tool.description or "").strip(), name
        schema = tool.input_schema
        assert schema.get("type") == "object" and not {"anyOf", "oneOf", "allOf"} & set(schema), name
        assert SPEC_PARAMETERS[name] <= set(schema.get("properties", {})), name
        for at, node in nodes(schema):
            assert not REFUSED_WORDS & set(node), (name, at, node)
            assert not isinstance(node.get("type"), list), (name, at, node)
            assert not ("type" in node and "anyOf" in node), (name, at, node)
            if at:  # a property, an item, a branch
                assert typed(node), (name, at, node)
        if tool.output_schema is not None:  # a client checks structuredContent against it, refusals included
            assert tool.output_schema.get("type") == "object", name
