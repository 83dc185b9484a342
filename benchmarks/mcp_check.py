"""How fast a running `bsi mcp` answers `check_scope` at N open claims (issue goal: <= 5 ms at 1,000).

For each N: a fresh `bsi init` brain holding N open claims on distinct files
(`projets/pNNN/fNNNNN.md` over 200 folders, as /work/shared/peer-bench lays them out),
written as the product writes them and committed once; then one `bsi mcp`
server, and a client of its own (stdlib only, one JSON-RPC message per line)
that times one `check_scope` on a free path and one on a held path per round,
from writing the request to reading its answer (process start not counted).
3 warm-up rounds, then `--rounds` timed; medians (min, max beside). Every
answer is checked (free is free, held names its holder); after the timed rounds
a claim file written from outside must be seen by the next call.

    python benchmarks/mcp_check.py --sizes 10,1000
    python benchmarks/mcp_check.py --sizes 1000 --profile /tmp/mcp.prof   # cProfile inside the server
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

OPENED = "2026-01-01T09:00:00+00:00"
NOW = "2026-01-01T10:00:00+00:00"
FOLDERS = 200


def held_path(i: int) -> str:
    """The file the i-th claim holds."""
    return f"projets/p{i % FOLDERS:03d}/f{i:05d}.md"


def sess_id(i: int) -> str:
    """The i-th claim's ID."""
    return f"sess-20260101-0900-{i:04x}"


def make_brain(parent: Path, n: int, command: Sequence[str], env: dict[str, str]) -> Path:
    """A `bsi init` brain with `n` open claims, committed."""
    root = parent / f"mcp-open-{n}"
    subprocess.run([*command, "init", str(root)], env=env, check=True, capture_output=True, timeout=120)
    claims = root / "claims"
    for i in range(n):
        (claims / f"{sess_id(i)}.yml").write_text(
            f"sess_id: {sess_id(i)}\ntype: solo\ninstance: bench@host\nscope: {held_path(i)}\nstory_angle: bench\n"
            f"status: open\nopened_at: '{OPENED}'\nttl: 8h\n", encoding="utf-8")
    for args in (["add", "-A"], ["-c", "user.name=bench", "-c", "user.email=b@h", "commit", "-qm", "bench claims"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, timeout=120)
    return root


class Client:
    """One JSON-RPC message per line over a server's stdin/stdout."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc, self.stdin, self.stdout = proc, proc.stdin, proc.stdout
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """The answer to one request and the seconds it took."""
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n"
        started = time.perf_counter()
        self.stdin.write(line.encode())
        self.stdin.flush()
        while True:
            raw = self.stdout.readline()
            if not raw:
                raise RuntimeError("the server closed its output")
            doc = json.loads(raw)
            if doc.get("id") == self.next_id and "method" not in doc:
                return doc, time.perf_counter() - started

    def notify(self, method: str) -> None:
        """A notification (no answer)."""
        self.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.stdin.flush()

    def check(self, path: str) -> tuple[list[str], float]:
        """`check_scope` on one path: the holders named, and the seconds."""
        doc, secs = self.request("tools/call", {"name": "check_scope", "arguments": {"scopes": [path]}})
        result = doc["result"]
        if result.get("isError"):
            raise RuntimeError(f"check_scope refused: {json.dumps(result)[:300]}")
        return [c["sess_id"] for c in result["structuredContent"]["conflicts"]], secs


def server_command(command: Sequence[str], root: Path, profile: str | None) -> list[str]:
    """`bsi --brain ROOT mcp`, under cProfile when `profile` names the output file."""
    if not profile:
        return [*command, "--brain", str(root), "mcp"]
    # Two profiles: the main thread (SDK, JSON-RPC, validation), and each tool body in the SDK's worker thread
    # (`PROFILE.tool`); both written when stdin closes.
    code = ("import sys, atexit, cProfile; import brain_tui.mcp.tools as T; from brain_tui.cli.main import main\n"
            "main_prof, tool_prof, inner = cProfile.Profile(), cProfile.Profile(), T.call\n"
            "def call(body):\n    tool_prof.enable()\n    try:\n        return inner(body)\n"
            "    finally:\n        tool_prof.disable()\n"
            "T.call = call\n"
            "atexit.register(lambda: (main_prof.disable(), main_prof.dump_stats(sys.argv[2]), "
            "tool_prof.dump_stats(sys.argv[2] + '.tool')))\n"
            "main_prof.enable()\nsys.exit(main(['--brain', sys.argv[1], 'mcp']))\n")
    return [sys.executable, "-c", code, str(root), profile]


def measure(root: Path, n: int, command: Sequence[str], env: dict[str, str], rounds: int,
            profile: str | None) -> dict[str, Any]:
    """Medians of the free and the held check at `n` open claims, and the freshness probe."""
    proc = subprocess.Popen(server_command(command, root, profile), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=root)
    client = Client(proc)
    rng = random.Random(n)
    free: list[float] = []
    held: list[float] = []
    wrong = 0
    try:
        client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "mcp_check", "version": "1"}})
        client.notify("notifications/initialized")
        for number in range(3 + rounds):
            i = rng.randrange(n)
            got_free, secs_free = client.check(f"projets/p{i % FOLDERS:03d}/free{i:05d}.md")
            got_held, secs_held = client.check(held_path(i))
            wrong += (got_free != []) + (got_held != [sess_id(i)])
            if number >= 3:
                free.append(secs_free * 1000)
                held.append(secs_held * 1000)
        late = sess_id(n + 1)
        (root / "claims" / f"{late}.yml").write_text(
            f"sess_id: {late}\ntype: solo\ninstance: bench@host\nscope: late/\nstory_angle: bench\nstatus: open\n"
            f"opened_at: '{OPENED}'\nttl: 8h\n", encoding="utf-8")
        late_seen = client.check("late/x.md")[0] == [late]
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=120)
        if proc.stdout:
            proc.stdout.close()

    def stats(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {"median_ms": round(ordered[len(ordered) // 2], 2), "min_ms": round(ordered[0], 2),
                "max_ms": round(ordered[-1], 2)}

    return {"n_open": n, "free": stats(free), "held": stats(held), "wrong_answers": wrong, "late_claim_seen": late_seen}


#: The rows `benchmarks/run.py` shows (one column per count of open claims).
FREE_ROW = "bsi mcp: check_scope, free path (N open claims, stdio)"
HELD_ROW = "bsi mcp: check_scope, held path (N open claims, stdio)"


def measure_rows(results: Any, workdir: Path, command: Sequence[str], env: dict[str, str], rounds: int,
                 sizes: Sequence[int] = (10, 1000)) -> None:
    """`run.py`'s rows: the free and the held check's medians at each count of open claims.

    Raises:
        RuntimeError: a wrong answer, or a claim written from outside not seen by the next call.
    """
    env = {**env, "BRAIN_NOW": NOW}
    for n in sizes:
        row = measure(make_brain(workdir, n, command, env), n, command, env, rounds, None)
        if row["wrong_answers"] or not row["late_claim_seen"]:
            raise RuntimeError(f"bsi mcp check_scope at {n} open claims answered wrong: {row}")
        results.put(FREE_ROW, n, row["free"]["median_ms"])
        results.put(HELD_ROW, n, row["held"]["median_ms"])


def main(argv: Sequence[str] | None = None) -> int:
    """Run; print one line per N and a JSON document last; exit 1 on a wrong answer (never on timing)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,1000", help="comma-separated counts of open claims")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--profile", default=None, help="write the server's cProfile stats here (last N only)")
    parser.add_argument("--bsi", default=None, help="the bsi command (default: the script beside this Python)")
    args = parser.parse_args(argv)
    script = Path(sys.executable).with_name("bsi")
    command = args.bsi.split() if args.bsi else [str(script)] if script.is_file() else \
        [sys.executable, "-m", "brain_tui.cli.main"]
    env = {k: v for k, v in os.environ.items() if k not in ("BSI_SESSION", "CLAUDE_CODE_SESSION_ID", "BRAIN_NOW")}
    env["BRAIN_NOW"] = NOW
    rows = []
    work = Path(tempfile.mkdtemp(prefix="mcp-check-"))
    out: IO[str] = sys.stdout
    try:
        for n in (int(x) for x in args.sizes.split(",")):
            root = make_brain(work, n, command, env)
            row = measure(root, n, command, env, args.rounds, args.profile)
            rows.append(row)
            out.write(f"N={n} open: check_scope free {row['free']['median_ms']} ms, held {row['held']['median_ms']} "
                      f"ms (median of {args.rounds}); wrong {row['wrong_answers']}, late claim seen "
                      f"{row['late_claim_seen']}\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out.write(json.dumps({"bench": "mcp check_scope", "rounds": args.rounds, "results": rows}) + "\n")
    return 0 if all(r["wrong_answers"] == 0 and r["late_claim_seen"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
