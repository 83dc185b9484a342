"""A brain-compose.yml the cockpit reads with a guess is said at start, as `bsi` says it on every read.

A file that does not parse (defaults used, every write refused), a `timezone:` naming no zone (times read in this
machine's zone) and a `sync:` naming no mode (manual applies): the pilot learns it on opening the cockpit, not at
the first refused write or never.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import settle

pytestmark = pytest.mark.anyio


def _told(app) -> list[str]:  # noqa: ANN001
    return [n.message for n in app._notifications if n.title == "brain-compose.yml"]


async def test_an_unparsable_file_is_said_at_start(make_app, demo_root: Path) -> None:  # noqa: ANN001
    with (demo_root / "brain-compose.yml").open("a", encoding="utf-8") as fh:
        fh.write("zones: [\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        told = _told(app)
        assert len(told) == 1 and "brain-compose.yml line" in told[0] and "writes are refused" in told[0], told


async def test_a_bad_timezone_and_sync_are_said_at_start(make_app, demo_root: Path) -> None:  # noqa: ANN001
    path = demo_root / "brain-compose.yml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("timezone: UTC", "timezone: Mars/Olympus").replace("sync: manual", "sync: sometimes"),
                    encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        told = " ".join(_told(app))
        assert "'Mars/Olympus' is not a known zone" in told and "'sometimes' is not auto, manual or off" in told


async def test_a_sound_file_says_nothing(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert _told(app) == []
