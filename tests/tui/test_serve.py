"""`brain-tui --serve` (SPEC 20.6): loopback only, a one-time token for a session address, Host and Origin checks.

No log line holds the token. A real server (a subprocess on a free port) is driven over HTTP and
WebSocket with aiohttp's client;
the accepted WebSocket runs a real cockpit, whose first bytes must arrive.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")

from brain_tui.core.rules.agent_tree import agent_ancestors  # noqa: E402
from tests.bsi import clean_env  # noqa: E402
from tests.conftest import load_claim  # noqa: E402


class Served(NamedTuple):
    url: str
    base: str
    port: int
    process: subprocess.Popen[str]
    stderr: Path


def cockpit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain_tui.tui", *args], capture_output=True, text=True,
                          env=clean_env(), timeout=30, check=False)


@pytest.fixture
def served(demo_brain: Path, tmp_path: Path) -> Iterator[Served]:
    stderr = tmp_path / "serve.log"
    with open(stderr, "w", encoding="utf-8") as err:
        process = subprocess.Popen([sys.executable, "-m", "brain_tui.tui", "--serve", "--port", "0", "--brain",
                                    str(demo_brain), "--now", "2026-11-29T10:00:00Z"],
                                   stdout=subprocess.PIPE, stderr=err, text=True, env=clean_env())
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 30
        url = ""
        while not url and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=\S+", line)
            url = found.group(0) if found else ""
        assert url, f"no URL printed; stderr: {stderr.read_text()}"
        port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
        yield Served(url, f"http://127.0.0.1:{port}", port, process, stderr)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def get(url: str, **headers: str) -> tuple[int, dict[str, str], str, list[str]]:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers,
                                                               allow_redirects=False) as response:
        return (response.status, dict(response.headers), await response.text(),
                response.headers.getall("Set-Cookie", []))


async def sign_in(served: Served) -> str:
    """Exchange the token: returns the session's address (`/s/<secret>/`); no cookie is ever set."""
    status, headers, _, cookies = await get(served.url)
    assert status == 303 and re.fullmatch(r"/s/[A-Za-z0-9_-]{40,}/", headers["Location"]), headers
    assert cookies == []
    return headers["Location"]


async def websocket(served: Served, at: str = "/", **headers: str) -> tuple[int, bytes]:
    """Open `at`ws with these headers: (HTTP status of a refusal or 101, the first bytes of the cockpit)."""
    async with aiohttp.ClientSession() as session:
        try:
            ws = await session.ws_connect(f"{served.base}{at}ws?width=80&height=24", headers=headers)
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, b""
        async with ws:
            while True:
                message = await asyncio.wait_for(ws.receive(), timeout=60)
                if message.type == aiohttp.WSMsgType.BINARY:
                    await ws.send_str('["stdin", "q"]')
                    return 101, bytes(message.data)
                if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    return 101, b""


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "example.com"])
def test_non_loopback_host_is_refused_with_one_line(host: str) -> None:
    done = cockpit("--serve", "--host", host, "--port", "0", "--demo")
    assert done.returncode == 65
    assert done.stderr.count("\n") == 1 and "loopback only" in done.stderr
    assert done.stdout == ""


def test_without_the_token_everything_is_refused(served: Served) -> None:
    for path in ("/", "/static/js/textual.js", "/download/x", "/?token=wrong", "/s/wrong/", "/s//",
                 "/s/wrong/static/js/textual.js"):
        status, _, body, cookies = run(get(served.base + path))
        assert status == 403, path
        assert not cookies
    assert run(websocket(served, Origin=served.base))[0] == 403
    assert run(websocket(served, "/s/wrong/", Origin=served.base))[0] == 403


def test_token_gives_the_session_address_once_and_never_a_cookie(served: Served) -> None:
    """A browser sends a host's cookies to every port of it, a server an agent runs on another local port included
    (RFC 6265 §8.5), where a program could replay one with any Origin: the session lives in the path instead."""
    at = run(sign_in(served))
    assert run(get(served.url))[0] == 403  # one-time
    status, headers, page, cookies = run(get(served.base + at))
    assert status == 200 and cookies == []
    assert f"ws://127.0.0.1:{served.port}{at}ws" in page and f"http://127.0.0.1:{served.port}{at}static/" in page
    assert "token" not in page
    assert headers["Referrer-Policy"] == "no-referrer"  # the address leaves the tab in no header
    assert run(get(f"{served.base}{at}static/js/textual.js"))[0] == 200
    assert run(get(served.base + "/static/js/textual.js"))[0] == 403


def test_foreign_origin_and_foreign_host_are_refused(served: Served) -> None:
    at = run(sign_in(served))
    assert run(websocket(served, at, Origin="http://evil.example"))[0] == 403
    assert run(websocket(served, at, Origin=f"http://127.0.0.1:{served.port + 1}"))[0] == 403
    assert run(websocket(served, at))[0] == 403  # a WebSocket without Origin
    # DNS rebinding: a foreign name resolving to 127.0.0.1 carries its own Host
    rebound = f"evil.example:{served.port}"
    assert run(websocket(served, at, Origin=f"http://{rebound}", Host=rebound))[0] == 403
    assert run(get(served.base + at, Host=rebound))[0] == 403
    assert run(get(served.base + at, Origin="http://evil.example"))[0] == 403


def test_the_session_address_and_exact_origin_open_a_live_cockpit_and_no_log_line_holds_a_secret(
        served: Served) -> None:
    at = run(sign_in(served))
    status, first = run(websocket(served, at, Origin=served.base))
    assert status == 101
    assert first, "the cockpit sent nothing"
    served.process.terminate()
    served.process.wait(timeout=10)
    log = served.stderr.read_text(encoding="utf-8")
    token, secret = served.url.split("token=", 1)[1], at.split("/")[2]
    assert "GET / 303" in log and "browser connected" in log  # the access log is there, path only
    assert token not in log and secret not in log
    assert os.environ.get("BRAIN_TUI_SERVE_TOKEN") is None


def test_port_and_host_without_serve_are_a_usage_error() -> None:
    done = cockpit("--port", "9000", "--demo")
    assert done.returncode == 64 and done.stderr.strip() == "brain-tui: --port and --host go with --serve"


# -- an agent's own server: what it serves stays the agent's (SPEC 21.1, 21.2) ------------------------------
def plain(screen: bytes | bytearray) -> str:
    """The cockpit's output as text, escape sequences removed."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", bytes(screen).decode("utf-8", "replace"))


async def press(base: str, url: str, ready: str, steps: list[tuple[str, str]]) -> str:
    """Sign in with `url`, open a cockpit at 120x40, wait until it shows `ready`, then press each step's key and
    wait until what the cockpit sends after it shows the step's text: the screen's text (escape sequences removed).

    A wait ends at the text, or after 60 s without it (what the test then reads is the screen as it was).
    """
    async with aiohttp.ClientSession() as session:
        async with session.get(url, allow_redirects=False) as response:
            at = response.headers["Location"]
        ws = await session.ws_connect(f"{base}{at}ws?width=120&height=40", headers={"Origin": base})
        screen = bytearray()

        async def drain_until(text: str, since: int) -> None:
            loop = asyncio.get_running_loop()
            end = loop.time() + 60
            while text not in plain(screen[since:]) and (left := end - loop.time()) > 0:
                try:
                    message = await asyncio.wait_for(ws.receive(), left)
                except TimeoutError:
                    return
                if message.type == aiohttp.WSMsgType.BINARY:
                    screen.extend(message.data)
                elif message.type != aiohttp.WSMsgType.TEXT:
                    return

        async with ws:
            await drain_until(ready, 0)
            for key, shown in steps:
                since = len(screen)
                await ws.send_json(["stdin", key])
                await drain_until(shown, since)
    return plain(screen)


@pytest.mark.skipif(bool(agent_ancestors()), reason="the suite runs under an agent process: nothing is a human's")
def test_a_server_an_agent_started_serves_an_agents_cockpit_after_the_agent_exits(demo_brain: Path,
                                                                                  tmp_path: Path) -> None:
    """`nohup brain-tui --serve &` from an agent's shell outlives the agent: its cockpits still refuse human verbs."""
    gate = "sess-20261129-0830-api-tests"
    out, pid_file = tmp_path / "serve.out", tmp_path / "serve.pid"
    agent = tmp_path / "agents" / "claude"
    agent.parent.mkdir()
    serve = shlex.join([sys.executable, "-m", "brain_tui.tui", "--serve", "--gates", "--port", "0", "--brain",
                        str(demo_brain), "--now", "2026-11-29T10:00:00Z"])
    # the agent's shell backgrounds the server, waits for its link, and the agent exits
    agent.write_text(f'#!/bin/sh\nnohup {serve} > {out} 2>/dev/null &\necho $! > {pid_file}\n'
                     f'for _ in $(seq 300); do grep -q token= {out} && exit 0; sleep 0.1; done\nexit 1\n',
                     encoding="utf-8")
    agent.chmod(0o755)
    subprocess.run([str(agent)], env=clean_env(), timeout=60, check=True)
    server = int(pid_file.read_text())
    try:
        url = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=\S+", out.read_text()).group(0)  # type: ignore[union-attr]
        base = url.split("/?", 1)[0]
        # the gate's row selected (its keys in the footer), the approve dialog, then what its enter gave
        screen = run(press(base, url, "a approve · x reject",
                           [("a", "Approve gate"), ("\r", "an agent cannot approve")]))
        assert "a human's decision" in screen and "an agent cannot approve" in screen, screen[-3000:]
        assert load_claim(demo_brain, gate)["status"] == "waiting_human"
    finally:
        os.kill(server, signal.SIGTERM)


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2:].split()[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="Linux /proc only")
def test_no_process_of_the_user_can_reopen_a_served_cockpits_input(served: Served) -> None:
    """/proc/<pid>/fd/N of a pipe reopens the pipe (for any process of the same user, whatever ptrace_scope):
    keys written there would reach the pilot's cockpit as if typed in the browser. Its input and output are sockets."""
    at = run(sign_in(served))

    async def probe() -> list[str]:
        async with aiohttp.ClientSession() as session, session.ws_connect(
                f"{served.base}{at}ws?width=80&height=24", headers={"Origin": served.base}) as ws:
            await asyncio.wait_for(ws.receive(), timeout=60)  # the cockpit runs
            opened = []
            for pid, first in [(served.process.pid, 3), *((child, 0) for child in _children(served.process.pid))]:
                try:
                    fds = [n for n in os.listdir(f"/proc/{pid}/fd") if int(n) >= first]  # not the test's own pipes
                except PermissionError:  # a non-dumpable process's, for a user without privileges
                    continue
                for fd in fds:
                    path = f"/proc/{pid}/fd/{fd}"
                    with contextlib.suppress(OSError):
                        if os.readlink(path).startswith("pipe:"):
                            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                            opened.append(f"{path} ({os.readlink(path)})")
            return opened

    assert run(probe()) == []


_NO_CAPS = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"]


@pytest.mark.skipif(not os.path.isdir("/proc/self") or (os.geteuid() == 0 and not shutil.which("setpriv")),
                    reason="Linux /proc, and setpriv to drop root's capabilities")
def test_no_process_of_the_user_can_read_the_token_from_the_servers_memory(demo_brain: Path, tmp_path: Path) -> None:
    """/proc/<server>/mem holds the token and the session secret: the server is not dumpable, so another process
    of the same user (root's capabilities dropped, as an ordinary user has none) cannot open it."""
    prefix = _NO_CAPS if os.geteuid() == 0 else []
    process = subprocess.Popen([*prefix, sys.executable, "-m", "brain_tui.tui", "--serve", "--port", "0", "--brain",
                                str(demo_brain)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=clean_env())
    try:
        assert process.stdout is not None
        line = ""
        while "token=" not in line:
            line = process.stdout.readline()
            assert line, "no URL printed"
        token = line.split("token=", 1)[1].strip()
        reader = ("import re, sys\npid, token = sys.argv[1], sys.argv[2].encode()\n"
                  "try:\n    mem = open(f'/proc/{pid}/mem', 'rb', 0)\nexcept OSError as exc:\n"
                  "    print('refused', exc.errno); sys.exit()\n"
                  "for line in open(f'/proc/{pid}/maps'):\n"
                  "    start, end = (int(x, 16) for x in line.split()[0].split('-'))\n"
                  "    try:\n        mem.seek(start); chunk = mem.read(min(end - start, 1 << 26))\n"
                  "    except OSError:\n        continue\n"
                  "    if token in chunk:\n        print('token read'); sys.exit()\nprint('not found')\n")
        done = subprocess.run([*prefix, sys.executable, "-c", reader, str(process.pid), token], capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.stdout.startswith("refused"), done.stdout + done.stderr
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.mark.parametrize(("bind", "address", "forward"), [
    ("127.0.0.1", "127.0.0.1:8000", "ssh -L 8000:127.0.0.1:8000 HOST"),
    ("::1", "[::1]:8000", "ssh -L [::1]:8000:[::1]:8000 HOST"),
    ("127.0.0.2", "127.0.0.2:8000", "ssh -L 127.0.0.2:8000:127.0.0.2:8000 HOST"),
])
def test_the_printed_address_and_ssh_forward_name_the_address_bound(bind: str, address: str, forward: str) -> None:
    # Bound to ::1 or 127.0.0.2, a forward to 127.0.0.1 reaches nothing: the hint must name the bound address,
    # on both ends, since the link (and the Host check) name it too.
    from brain_tui.tui.serve import served_message

    text = served_message("demo", bind, 8000, f"http://{address}/?token=t")
    assert f"served on {address} " in text
    assert f"From another machine: {forward}, then open the link there." in text
