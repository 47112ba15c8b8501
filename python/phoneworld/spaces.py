"""Observation and action spaces: a text space that accepts any Unicode string."""

from __future__ import annotations

import string
from typing import Any, Optional

import numpy as np
from gymnasium import spaces

_SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " "


class UnicodeText(spaces.Text):
    """Any `str` up to `max_length` characters (UI text holds any character, so Gymnasium's
    charset check would reject real screens and instructions)."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Optional[int] = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, UnicodeText) and (self.min_length, self.max_length) == (other.min_length, other.max_length)


def observation_space(screenshot: Optional[tuple[int, int]], ui_tree: bool) -> spaces.Dict:
    parts: dict[str, spaces.Space[Any]] = {"instruction": UnicodeText(4096)}
    if screenshot is not None:
        width, height = screenshot
        parts["screenshot"] = spaces.Box(0, 255, (height, width, 3), np.uint8)
    if ui_tree:
        parts["ui_tree"] = UnicodeText(1 << 20)
    return spaces.Dict(parts)


def action_space() -> UnicodeText:
    """Actions are text (any accepted format) or dicts; sampled strings are usually invalid,
    which `step` reports as an action error."""
    return UnicodeText(4096)
