"""Shared fixtures: small screenshots keep the suite fast; the engine is the same at any size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL: dict[str, Any] = {"obs_size": (108, 240)}
# Data and vendored third-party code the tests run, not tests: no doctest import (the vendored
# AndroidWorld client sets the root logger's level when imported).
collect_ignore = ["fixtures"]
# The vendored AndroidWorld package, importable as upstream's clients import it.
sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "android_world"))


def cli_binary() -> Path:
    """The `phoneworld` binary, built if needed."""
    for profile in ("release", "debug"):
        candidate = ROOT / "target" / profile / "phoneworld"
        if candidate.exists():
            return candidate
    subprocess.run(["cargo", "build", "-p", "phoneworld-cli"], cwd=ROOT, check=True)
    return ROOT / "target" / "debug" / "phoneworld"


@pytest.fixture(scope="session")
def cli() -> Path:
    return cli_binary()


@pytest.fixture()
def small() -> dict[str, Any]:
    return dict(SMALL)


@pytest.fixture(scope="module")
def adb() -> Iterator[Any]:
    """Debian's `adb` server on a free loopback port with its own HOME, killed after the module."""
    from phoneworld import PrivateAdbServer

    server = PrivateAdbServer()
    try:
        yield server
    finally:
        server.close()


os.environ.setdefault("PHONEWORLD_ROOT", str(ROOT))
