"""Reading agent transcripts (issue 21): the peek and the context runway, from a recorded Claude Code run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain_tui.core.sessions import transcript
from brain_tui.core.sessions.transcript import DEFAULT_WINDOW, TAIL_BYTES, Runway, parse, read_peek, runway, window_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"
CLAUDE = FIXTURES / "claude-2.1.197.jsonl"
CODEX = FIXTURES / "codex-rollout.jsonl"
GEMINI = FIXTURES / "gemini-chat.json"
#: Context of each model turn in the recording: input + cache creation + cache read + output tokens.
CLAUDE_TURNS = (4 + 2274 + 20468 + 25, 4 + 2286 + 20571 + 25, 4 + 2302 + 20722 + 25, 4 + 2309 + 20786 + 25,
                4 + 2321 + 20888 + 25)


def line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def assistant(text: str, msg_id: str, used: int = 0, tool: dict[str, object] | None = None) -> bytes:
    content: list[dict[str, object]] = [{"type": "text", "text": text}] if text else []
    if tool:
        content.append({"type": "tool_use", **tool})
    return line({"type": "assistant", "timestamp": "2026-12-01T10:00:00.000Z",
                 "message": {"id": msg_id, "model": "claude-sonnet", "content": content,
                             "usage": {"input_tokens": used, "output_tokens": 0}}})


def test_the_recorded_claude_transcript_gives_the_last_text_tool_and_usage() -> None:
    peek = read_peek(str(CLAUDE))
    assert peek is not None
    assert peek.text == ("Done.",)
    assert peek.tool is not None and (peek.tool.name, peek.tool.target, peek.tool.done) == (
        "Bash", "ls brain-engine/api", True)
    assert peek.tool.at is not None and peek.tool.at.isoformat() == "2026-12-01T20:19:37.608000+00:00"
    assert peek.turns == CLAUDE_TURNS  # one turn per message.id, in order
    assert peek.runway is not None
    growth = (CLAUDE_TURNS[-1] - CLAUDE_TURNS[0]) / 4
    assert peek.runway.used == CLAUDE_TURNS[-1] and peek.runway.window == DEFAULT_WINDOW
    assert peek.runway.turns_left == int((DEFAULT_WINDOW - CLAUDE_TURNS[-1]) // growth) == 1514
    assert peek.runway.describe() == "ctx 11% · ~1514 turns" and not peek.runway.low


def test_only_the_tail_is_read_and_the_partial_first_line_is_dropped(tmp_path: Path) -> None:
    big = tmp_path / "t.jsonl"
    filler = assistant("old text that must not win", "m-old", used=5) * 20_000
    big.write_bytes(filler + CLAUDE.read_bytes())
    peek = read_peek(str(big))
    assert peek is not None and peek.read_bytes == TAIL_BYTES
    assert peek.text == ("Done.",) and peek.turns[-5:] == CLAUDE_TURNS


def test_a_tool_call_without_its_result_is_the_one_in_progress() -> None:
    data = (assistant("", "m1", 1000, {"id": "t1", "name": "Edit", "input": {"file_path": "/b/src/a.py"}})
            + line({"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1"}]}})
            + assistant("Running the tests.", "m2", 1500,
                        {"id": "t2", "name": "Bash", "input": {"command": "pytest -q"}}))
    peek = parse(data)
    assert peek.tool is not None and (peek.tool.name, peek.tool.target, peek.tool.done) == ("Bash", "pytest -q", False)
    assert peek.text == ("Running the tests.",)


def test_bad_lines_are_skipped() -> None:
    data = (b"not json\n" + b"[1, 2]\n" + line({"type": "assistant", "message": "nope"})
            + line({"type": "assistant", "message": {"content": [{"type": "tool_use", "name": 7}],
                                                     "usage": {"input_tokens": "many"}}})
            + assistant("fine", "m1", 10) + b'{"type": "assistant", "message": {"content": [')
    peek = parse(data)
    assert peek.text == ("fine",) and peek.turns == (10,) and peek.tool is None


def test_hostile_text_stays_inert_and_bounded(tmp_path: Path) -> None:
    evil = "\x1b]0;pwned\x07 hi \u202eevil\u200b\n" + "line2\nline3\nline4\n" + "x" * 5000
    command = "rm -rf /\x1b[31m \u2066" + "y" * 5000
    tool: dict[str, object] = {"id": "t1", "name": "Bash\x1b[2J", "input": {"command": command}}
    huge = b'{"type": "assistant", "message": {"content": [{"type": "text", "text": "' + b"z" * (10 * 1024 * 1024)
    ending = tmp_path / "ending.jsonl"  # a 10 MB last line: only its tail is read, and it is no whole line
    ending.write_bytes(assistant("before", "m0", 10) + huge + b'"}]}}\n')
    peek = read_peek(str(ending))
    assert peek is not None and peek.read_bytes == TAIL_BYTES and peek.text == () and peek.turns == ()
    path = tmp_path / "t.jsonl"
    path.write_bytes(huge + b'"}]}}\n' + assistant(evil, "m1", 10, tool))
    peek = read_peek(str(path))
    assert peek is not None and peek.read_bytes == TAIL_BYTES
    shown = json.dumps(peek.as_dict(), ensure_ascii=False)
    for char in ("\x1b", "\x07", "\u202e", "\u200b", "\u2066"):
        assert char not in shown
    assert "z" * 100 not in shown  # the 10 MB line is never read whole
    assert peek.text[0].startswith("⟨ESC⟩]0;pwned⟨BEL⟩ hi ⟨U+202E⟩evil⟨U+200B⟩")
    assert len(peek.text) == transcript.TEXT_LINES and peek.text[-1].endswith("…")
    assert all(len(text) <= transcript.TEXT_WIDTH for text in peek.text)
    assert peek.tool is not None and peek.tool.name == "Bash⟨ESC⟩[2J" and len(peek.tool.target) <= 200
    assert "⟨ESC⟩[31m" in peek.tool.target and "⟨U+2066⟩" in peek.tool.target


def test_a_symlink_a_folder_or_a_missing_file_reads_as_nothing(tmp_path: Path) -> None:
    link = tmp_path / "link.jsonl"
    link.symlink_to(CLAUDE)
    assert read_peek(str(link)) is None
    assert read_peek(str(tmp_path)) is None
    assert read_peek(str(tmp_path / "missing.jsonl")) is None


def test_the_window_of_a_1m_model_and_the_forecast() -> None:
    data = b"".join(assistant("", f"m{i}", 900_000 + i * 10_000) for i in range(3))
    data = data.replace(b'"claude-sonnet"', b'"claude-sonnet-4-5[1m]"')
    peek = parse(data)
    assert peek.runway is not None and peek.runway.window == 1_000_000
    assert peek.runway.turns_left == 8 and peek.runway.low and peek.runway.describe() == "ctx 92% · ~8 turns"
    assert parse(data, window=2_000_000).runway == Runway(920_000, 2_000_000, 10_000.0, 108)


@pytest.mark.parametrize("model", ["claude-x\x1b[1m]", "claude sonnet[1m]", "[1m]", "claude-\u200b[1m]"])
def test_only_a_plain_model_name_earns_the_long_window(model: str) -> None:
    # The name comes from the transcript: an escape sequence or odd characters before the suffix would
    # stretch the runway five times and hold back its low-context warning.
    assert window_of(model) == 200_000
    assert window_of("claude-opus-4-1[1m]") == window_of("us.anthropic/claude:sonnet[1M]") == 1_000_000


def test_runway_forecast_uses_the_recent_turns_and_needs_growth() -> None:
    assert runway([], 200_000) is None
    assert runway([50_000], 200_000) == Runway(50_000, 200_000, None, None)
    assert runway([10, 100_000, 100_000], 200_000) == Runway(100_000, 200_000, 49_995.0, 2)
    # only the last 5 growths count: an old jump is forgotten
    turns = [1_000, 100_000, 101_000, 102_000, 103_000, 104_000, 105_000]
    assert runway(turns, 200_000) == Runway(105_000, 200_000, 1_000.0, 95)
    assert runway([150_000, 140_000], 200_000) == Runway(140_000, 200_000, None, None)


def test_codex_and_gemini_transcripts() -> None:
    codex = read_peek(str(CODEX))
    assert codex is not None and codex.text == ("Tests pass; closing the claim.",)
    assert codex.tool is not None and codex.tool.name == "shell" and codex.tool.target == "bash -lc pytest -q"
    assert codex.runway is not None and codex.runway.window == 272_000 and codex.runway.used == 30_000
    gemini = read_peek(str(GEMINI))
    assert gemini is not None and gemini.text == ("I updated the routes.",)
    assert gemini.tool is not None and gemini.tool.name == "replace" and gemini.tool.target == "/b/src/routes.py"
    assert gemini.runway is not None and gemini.runway.used == 41_000 and gemini.model == "gemini-2.5-pro"


def test_an_absurd_token_count_is_no_count_and_crashes_nothing() -> None:
    """Usage figures past any real window (a forged or corrupt line) are skipped like any other bad value."""
    data = (assistant("first", "m1", 10 ** 400) + assistant("second", "m2", 20_000)
            + assistant("third", "m3", 10 ** 700) + assistant("fourth", "m4", 30_000))
    peek = parse(data)
    assert peek.turns == (20_000, 30_000)
    assert peek.runway is not None and peek.runway.used == 30_000 and peek.runway.turns_left == 17


@pytest.mark.parametrize(("turns", "text"), [(0, "ctx 97% · <1 turn"), (1, "ctx 97% · ~1 turn"),
                                             (2, "ctx 97% · ~2 turns"), (None, "ctx 97%")])
def test_the_runway_under_one_turn_reads_less_than_one(turns: int | None, text: str) -> None:
    assert Runway(194_000, 200_000, 7_000.0 if turns is not None else None, turns).describe() == text


def test_a_long_line_does_not_hide_the_lines_after_it() -> None:
    """The peek shows the message's first 3 lines, each cut on its own: a long first or second line (a pasted log)
    does not use up the others' room."""
    # Before, the text was cut to 4,800 characters before it was split: a 5,000-character line 2 hid line 3.
    text = "line1\n" + "A" * 5000 + "\nline3\nline4"
    assert transcript.inert_lines(text) == ("line1", "A" * (transcript.TEXT_WIDTH - 1) + "…", "line3…")
    assert transcript.inert_lines("B" * 50_000 + "\nline2") == ("B" * (transcript.TEXT_WIDTH - 1) + "…", "line2")
