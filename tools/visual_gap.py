"""Where the visual similarity of rebuilt screens is lost: the SSIM that `phoneworld replay`
reports (8x8 windows, stride 4, over 90x200 greyscale), recomputed from the pairs that
`replay --out-dir` writes (already resized, so close to the reported figure, not equal: 72.007%
against the reported 72.009% over the 48 sample screens), and what each window lost, summed by where it lies
and what it shows.

    python3 tools/visual_gap.py FRAMES_DIR [FRAMES_DIR ...]

The parts add up to 1 - the mean similarity over the screens:
- status bar, navigation bar: windows over the phone's bars (the rebuilt phone draws its own);
- missing: the original shows something (a picture, text) where the rebuilt screen is flat;
- extra: the rebuilt screen shows something where the original is flat;
- different: both show something, not the same (a text wrapped elsewhere, a blur for a photo);
- shade: both flat, in different shades.
Needs numpy and Pillow (both in the dev requirements).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

COMPARE_SIZE = (90, 200)
WINDOW, STRIDE = 8, 4
C1, C2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
# The phone's bars, as shares of its height (28 dp and 48 dp of 914 dp at 420 dpi).
STATUS_SHARE, NAV_SHARE = 28 / 914, 48 / 914
# A window whose grey levels vary less than this (variance) shows nothing: flat colour.
FLAT_VARIANCE = 5.0**2
PARTS = ("status bar", "navigation bar", "missing", "extra", "different", "shade")


def grey(path: Path) -> np.ndarray:
    """The image box-filtered to `COMPARE_SIZE`, as BT.601 luma."""
    from PIL import Image

    with Image.open(path) as img:
        rgb = np.asarray(img.convert("RGB").resize(COMPARE_SIZE, Image.Resampling.BOX), dtype=np.float64)
    return 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]


def part_of(centre_row: float, variance_a: float, variance_b: float) -> str:
    height = COMPARE_SIZE[1]
    if centre_row < STATUS_SHARE * height:
        return "status bar"
    if centre_row > (1 - NAV_SHARE) * height:
        return "navigation bar"
    shows_a, shows_b = variance_a > FLAT_VARIANCE, variance_b > FLAT_VARIANCE
    if shows_a and shows_b:
        return "different"
    if shows_a:
        return "missing"
    return "extra" if shows_b else "shade"


def screen_gap(a: np.ndarray, b: np.ndarray) -> tuple[float, dict[str, float]]:
    """The SSIM of two greyscale images of `COMPARE_SIZE` and what each part lost (the loss of
    its windows over the number of windows)."""
    lost = dict.fromkeys(PARTS, 0.0)
    total, windows = 0.0, 0
    h, w = a.shape
    for y in range(0, h - WINDOW + 1, STRIDE):
        for x in range(0, w - WINDOW + 1, STRIDE):
            wa, wb = a[y : y + WINDOW, x : x + WINDOW], b[y : y + WINDOW, x : x + WINDOW]
            ma, mb = wa.mean(), wb.mean()
            va, vb = wa.var(ddof=1), wb.var(ddof=1)
            cov = ((wa - ma) * (wb - mb)).sum() / (WINDOW * WINDOW - 1)
            s = ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2))
            total += s
            windows += 1
            lost[part_of(y + WINDOW / 2, va, vb)] += 1 - s
    return total / windows, {k: v / windows for k, v in lost.items()}


def pairs(frames_dirs: list[Path]) -> list[tuple[Path, Path]]:
    """Every judged screen's (original, rebuilt) pair under the folders `replay --out-dir` wrote."""
    found = []
    for d in frames_dirs:
        for original in sorted(d.glob("**/screen_*.original.png")):
            found.append((original, original.with_name(original.name.replace(".original.", ".rebuilt."))))
    return found


def visual_gap(frames_dirs: list[Path]) -> dict[str, Any] | None:
    """The mean similarity over every screen pair and the mean loss of each part; None without pairs."""
    found = pairs(frames_dirs)
    if not found:
        return None
    similarity = 0.0
    lost = dict.fromkeys(PARTS, 0.0)
    for original, rebuilt in found:
        s, parts = screen_gap(grey(original), grey(rebuilt))
        similarity += s
        for k, v in parts.items():
            lost[k] += v
    n = len(found)
    return {"screens": n, "similarity": similarity / n, "lost": {k: v / n for k, v in lost.items()}}


def markdown(gap: dict[str, Any]) -> str:
    lines = [
        f"Where visual similarity is lost ({gap['screens']} screens, mean {100 * gap['similarity']:.1f}%; the parts add up to the rest):",
        "",
        "| " + " | ".join(PARTS) + " |",
        "|" + "---:|" * len(PARTS),
        "| " + " | ".join(f"{100 * gap['lost'][k]:.1f}" for k in PARTS) + " |",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    gap = visual_gap([Path(p) for p in sys.argv[1:]])
    if gap is None:
        print("no screen pairs (screen_*.original.png) under these folders", file=sys.stderr)
        return 1
    print(markdown(gap))
    print(json.dumps(gap, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
