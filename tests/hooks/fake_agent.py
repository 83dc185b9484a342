"""A stand-in for an agent process (Claude Code, Gemini CLI, Codex): one long-lived process that runs commands.

The hooks and the MCP server find "their" agent as the nearest ancestor that
is not a shell, a wrapper or an interpreter (`core.agent_process`). A copy of
the Python interpreter under another name (`claude`, `gemini`) is such an
ancestor: every command it runs (a hook, `bsi claim open`, `bsi mcp`)
resolves to it, and two `FakeAgent`s are two agents, as in real life.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from brain_tui.core.sessions.agent_process import agent_process

#: What the agent does: one JSON job per line in (argv, stdin, env, cwd), one JSON result per line out. With
#: "keep": true the job's process is left running with pipes (an MCP server) and talked to by later jobs.
RUNNER = r"""
import json, subprocess, sys
servers = {}
for line in sys.stdin:
    job = json.loads(line)
    if "send" in job:
        proc = servers[job["send"]]
        proc.stdin.write(job["stdin"]); proc.stdin.flush()
        print(json.dumps({"out": proc.stdout.readline() if job.get("answer", True) else ""}), flush=True)
        continue
    if job.get("keep"):
        servers[job["keep"]] = subprocess.Popen(job["argv"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                stderr=subprocess.DEVNULL, env=job["env"], cwd=job["cwd"], text=True)
        print(json.dumps({"pid": servers[job["keep"]].pid}), flush=True)
        continue
    done = subprocess.run(job["argv"], input=job["stdin"].encode(), capture_output=True, env=job["env"],
                          cwd=job["cwd"])
    print(json.dumps({"code": done.returncode, "out": done.stdout.decode(errors="replace"),
                      "err": done.stderr.decode(errors="replace")}), flush=True)
for proc in servers.values():
    proc.stdin.close(); proc.wait(timeout=30)
"""


class FakeAgent:
    """One agent process; `run` makes it run a command as its child (a hook, `bsi …`) and answers the result."""

    def __init__(self, folder: Path, name: str = "claude", env: dict[str, str] | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        exe = folder / name
        if not exe.exists():
            shutil.copy2(os.path.realpath(sys.executable), exe)
        # `env`: what the agent process itself was started with (a launcher's `BSI_SESSION`); None: ours
        self.proc = subprocess.Popen([str(exe), "-I", "-c", RUNNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)

    @property
    def process(self) -> str:
        """Its ID as the hooks see it (``PID:START``)."""
        return agent_process(self.proc.pid)

    def _ask(self, job: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def run(self, argv: list[str], stdin: str = "", env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run `argv` as this agent's child; its exit code, stdout and stderr."""
        got = self._ask({"argv": argv, "stdin": stdin, "env": env or dict(os.environ), "cwd": str(cwd or os.getcwd())})
        return subprocess.CompletedProcess(argv, got["code"], got["out"], got["err"])

    def start(self, key: str, argv: list[str], env: dict[str, str], cwd: Path) -> int:
        """Start a long-lived child (an MCP server) talked to with `send`; its PID."""
        return int(self._ask({"keep": key, "argv": argv, "env": env, "cwd": str(cwd)})["pid"])

    def send(self, key: str, line: str) -> str:
        """One line to the child `key`, and its next line of output."""
        return str(self._ask({"send": key, "stdin": line + "\n"})["out"])

    def send_only(self, key: str, line: str) -> None:
        """One line to the child `key` that is answered by nothing (a notification)."""
        self._ask({"send": key, "stdin": line + "\n", "answer": False})

    def close(self) -> None:
        """End the agent (and the children it keeps)."""
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)
        if self.proc.stdout:
            self.proc.stdout.close()
