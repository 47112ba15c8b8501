"""Same seed and actions give the same state and frame hashes through Python, in any process."""

from __future__ import annotations

import subprocess
import sys

from phoneworld import Phone

SCRIPT = """
import phoneworld
phone = phoneworld.Phone(seed=7)
hashes = []
for action in [
    {"type": "open_app", "app": "Settings"},
    {"type": "swipe", "x1": 540, "y1": 1900, "x2": 540, "y2": 700},
    {"type": "tap", "x": 540, "y": 1100},
    {"type": "key", "key": "back"},
    {"type": "open_app", "app": "Clock"},
    {"type": "tap", "x": 300, "y": 2250},
]:
    phone.step(action)
    hashes.append(phone.state_hash() + ":" + phone.frame_hash())
print("\\n".join(hashes))
"""


def run() -> list[str]:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, check=True)
    return out.stdout.decode().split()


def test_replays_in_two_processes_are_bit_identical() -> None:
    first, second = run(), run()
    assert len(first) == 6 and first == second
    assert len(set(first)) > 3, "the actions changed the screen"


def test_different_seeds_differ() -> None:
    assert Phone(seed=1).state_hash() != Phone(seed=2).state_hash()
