"""Shared fixtures: small screenshots keep the suite fast; the engine is the same at any size."""

from __future__ import annotations

import os
import shutil
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
# Helpers shared by test modules (`browser`), importable by name.
sys.path.insert(0, str(Path(__file__).parent))


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


def suite_of(root: Path, name: str, templates: list[str]) -> Path:
    """A suite `name` under `root` holding copies of some bundled templates; returns `root`
    (what `--suite-dir` / `suite_dirs` take)."""
    (root / name).mkdir(parents=True)
    for template in templates:
        shutil.copy(ROOT / "verifiers" / "phoneworld-v0" / f"{template}.ron", root / name / f"{template}.ron")
    return root


@pytest.fixture(scope="session")
def make_suite() -> Any:
    """`suite_of`, for tests that build their own small suite."""
    return suite_of


@pytest.fixture(scope="session")
def two_tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Suite `two`: clock_add_alarm and contacts_add_contact, for runs that should be short."""
    return suite_of(tmp_path_factory.mktemp("suites"), "two", ["clock_add_alarm", "contacts_add_contact"])


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for every browser test (see `browser.py`), closed at the end."""
    from browser import Browser

    window = Browser()
    try:
        yield window
    finally:
        window.close()


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
