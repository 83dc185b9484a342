"""The agents' hook wire formats: what an event carries in, and the exact shapes that go out.

Claude Code sends one JSON object on stdin (``session_id``, ``transcript_path``,
``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``, …) and reads the
exit code and stdout. Only exit 0 and 2 mean anything to it: 2 blocks, every
other code is "go ahead". Codex CLI speaks the same format (its edits arrive
as ``apply_patch`` with the paths in the patch); Gemini CLI names its edit
tools ``write_file`` and ``replace``.

The output shapes are tested byte for byte: Claude Code silently ignores
output it does not understand.
"""

from __future__ import annotations

import json
import os
import re

from brain_tui.core.paths.path_keys import absolute

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from typing import Any

#: At most this much of stdin is read (SPEC 20.2).
MAX_INPUT = 1024 * 1024
AGENTS = ("claude", "codex", "gemini")
#: The write tools whose target file is in `tool_input` (Claude Code's, and Gemini CLI's `write_file` and
#: `replace`), whichever agent is named: the agent named (`--agent`, the event's `hook_event_name`) picks the
#: answer's wire shape, never which tools write (a Gemini `write_file` is a write under any hook line).
FILE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "replace")
#: The `tool_input` keys that name a write tool's target file, in the agents' spellings.
PATH_KEYS = ("file_path", "notebook_path", "absolute_path", "path")
#: A UTF-16 surrogate left alone in JSON text (``"\\ud800"``): no file name can hold it, and the agent's
#: runtime writes U+FFFD in its place, so the hook checks the path with U+FFFD too.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: How a surrogate shows in the raw event: a JSON escape (a pair reads as one character, only a lone one stays a
#: surrogate), or its UTF-8 form, which `json.loads` reads from bytes as well (`surrogatepass`).
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
#: The agents' shell tools (Claude Code `Bash`, Gemini CLI `run_shell_command`, Codex `exec_command` (``Bash`` in
#: its hook events), `shell`, `local_shell` and `shell_command`, its string form), whichever agent is named: a command
#: line is checked whoever sends it (SPEC 21.3). Another MCP server's command tool (`COMMAND_WORDS`) is read the same.
SHELL_TOOLS = ("Bash", "run_shell_command", "exec_command", "shell", "local_shell", "shell_command")
#: The `tool_input` keys holding a shell tool's command (a string, or an argv list).
COMMAND_KEYS = ("command", "cmd")
#: Tools whose input is a patch naming its files (Codex).
PATCH_TOOLS = ("apply_patch", "ApplyPatch")
#: Another MCP server's tools as the clients name them: ``mcp__<server>__<tool>`` (Claude Code, Codex) and
#: ``mcp_<server>_<tool>`` (Gemini CLI). Such a server runs outside the client's sandbox: a tool of it whose name
#: says it writes is checked as a write (SPEC 20.2, 21). bsi's own tools (`core.own_tools`: the whole name is one
#: of them) are decided by its server.
#: The words of a tool name that say the tool writes (a word of the name, split on ``_ - .`` and camelCase).
WRITE_VERBS = frozenset((
    "write", "edit", "create", "move", "rename", "delete", "remove", "append", "patch", "replace", "save", "put",
    "mkdir", "copy", "upload", "update", "insert", "overwrite", "touch", "truncate", "unlink", "rmdir", "rm", "mv",
    "cp", "symlink", "link", "chmod", "set", "modify", "store", "apply", "multiedit", "mkdirs", "makedirs",
    "new", "make", "add", "download", "extract", "export", "erase", "wipe", "purge", "trash", "clear", "unzip",
    "format", "commit", "prepend", "rewrite", "refactor", "checkout", "restore", "revert", "rebase", "stash", "chown",
    "compress", "decompress", "untar", "init",
))
#: The argument keys that say what a multi-purpose tool does this time (``text_editor {"command": "create"}``): a
#: write verb among the words of such a value makes the call a write (``view`` leaves it a read).
ACTION_KEYS = ("command", "action", "operation", "op", "mode", "subcommand")
_ACTION_VALUE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,40}")
#: The words of another server's tool name that say it runs a command line (`run_command`, `shell_exec`,
#: `bash`, `terminal`…): its `command`/`cmd` argument is read as a shell line (SPEC 21.3).
COMMAND_WORDS = frozenset(("command", "commands", "cmd", "exec", "execute", "run", "shell", "bash", "sh", "zsh",
                           "terminal", "powershell", "pwsh", "console"))
#: The arguments a command tool may give its program apart from the command (``{"command": "rm", "args": […]}``).
_ARGV_KEYS = ("args", "arguments", "argv")
#: Codex's tool typing into a program `exec_command` started (``session_id``, ``chars``).
TYPING_TOOLS = ("write_stdin",)
#: An argument names a file when its key (lower case, without ``_`` and ``-``) is one of these or ends in one of
#: `_PATH_ENDINGS`: ``path``, ``file_path``, ``filePath``, ``source``, ``destination``, ``paths``, ``new_path``, …
_PATH_NAMES = frozenset(("path", "paths", "file", "files", "filename", "filenames", "source", "sources", "src",
                         "destination", "destinations", "dest", "dst", "dir", "directory", "folder"))
_PATH_ENDINGS = ("path", "paths", "file", "files", "filename", "dir", "directory", "folder")
#: Keys whose value is a file only as a ``file://`` address (``target``, ``uri``: often a name or a web address).
_ADDRESS_NAMES = frozenset(("target", "targets", "uri", "uris", "url", "urls"))
#: The words of a tool name that say the tool is about files: such a write-named tool that names no file is
#: refused to a bound session (it may write one the hook cannot see); any other (`create_issue`, `set_status`)
#: naming no file writes none the hook could check, and is left alone.
FILE_NOUNS = frozenset(("file", "files", "dir", "dirs", "directory", "directories", "folder", "folders", "path",
                        "paths", "mkdir", "mkdirs", "makedirs", "rmdir", "symlink", "link", "multiedit"))
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
#: The event names the agents give (``hook_event_name``), by our kebab-case event.
EVENT_NAMES = {
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "session-start": "SessionStart",
    "session-end": "SessionEnd",
    "user-prompt-submit": "UserPromptSubmit",
    "stop": "Stop",
    "notification": "Notification",
    "permission-request": "PermissionRequest",
}

#: The `hook_event_name`s only Gemini CLI gives: an event carrying one is Gemini's even without `--agent gemini`.
GEMINI_EVENTS = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
                 "BeforeToolSelection", "PreCompress")


class BadInput(ValueError):
    """The hook's stdin is not what the event should carry (one line saying what)."""


def read_event(stream: Any) -> dict[str, Any]:
    """Read and decode the event object from a binary stream (at most `MAX_INPUT` bytes).

    Raises:
        BadInput: too big, not UTF-8 JSON, or not an object.
    """
    raw = stream.read(MAX_INPUT + 1)
    if len(raw) > MAX_INPUT:
        raise BadInput(f"the event on stdin is over {MAX_INPUT // 1024} KiB")
    if not raw.strip():
        raise BadInput("no event on stdin (expected one JSON object)")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise BadInput("the event on stdin is not valid JSON") from None
    if not isinstance(data, dict):
        raise BadInput("the event on stdin is not a JSON object")
    event: dict[str, Any] = data
    return _without_lone_surrogates(event) if _ESCAPED_SURROGATE.search(raw) else event


def _without_lone_surrogates(data: dict[str, Any]) -> dict[str, Any]:
    """The event with every lone surrogate, in keys and values at any depth, written U+FFFD (`_LONE_SURROGATE`).

    Walked without recursion: `json.loads` reads nesting deeper than a recursive walk could go back over.
    """
    def text(value: Any) -> Any:
        return _LONE_SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value

    top: dict[str, Any] = {}
    stack: list[tuple[Any, Any]] = [(data, top)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in items:
            copy: Any = text(value)
            if isinstance(value, dict):
                copy = {}
            elif isinstance(value, list):
                copy = [None] * len(value)
            if isinstance(target, dict):
                target[text(key)] = copy
            else:
                target[key] = copy
            if isinstance(value, dict | list):
                stack.append((value, copy))
    return top


def sender(event: dict[str, Any], named: str | None) -> str:
    """The agent whose wire an event speaks: the one `--agent` names, else Gemini CLI when the event's own
    `hook_event_name` is one of Gemini's (SPEC 20.2 names only `bsi hook EVENT`), else Claude Code (Codex
    speaks Claude Code's names and shapes)."""
    if named is not None:
        return named
    return "gemini" if text_field(event, "hook_event_name") in GEMINI_EVENTS else "claude"


def text_field(event: dict[str, Any], key: str) -> str:
    """A string field of the event, "" when absent or not a string."""
    value = event.get(key)
    return value if isinstance(value, str) else ""


def names_tool(event: dict[str, Any]) -> bool:
    """True when a tool event names its tool (`tool_name`: a string that is not blank), as every client's does."""
    return bool(text_field(event, "tool_name").strip())


def target_files(event: dict[str, Any]) -> list[str] | None:
    """The files a write tool is about to change, as given (absolute, or relative to the event's cwd).

    Returns:
        None when the tool is not a write tool this hook checks; else the paths
        (possibly empty when the tool input names none: the caller treats that as bad input).
    """
    tool = text_field(event, "tool_name")
    tool_input = event.get("tool_input")
    if mcp_write_tool(tool) or (_mcp_tool_words(tool) and _action_writes(tool_input)):
        named: list[str] = []
        if isinstance(tool_input, dict):
            _argument_paths(tool_input, named, 0)
        if not named:  # a file tool that names none fails closed; any other writes no file the hook could check
            return [] if mcp_file_tool(tool) and mcp_write_tool(tool) else None
        cwd = text_field(event, "cwd")
        return [reading for value in named for reading in (value, *home_reading(value), *_server_readings(value, cwd))]
    if tool in PATCH_TOOLS:
        if not isinstance(tool_input, dict):
            return []
        from brain_tui.core.sessions.patch_text import patch_paths

        patch = _LONE_SURROGATE.sub("\ufffd", _patch_text(tool_input))
        return [reading for path in patch_paths(patch) for reading in (path, *home_reading(path))]
    if tool not in FILE_TOOLS:
        return None
    if not isinstance(tool_input, dict):
        return []
    # Every key that can name the target is checked, not the first found: a tool that writes its
    # `notebook_path` must not pass on the word of a harmless `file_path` beside it.
    found: list[str] = []
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            value = _LONE_SURROGATE.sub("\ufffd", value)
            for reading in (value, *home_reading(value)):
                if reading not in found:
                    found.append(reading)
    return found


def _mcp_tool_words(tool: str) -> list[str]:
    """The words of another MCP server's tool name (lower case), [] for any other tool or one of bsi's own."""
    if tool.startswith("mcp__"):
        server, sep, name = tool[len("mcp__"):].partition("__")
    elif tool.startswith("mcp_"):
        # Gemini CLI: ``mcp_<server>_<tool>``; a server's own `_` (``bsi_files``) leaves its words in the name
        server, sep, name = tool[len("mcp_"):].partition("_")
    else:
        return []
    if not sep:
        return []
    from brain_tui.core.sessions.own_tools import is_own  # another server's tools only

    if is_own(tool):
        return []
    return [word.lower() for word in _WORDS.findall(name)]


def _run_together(word: str) -> tuple[str, ...]:
    """A word that is a write verb run into a file noun, either way round (`writefile`, `WRITEFILE`, `filewrite`):
    both; else the word alone."""
    for verb in WRITE_VERBS:
        if word.startswith(verb) and word[len(verb):] in FILE_NOUNS:
            return verb, word[len(verb):]
        if word.endswith(verb) and word[: -len(verb)] in FILE_NOUNS:
            return word[: -len(verb)], verb
    return (word,)


def mcp_write_tool(tool: str) -> bool:
    """Whether `tool` is another MCP server's tool whose name says it writes (never one of bsi's own)."""
    return any(part in WRITE_VERBS for word in _mcp_tool_words(tool) for part in _run_together(word))


def mcp_file_tool(tool: str) -> bool:
    """Whether `tool` is another MCP server's write tool whose name says it is about files (`FILE_NOUNS`)."""
    parts = [part for word in _mcp_tool_words(tool) for part in _run_together(word)]
    return any(part in WRITE_VERBS for part in parts) and any(part in FILE_NOUNS for part in parts)


def _action_writes(tool_input: Any) -> bool:
    """Whether an action argument of a tool call (`ACTION_KEYS`) is a write verb (``create``, ``str_replace``)."""
    if not isinstance(tool_input, dict):
        return False
    for key in ACTION_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and _ACTION_VALUE.fullmatch(value):
            words = [word.lower() for word in _WORDS.findall(value)]
            if any(part in WRITE_VERBS for word in words for part in _run_together(word)):
                return True
    return False


def mcp_command_tool(tool: str) -> bool:
    """Whether `tool` is another MCP server's tool whose name says it runs a command line (`COMMAND_WORDS`)."""
    return any(word in COMMAND_WORDS for word in _mcp_tool_words(tool))


def _argument_paths(value: Any, found: list[str], depth: int, key: str = "") -> None:
    """Add to `found` every string under a path-like key of an MCP tool's arguments (in lists and objects too)."""
    if depth > 4:
        return
    if isinstance(value, dict):
        for name, item in value.items():
            if isinstance(name, str):
                _argument_paths(item, found, depth + 1, name)
    elif isinstance(value, list):
        for item in value[:1000]:
            _argument_paths(item, found, depth + 1, key)
    elif isinstance(value, str) and value and (_path_key(key) or (_address_key(key) and value.startswith("file://"))):
        value = _LONE_SURROGATE.sub("\ufffd", value)
        if value.startswith("file://"):
            from urllib.parse import unquote, urlsplit

            value = unquote(urlsplit(value).path) or value
        elif "://" in value:
            return  # an address, not a file
        if value not in found:
            found.append(value)


def _path_key(key: str) -> bool:
    norm = key.lower().replace("_", "").replace("-", "")
    if norm.startswith("repo"):  # `repo_path`: the repository a git tool works in, not a file it writes
        return False
    return norm in _PATH_NAMES or norm.endswith(_PATH_ENDINGS)


def _address_key(key: str) -> bool:
    return key.lower().replace("_", "").replace("-", "") in _ADDRESS_NAMES


def shell_command(event: dict[str, Any]) -> str | tuple[str, ...] | None:
    """The command line of a shell tool: a string, or an argv list as a tuple; None for any other tool.

    Returns "" when a shell tool names no command (the caller treats that as bad input).
    """
    tool = text_field(event, "tool_name")
    tool_input = event.get("tool_input")
    if tool not in SHELL_TOOLS:
        if not mcp_command_tool(tool) or not isinstance(tool_input, dict) or \
                not any(key in tool_input for key in COMMAND_KEYS):
            return None
        apart = [value for key in _ARGV_KEYS for value in [tool_input.get(key)] if isinstance(value, list) and value]
        if apart:  # `{"command": "rm", "args": ["-rf", "claims"]}`: the program and its argv
            command = tool_input.get("command", tool_input.get("cmd"))
            words = [command] if isinstance(command, str) else command if isinstance(command, list) else []
            words = [*words, *apart[0]]
            if words and all(isinstance(v, str) for v in words):
                return tuple(_LONE_SURROGATE.sub("\ufffd", v) for v in words)
            return ""
    if not isinstance(tool_input, dict):
        return ""
    for key in COMMAND_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return _LONE_SURROGATE.sub("\ufffd", value)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return tuple(_LONE_SURROGATE.sub("\ufffd", v) for v in value)
    return ""


def typed_text(event: dict[str, Any]) -> str | None:
    """The text a typing tool (`TYPING_TOOLS`: Codex `write_stdin`) types into a running program, None for any
    other tool ("" for a poll of its output, and for input holding no text: the caller decides that)."""
    if text_field(event, "tool_name") not in TYPING_TOOLS:
        return None
    tool_input = event.get("tool_input")
    value = tool_input.get("chars") if isinstance(tool_input, dict) else None
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadInput("write_stdin's chars is not text (tool_input.chars)")
    return _LONE_SURROGATE.sub("\ufffd", value)


def server_folders(cwd: str) -> tuple[str, ...]:
    """The folders above `cwd`, nearest first: where another MCP server (started in a folder the hook does not
    know, usually the project's root) may run what it is handed (`_server_readings`)."""
    found: list[str] = []
    here = os.path.normpath(cwd) if cwd.startswith("/") else ""
    while here and len(found) < 32:
        parent = os.path.dirname(here)
        if parent == here:
            break
        found.append(parent)
        here = parent
    return tuple(found)


def shell_cwd(event: dict[str, Any], cwd: str) -> str:
    """Where a shell tool's command runs: its own folder (`dir_path`, `directory`, `workdir`) when given, else `cwd`."""
    tool_input = event.get("tool_input")
    if isinstance(tool_input, dict):
        for key in ("dir_path", "directory", "workdir", "cwd"):
            value = tool_input.get(key)
            if isinstance(value, str) and value and "\x00" not in value:
                return os.path.normpath(absolute(os.path.expanduser(value), cwd))
    return cwd


def _server_readings(path: str, cwd: str) -> tuple[str, ...]:
    """The other files a relative path of another MCP server's tool may name: that server resolves it from its own
    folder (where the client started it, usually the project's root), not from the agent's cwd, so it is read from
    every folder above the cwd too (``claims/x.yml`` sent from ``notes/`` may be the brain's ``claims/x.yml``)."""
    if not path or os.path.isabs(path) or path.startswith("~"):
        return ()
    depth = min(len([part for part in cwd.split("/") if part]), 32) if cwd.startswith("/") else 0
    return tuple(os.path.join(*([os.pardir] * up), path) for up in range(1, depth + 1))


def home_reading(path: str) -> tuple[str, ...]:
    """The other file a path starting with ``~`` may name: the agent's tool may expand ``~`` to the home folder
    (``~/brain/todo.md`` is then the brain's ``todo.md``) or take it as a folder named ``~`` under the cwd.
    Both readings are checked: either may be the file written."""
    if not path.startswith("~"):
        return ()
    expanded = os.path.expanduser(path)
    return (expanded,) if expanded != path else ()


def _patch_text(tool_input: dict[str, Any]) -> str:
    """The text of every key that may hold the patch (all of them: one harmless key must not hide another)."""
    texts: list[str] = []
    for key in ("patch", "input", "command"):
        value = tool_input.get(key)
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            texts.append("\n".join(value))
    return "\n".join(texts)


# ---------------------------------------------------------------------------------------------
# Output shapes
# ---------------------------------------------------------------------------------------------
def dumps(doc: dict[str, Any]) -> str:
    """One JSON line (the exact bytes the tests compare)."""
    return json.dumps(doc, ensure_ascii=False, separators=(", ", ": ")) + "\n"


def deny_exit(agent: str) -> int:
    """The exit code of a denial: 2 (Claude Code, Codex), 0 for Gemini CLI.

    Gemini CLI logs an exit 2 as a failed hook; its documented structured path is exit 0 with
    ``{"decision": "deny", "reason": …}`` on stdout, which blocks the tool all the same.
    """
    return 0 if agent == "gemini" else 2


def deny(reason: str, agent: str = "claude") -> dict[str, Any]:
    """A `pre-tool-use` denial. Never an `allow`: that would override the user's own permission rules."""
    if agent == "gemini":
        return {"decision": "deny", "reason": reason}
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def context(event_name: str, text: str) -> dict[str, Any]:
    """`additionalContext` for `SessionStart` or `UserPromptSubmit`."""
    return {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}


def block_stop(reason: str) -> dict[str, Any]:
    """A `stop` that asks the agent to go on (close its claim first)."""
    return {"decision": "block", "reason": reason}


def note(text: str) -> dict[str, Any]:
    """A note shown to the user, deciding nothing."""
    return {"systemMessage": text}
