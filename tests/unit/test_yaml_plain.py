"""The plain-YAML reader of brain-compose.yml answers exactly what the full safe loader answers, or steps aside."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from brain_tui.core.config import load_config
from brain_tui.core.records.yaml_plain import NotPlain, load_plain
from brain_tui.core.records.yamlio import CorruptYaml, safe_load_text

#: Values a config line may carry: the plain ones and many the full reader reads differently from a word.
VALUES = [
    "UTC", "Europe/Paris", "manual", "2h", "90s", "15m", "3", "0", "65536", "true", "True", "TRUE", "false",
    "False", "FALSE", "yes", "no", "on", "off", "y", "n", "null", "Null", "NULL", "~", "tRUE", "010", "0x1f",
    "0b1", "0o17", "1_000", "1:30", "1e3", "1E3", "2e", "1.5", ".5", ".inf", ".nan", "-1", "+1", "2026-11-29",
    "2026-11-29T10:00:00Z", "a b", "a:b", "a: b", "a#b", "a #b", "'quoted'", '"double"', "'it''s'", '"a\\tb"',
    "''", '""', "'a # b'", "[a, b]", "{a: 1}", "&x a", "*x", "!!str 3", "|", ">", "@at", "a.b", "a+b", "-",
    "- a", "%x", "`x`", "=", "<<", "b@r", "é", "12h30", "1h2m", "a\x85b",
]
KEYS = ["brain_name", "sync", "a-b", "true", "null", "y", "on", "x1", "1x", "<<", "?"]


def _full(text: str) -> object:
    try:
        return ("ok", safe_load_text(text))
    except CorruptYaml as exc:
        return ("corrupt", exc.line)


def _plain(text: str) -> object:
    try:
        return ("ok", load_plain(text))
    except NotPlain:
        return None


def _same(text: str) -> bool:
    """The plain reader steps aside, or gives the full reader's data with the same types."""
    plain = _plain(text)
    if plain is None:
        return True
    full = _full(text)
    return repr(plain) == repr(full)


@pytest.mark.parametrize("value", VALUES)
def test_every_value_reads_as_the_full_reader_reads_it(value: str) -> None:
    for text in (f"key: {value}\n", f"key: {value}  # note\n", f"top:\n  key: {value}\n", f"key:  {value}"):
        assert _same(text), text


@pytest.mark.parametrize("key", KEYS)
def test_every_key_reads_as_the_full_reader_reads_it(key: str) -> None:
    assert _same(f"{key}: 1\n") and _same(f"top:\n  {key}: x\n")


def test_layouts_read_as_the_full_reader_reads_them() -> None:
    lines = ["a: 1", "b:", "  c: 2", "  d:", "    e: x", "  f: y", "g:", "# note", "", "   ", "h: z",
             "  i: 1", " j: 2", "a: 3", "k: 'v' # n", "---", "- x", "\tl: 1", "m: n\r", "# é — ok",
             "# a\u2028b: 1", "# \x00", "\ufeffn: 1", "o: p # \x85q: 1"]
    for size in (1, 2, 3):
        for combo in itertools.permutations(lines, size):
            assert _same("\n".join(combo) + "\n"), combo


def test_the_common_files_are_read_without_the_full_reader() -> None:
    from brain_tui.demo import DEMO_COMPOSE

    assert load_plain(DEMO_COMPOSE) == {
        "brain_name": "prod", "timezone": "UTC", "kerneluser": False, "sync": "manual", "ttl_default": "2h",
        "circuit_breaker": {"max_consecutive_fails": 3}, "ports": {"brain-api": 7700, "brain-mcp": 7701}}
    assert load_plain("# only a note\n\n") is None
    with pytest.raises(NotPlain):
        load_plain("a: 1\na: 2\n")  # a duplicate: the full reader names it as corrupt


def test_a_config_outside_the_subset_still_reads(tmp_path: Path) -> None:
    (tmp_path / "brain-compose.yml").write_text("brain_name: b\nzones:\n  kernel: [core/, deploy/]\n")
    config = load_config(tmp_path)
    assert (config.brain_name, config.kernel_zone, config.problem) == ("b", ("core/", "deploy/"), None)
    (tmp_path / "brain-compose.yml").write_text("brain_name: b\nbrain_name: c\n")
    assert "duplicate key" in (load_config(tmp_path).problem or "")


def test_a_number_past_pythons_digit_limit_is_left_to_the_full_reader(tmp_path: Path) -> None:
    """`int()` refuses more than 4,300 digits (ValueError): the plain reader steps aside, the full reader calls
    the file corrupt, and the config reads as unreadable (its problem named) instead of failing every command."""
    text = "agents:\n  context_window: " + "9" * 5000 + "\n"
    with pytest.raises(NotPlain):
        load_plain(text)
    (tmp_path / "brain-compose.yml").write_text(text, encoding="utf-8")
    assert "4300 digits" in (load_config(tmp_path).problem or "")
