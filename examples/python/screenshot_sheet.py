"""A sheet of screens as PhoneWorld draws them, for the README (docs/images/look.png).

    .venv/bin/python examples/python/screenshot_sheet.py --out docs/images/look.png

Each panel is an app's entry screen (or the home screen) on a fresh phone, seed 0, under the
appearance profile named in PANELS, shrunk by the engine to the panel size; the sheet is
written as an 8-bit RGB PNG with the standard library.
"""

from __future__ import annotations

import argparse
import struct
import zlib
from pathlib import Path
from typing import Optional

import numpy as np

from phoneworld import PhoneEnv

#: (app or None for the home screen, appearance profile)
PANELS: list[tuple[Optional[str], str]] = [
    ("Gallery", "default"),
    ("Shop", "default"),
    ("Food", "default"),
    ("Movies", "default"),
    ("Maps", "default"),
    ("Music", "default"),
    ("Chatly", "default"),
    ("Weather", "default"),
    (None, "dark"),
    (None, "large_text"),
    ("Clock", "accent_green_24h"),
    ("Maps", "dark_large"),
]
PANEL = (270, 600)
GAP = 16
BACKGROUND = (236, 239, 243)


def panel(app: Optional[str], appearance: str) -> np.ndarray:
    env = PhoneEnv(appearance=appearance, obs_size=PANEL, observe=("screenshot",))
    obs, _ = env.reset(seed=0)
    if app is not None:
        obs, *_ = env.step({"type": "open_app", "app": app})
    return np.asarray(obs["screenshot"])[:, :, :3]


def sheet(panels: list[np.ndarray], columns: int) -> np.ndarray:
    rows = -(-len(panels) // columns)
    w, h = PANEL
    out = np.empty((rows * h + (rows + 1) * GAP, columns * w + (columns + 1) * GAP, 3), np.uint8)
    out[:] = BACKGROUND
    for i, p in enumerate(panels):
        r, c = divmod(i, columns)
        y, x = GAP + r * (h + GAP), GAP + c * (w + GAP)
        out[y : y + h, x : x + w] = p
    return out


def png(pixels: np.ndarray) -> bytes:
    h, w, _ = pixels.shape
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("docs/images/look.png"))
    parser.add_argument("--columns", type=int, default=4)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(png(sheet([panel(app, look) for app, look in PANELS], args.columns)))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
