"""Another MCP server's file-writing tool, called by the real Claude Code, meets the installed hook (SPEC 20.2, 21).

The server (`write_server.py`, configured in the brain's `.mcp.json` beside bsi's own) runs outside the client's
sandbox: only the `pre-tool-use` hook, matched on its tools by `bsi hooks install`, stands between it and the brain.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from tests.e2e.client import Session
from tests.e2e.conftest import demo_claim
from tests.e2e.fake_api import MCP_PREFIX, Text, ToolUse, bash, result_text

SERVER = Path(__file__).with_name("write_server.py")
WRITE = "mcp__files__write_file"
STORY = "Notes written through a file server"
#: A claim of another session (a satellite of the demo's pilot), by its slug (`demo_claim`).
OTHER = "api-search"


def _add_server(brain: Path) -> None:
    config = brain / ".mcp.json"
    data = json.loads(config.read_text())
    data["mcpServers"]["files"] = {"command": sys.executable, "args": [str(SERVER)]}
    config.write_text(json.dumps(data, indent=2) + "\n")


def _log_matched_tools(brain: Path, log: Path) -> None:
    """A second PreToolUse hook on the installed matcher that writes down each tool name Claude Code matched."""
    settings = brain / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    [ours] = [group for group in data["hooks"]["PreToolUse"]
              if any("hook pre-tool-use" in hook["command"] for hook in group["hooks"])]
    code = f"import json,sys; open({str(log)!r}, 'a').write(json.load(sys.stdin)['tool_name'] + '\\n')"
    data["hooks"]["PreToolUse"].append({"matcher": ours["matcher"], "hooks": [
        {"type": "command", "command": f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"}]})
    settings.write_text(json.dumps(data, indent=2) + "\n")


def test_a_file_servers_writes_onto_protocol_files_and_outside_the_claim_are_refused(
        e2e_brain: Path, run_claude: Callable[..., Session], tmp_path: Path) -> None:
    _add_server(e2e_brain)
    matched = tmp_path / "matched.log"
    _log_matched_tools(e2e_brain, matched)
    protocol = e2e_brain / "claims" / f"{demo_claim(e2e_brain, OTHER)}.yml"
    before = protocol.read_bytes()
    outside = e2e_brain / "wiki" / "elsewhere.md"
    inside = e2e_brain / "wiki" / "e2e-files.md"
    script = [
        ToolUse(f"{MCP_PREFIX}claim_open", {"scope": ["wiki/e2e-files.md"], "story": STORY}),
        ToolUse(WRITE, {"path": str(protocol), "content": "status: closed\n"}),
        ToolUse(WRITE, {"path": str(outside), "content": "# Outside the claim\n"}),
        ToolUse(WRITE, {"path": str(inside), "content": "# Inside the claim\n"}),
        bash("git add wiki/e2e-files.md && git commit -q -m 'wiki: notes via the file server'"),
        ToolUse(f"{MCP_PREFIX}claim_close", {"status": "ok", "files": ["wiki/e2e-files.md"]}),
        Text("Written where the claim allows."),
    ]

    run = run_claude(e2e_brain, "Write the notes page through the file server.", script)

    assert run.code == 0, run.transcript()
    assert WRITE in run.api.offered(1)
    opened = run.api.result_of(0)
    assert not opened.get("is_error"), opened
    on_protocol = run.api.result_of(1)
    assert on_protocol.get("is_error") is True, on_protocol
    assert "protocol file" in result_text(on_protocol), on_protocol
    assert protocol.read_bytes() == before
    elsewhere = run.api.result_of(2)
    assert elsewhere.get("is_error") is True, elsewhere
    assert "scope violation" in result_text(elsewhere), elsewhere
    assert not outside.exists()
    written = run.api.result_of(3)
    assert not written.get("is_error"), written
    assert inside.read_text() == "# Inside the claim\n"
    assert not run.api.result_of(5).get("is_error"), run.api.result_of(5)
    # The installed matcher sends the file server's tool and the shell through the hook, never bsi's own tools.
    assert matched.read_text().splitlines() == [WRITE, WRITE, WRITE, "Bash"], matched.read_text()
