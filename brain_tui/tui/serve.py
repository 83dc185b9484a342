"""`brain-tui --serve`: the cockpit in a browser, through textual-serve, for one person on this machine (SPEC 20.6).

textual-serve has no authentication and no Origin check: any page in any tab could open
its WebSocket and drive a cockpit that approves gates. Here it is wrapped so that:

- it binds a loopback address only (a non-loopback ``--host`` is refused before binding);
- the printed URL carries a one-time token; the first request with it is redirected to the session's
  address, ``/s/<session secret>/``, and the token never works again. The page, its static files and its
  WebSocket live under that address only: the secret travels in the path, never in a cookie, because a browser
  sends a host's cookies to every port of it (RFC 6265 §8.5), a server an agent runs on another local port
  included, and a cookie replayed by a program drives the cockpit whatever ``Origin`` it claims;
- every other request is refused, as is any request whose ``Host`` is not this loopback address and port (DNS
  rebinding), and any request whose ``Origin`` is not exactly ``http://<that host>`` (the WebSocket must carry
  one); pages are sent with ``Referrer-Policy: no-referrer``, so the address leaves the tab in no header;
- the server is not dumpable: no other process of the user reads the token from its memory;
- no log line holds the token or the session secret: the access log shows the path without its
  query, and every log line is scrubbed of both secrets before it is written;
- the cockpit runs as ``python -m brain_tui.tui …`` from an argv list, never a shell, its stdin, stdout and
  stderr sockets (a pipe can be reopened through ``/proc/<pid>/fd`` by any process of the user, to type into it);
- a server started inside an agent session serves an agent's cockpits, even after that agent has exited
  (`authority.heir_marks`, judged when the server starts): their human verbs refuse (SPEC 21.2).

Over SSH: ``ssh -L N:127.0.0.1:N host`` (the same port on both ends), then open the URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import secrets
import shlex
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

#: Default port of `brain-tui --serve`.
DEFAULT_PORT = 8000
#: Exit code for a non-loopback --host or a bad --port (SPEC 13: bad value on the command line).
EXIT_INVALID = 65
#: Exit code when the port cannot be bound.
EXIT_UNAVAILABLE = 69
#: prctl(2) option: whether the process may be dumped, ptraced, or have its /proc files opened by its user.
_PR_SET_DUMPABLE = 4

Handler = Callable[[Any], Awaitable[Any]]


class ServeRefused(Exception):
    """A --host or --port that cannot be served; `message` is the one line to print."""

    def __init__(self, message: str, exit_code: int = EXIT_INVALID) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


def loopback_host(host: str) -> str:
    """The address to bind for `host`, which must be loopback (``127.0.0.1`` by default).

    Raises:
        ServeRefused: `host` is not a loopback address.
    """
    name = host.strip().strip("[]")
    if name.lower() == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        raise ServeRefused(f"brain-tui: --serve binds loopback only: {host!r} is not a loopback address "
                           "(use 127.0.0.1 and `ssh -L PORT:127.0.0.1:PORT host` from afar)") from None
    if not address.is_loopback:
        raise ServeRefused(f"brain-tui: --serve binds loopback only: {host} would be reachable from other "
                           "machines (use 127.0.0.1 and `ssh -L PORT:127.0.0.1:PORT host` from afar)")
    return str(address)


def allowed_hosts(bind: str, port: int) -> frozenset[str]:
    """The ``Host`` header values a request may carry: this loopback address (or localhost) and port."""
    names = {bind, "localhost"}
    if bind == "127.0.0.1":
        names.add("127.0.0.1")
    hosts = set()
    for name in names:
        shown = f"[{name}]" if ":" in name else name
        hosts.add(f"{shown}:{port}".lower())
    return frozenset(hosts)


class Redactor(logging.Formatter):
    """A formatter that removes the secrets from every line it formats (tracebacks included)."""

    def __init__(self, secrets_: Sequence[str], fmt: str) -> None:
        super().__init__(fmt)
        self._secrets = [s for s in secrets_ if s]

    def format(self, record: logging.LogRecord) -> str:
        """Format, then replace each secret by ``<redacted>``."""
        text = super().format(record)
        for secret in self._secrets:
            text = text.replace(secret, "<redacted>")
        return text


def cockpit_argv(brain: Path, *, readonly: bool = False, gates: bool = False, theme: str | None = None,
                 now: str | None = None, instance: str | None = None, bell: bool | None = None) -> list[str]:
    """The argv of the cockpit each browser connection runs."""
    argv = [sys.executable, "-m", "brain_tui.tui", "--brain", str(brain)]
    if readonly:
        argv.append("--readonly")
    if gates:
        argv.append("--gates")
    if theme:
        argv += ["--theme", theme]
    if now:
        argv += ["--now", now]
    if instance:
        argv += ["--instance", instance]
    if bell is False:
        argv.append("--no-bell")
    return argv


def make_server(argv: Sequence[str], *, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                title: str = "brain-tui") -> Any:
    """A `CockpitServer` (textual-serve imported only here: the terminal cockpit never needs it)."""
    from aiohttp import WSMsgType, web
    from aiohttp.abc import AbstractAccessLogger
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    from brain_tui.core.rules.authority import heir_marks

    class ExecAppService(AppService):
        """textual-serve's app process, started from an argv list instead of a shell string."""

        def __init__(self, argv: Sequence[str], marks: dict[str, str], **kwargs: Any) -> None:
            super().__init__(shlex.join(argv), **kwargs)
            self.argv = list(argv)
            self.marks = marks
            self.writers: list[asyncio.StreamWriter] = []

        async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
            """Start the cockpit with sockets for stdin, stdout and stderr, never pipes.

            Any process of the same user may reopen a pipe through ``/proc/<pid>/fd/N`` (a read
            access, which ptrace_scope does not restrict) and write keys into the cockpit as if the
            pilot typed them; a socket cannot be reopened so.
            """
            environment = {**self._build_environment(width=width, height=height), **self.marks}
            pairs = [socket.socketpair() for _ in range(3)]
            try:
                self._process = process = await asyncio.create_subprocess_exec(
                    *self.argv, stdin=pairs[0][1].fileno(), stdout=pairs[1][1].fileno(), stderr=pairs[2][1].fileno(),
                    env=environment)
            except BaseException:
                for ours, _ in pairs:
                    ours.close()
                raise
            finally:
                for _, theirs in pairs:
                    theirs.close()
            streams = [await asyncio.open_connection(sock=ours) for ours, _ in pairs]
            self.writers = [writer for _, writer in streams]  # held: a collected writer closes its socket
            self._stdin = streams[0][1]
            process.stdout, process.stderr = streams[1][0], streams[2][0]
            return process

        async def stop(self) -> None:
            """Stop the cockpit, then close this side of its sockets."""
            await super().stop()
            for writer in self.writers:
                writer.close()
            self.writers = []

    class PathOnlyAccessLogger(AbstractAccessLogger):
        """Access log lines without the query string (where the token travels)."""

        def log(self, request: Any, response: Any, time: float) -> None:
            self.logger.info("%s %s %s", request.method, request.path, response.status)

    class CockpitServer(Server):
        """textual-serve's Server behind a one-time token, a session address, Host and Origin checks."""

        def __init__(self) -> None:
            self.bind = loopback_host(host)
            super().__init__(shlex.join(argv), host=self.bind, port=port, title=title)
            self.argv = list(argv)
            # judged now, while the ancestors still show who started the server: each cockpit, started later,
            # is an agent's when the server is (SPEC 21.1), even once that agent has exited
            self.marks = heir_marks()
            seal_memory()  # before any secret exists
            self.token = secrets.token_urlsafe(32)
            self.session_secret = secrets.token_urlsafe(32)
            self.token_used = False
            self.hosts = allowed_hosts(self.bind, port)
            self.runner: Any = None

        @property
        def prefix(self) -> str:
            """The session's address: the page, its static files and its WebSocket live under it alone."""
            return f"/s/{self.session_secret}"

        @property
        def url(self) -> str:
            """The one-time URL to open (printed once on stdout, never logged)."""
            shown = f"[{self.bind}]" if ":" in self.bind else self.bind
            return f"http://{shown}:{self.port}/?token={self.token}"

        def initialize_logging(self) -> None:
            """Plain log lines on stderr, scrubbed of the token and the session secret."""
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(Redactor([self.token, self.session_secret], "brain-tui serve: %(message)s"))
            for name in ("textual-serve", "aiohttp.access", "aiohttp.server", "aiohttp.web"):
                logger = logging.getLogger(name)
                logger.handlers = [handler]
                logger.propagate = False
                logger.setLevel(logging.INFO)

        # -- the guard ----------------------------------------------------------------------
        def refusal(self, request: Any) -> str | None:
            """Why `request` is refused (None: let it through). The token exchange is handled apart."""
            host = request.headers.get("Host", "").lower()
            if host not in self.hosts:
                return "this cockpit answers only to its loopback address"
            origin = request.headers.get("Origin")
            if origin is not None and origin.lower() != f"http://{host}":
                return "cross-origin request refused"
            if not self.signed_in(request):
                return "no session: open the URL brain-tui --serve printed"
            if request.path == f"{self.prefix}/ws" and origin is None:
                return "the WebSocket needs an Origin header"
            return None

        def signed_in(self, request: Any) -> bool:
            """True when `request`'s path is under this session's address (the secret compared in constant time)."""
            parts = request.path.split("/", 3)  # "", "s", secret, rest
            if len(parts) < 4 or parts[1] != "s":
                return False
            return hmac.compare_digest(parts[2].encode(), self.session_secret.encode())

        async def exchange(self, request: Any) -> Any:
            """``/?token=…``: a fresh token → a redirect to the session's address; else refused."""
            given = request.query.get("token", "")
            if self.token_used or not hmac.compare_digest(given.encode(), self.token.encode()):
                return self.refuse("this link was already used or is wrong: go back to the cockpit's tab (its "
                                   "address works until the server stops), or restart brain-tui --serve for a "
                                   "new link")
            self.token_used = True
            return web.Response(status=303, headers={"Location": f"{self.prefix}/"})

        def refuse(self, reason: str) -> Any:
            """A 403 saying why."""
            return web.Response(status=403, text=f"brain-tui: {reason}\n")

        @web.middleware
        async def guard(self, request: Any, handler: Handler) -> Any:
            """Every request passes here first."""
            host = request.headers.get("Host", "").lower()
            if "token" in request.query and request.path == "/" and host in self.hosts:
                origin = request.headers.get("Origin")
                response = (self.refuse("cross-origin request refused")
                            if origin is not None and origin.lower() != f"http://{host}"
                            else await self.exchange(request))
            else:
                reason = self.refusal(request)
                response = self.refuse(reason) if reason else await handler(request)
            if getattr(response, "prepared", False):  # the WebSocket: its headers are sent
                return response
            headers = response.headers
            headers["Referrer-Policy"] = "no-referrer"
            headers["Cache-Control"] = "no-store"
            headers["X-Frame-Options"] = "DENY"
            headers["Content-Security-Policy"] = "frame-ancestors 'none'"
            return response

        async def _make_app(self) -> Any:
            """textual-serve's routes, under the session's address (no download route: the cockpit sends none)."""
            import aiohttp_jinja2
            import jinja2

            app = web.Application(middlewares=[self.guard])
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
            app.add_routes([web.get(f"{self.prefix}/", self.handle_index, name="index"),
                            web.get(f"{self.prefix}/ws", self.handle_websocket, name="websocket"),
                            web.static(f"{self.prefix}/static", self.statics_path, name="static")])
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        async def on_startup(self, app: Any) -> None:
            """Say nothing here: the URL is printed once by `serve` (never through logging)."""

        async def handle_index(self, request: Any) -> Any:
            """The page, pointing its WebSocket at the host the browser used (checked by the guard)."""
            import aiohttp_jinja2

            host = request.headers.get("Host", "").lower()
            font_size = request.query.get("fontsize", "16")
            context = {
                "font_size": int(font_size) if font_size.isdigit() and len(font_size) < 3 else 16,
                "app_websocket_url": f"ws://{host}{self.prefix}/ws",
                "config": {"static": {"url": f"http://{host}{self.prefix}/static/"}},
                "application": {"name": self.title},
            }
            return aiohttp_jinja2.render_template("app_index.html", request, context)

        async def handle_websocket(self, request: Any) -> Any:
            """The WebSocket that drives one cockpit process (reached only through the guard)."""
            websocket = web.WebSocketResponse(heartbeat=15)
            width = _int(request.query.get("width", "80"), 80)
            height = _int(request.query.get("height", "24"), 24)
            service: Any = None
            try:
                await websocket.prepare(request)
                service = ExecAppService(self.argv, self.marks, write_bytes=websocket.send_bytes,
                                         write_str=websocket.send_str, close=websocket.close,
                                         download_manager=self.download_manager, debug=False)
                await service.start(width, height)
                log = logging.getLogger("textual-serve")
                log.info("browser connected: cockpit started (pid %s)", getattr(service._process, "pid", "?"))
                try:
                    await self.process_messages(websocket, service)
                finally:
                    await service.stop()
                    log.info("browser disconnected: cockpit stopped")
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:  # noqa: BLE001 - one line, never a traceback with locals
                logging.getLogger("textual-serve").error("cockpit connection ended: %s", error)
            finally:
                if service is not None:
                    await service.stop()
            return websocket

        async def process_messages(self, websocket: Any, service: Any) -> None:
            """Browser → cockpit: keys, resizes, pings, focus. Malformed messages are dropped."""
            async for message in websocket:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    envelope = message.json()
                except ValueError:
                    continue
                if not isinstance(envelope, list) or not envelope:
                    continue
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
                if kind == "stdin" and isinstance(data, str):
                    await service.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    await service.set_terminal_size(_int(str(data.get("width")), 80),
                                                    _int(str(data.get("height")), 24))
                elif kind == "ping":
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await service.blur()
                elif kind == "focus":
                    await service.focus()

        async def start(self) -> None:
            """Bind and start serving (port 0: a free port, then known as `self.port`)."""
            self.initialize_logging()
            app = await self._make_app()
            self.runner = web.AppRunner(app, access_log_class=PathOnlyAccessLogger, handle_signals=False)
            await self.runner.setup()
            site = web.TCPSite(self.runner, self.bind, self.port)
            try:
                await site.start()
            except OSError as exc:
                await self.runner.cleanup()
                raise ServeRefused(f"brain-tui: cannot listen on {self.bind}:{self.port}: {exc.strerror}",
                                   EXIT_UNAVAILABLE) from None
            if self.port == 0:
                server = getattr(site, "_server", None)
                sockets = getattr(server, "sockets", None) or []
                self.port = int(sockets[0].getsockname()[1])
                self.hosts = allowed_hosts(self.bind, self.port)

        async def stop(self) -> None:
            """Stop serving."""
            if self.runner is not None:
                await self.runner.cleanup()

    return CockpitServer()


def seal_memory() -> None:
    """Make this process non-dumpable (Linux ``PR_SET_DUMPABLE`` 0); elsewhere, or if refused, nothing.

    The server holds the token and the session secret in memory. A dumpable process's ``/proc/<pid>/mem``, ``environ``
    and ``fd/`` are open to every other process of the same user (where ptrace_scope is 0), an agent's included; a
    non-dumpable one's only to root. The cockpits it starts are dumpable again (exec resets it) and hold no secret.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def _int(text: str, default: int) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        return default
    return value if 0 < value < 10_000 else default


def served_message(brain_name: str, bind: str, port: int, url: str) -> str:
    """What `serve` prints once listening: the address, the one-time link, and the SSH forward that reaches it.

    The forward names the bound address on both ends unless it is 127.0.0.1: a cockpit bound to ``::1`` or
    ``127.0.0.2`` is not reached through 127.0.0.1, and the link (and the Host check) name that address.
    """
    shown = f"[{bind}]" if ":" in bind else bind
    forward = f"{port}:{shown}:{port}" if bind == "127.0.0.1" else f"{shown}:{port}:{shown}:{port}"
    return (f"brain-tui: the cockpit of {brain_name} is served on {shown}:{port} "
            "(loopback only). Open this link once (it signs this browser in, then stops working):\n"
            f"  {url}\n"
            f"From another machine: ssh -L {forward} HOST, then open the link there. Ctrl+C stops.\n")


def serve(argv: Sequence[str], *, host: str, port: int, brain_name: str, out: Any = None) -> int:
    """Serve the cockpit until Ctrl+C; print the one-time URL on `out` (stdout).

    Returns:
        0 after Ctrl+C, 65 for a non-loopback host or bad port, 69 when the port cannot be bound.
    """
    out = out or sys.stdout
    if not 0 <= port < 65536:
        sys.stderr.write(f"brain-tui: --port {port} is not a TCP port (0-65535)\n")
        return EXIT_INVALID
    try:
        server = make_server(argv, host=host, port=port, title=f"brain-tui · {brain_name}")
    except ImportError:
        sys.stderr.write("brain-tui: --serve needs textual-serve: pip install 'brain-tui[serve]'\n")
        return EXIT_UNAVAILABLE
    except ServeRefused as exc:
        sys.stderr.write(exc.message + "\n")
        return exc.exit_code

    async def run() -> None:
        import signal

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, stop.set)
        await server.start()
        out.write(served_message(brain_name, server.bind, server.port, server.url))
        out.flush()
        try:
            await stop.wait()
        finally:
            await server.stop()

    try:
        asyncio.run(run())
    except ServeRefused as exc:
        sys.stderr.write(exc.message + "\n")
        return exc.exit_code
    except KeyboardInterrupt:
        return 0
    return 0
