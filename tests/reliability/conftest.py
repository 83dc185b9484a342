"""Options for the reliability harness: a short CI profile by default, `--long-profile` for the figures."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--long-profile`: N=16 racers, R=200 rounds, more kills (minutes, not for CI)."""
    parser.addoption("--long-profile", action="store_true", default=False,
                     help="run the reliability harness with its long profile")


@pytest.fixture
def long_profile(request: pytest.FixtureRequest) -> bool:
    """True when the long profile was asked for."""
    return bool(request.config.getoption("--long-profile"))
