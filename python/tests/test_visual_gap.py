"""tools/visual_gap.py: the zoo's account of where rebuilt screens lose visual similarity."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

PIL = pytest.importorskip("PIL.Image")

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("visual_gap", ROOT / "tools" / "visual_gap.py")
assert spec is not None and spec.loader is not None
visual_gap = importlib.util.module_from_spec(spec)
spec.loader.exec_module(visual_gap)

W, H = 270, 600


def page(photo: bool, status_ink: bool) -> np.ndarray:
    """A white page with a grey status bar; a striped picture in its middle, and a clock drawn
    in the status bar, where asked."""
    rgb = np.full((H, W, 3), 250, dtype=np.uint8)
    rgb[:18] = 120
    if status_ink:
        rgb[4:14, 10:40] = 250
    if photo:
        rows = np.arange(200, 400)[:, None]
        rgb[200:400, 40:230] = np.where((rows // 6) % 2 == 0, 30, 220).astype(np.uint8)[..., None]
    return rgb


def save_pair(folder: Path, name: str, original: np.ndarray, rebuilt: np.ndarray) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    PIL.fromarray(original).save(folder / f"screen_{name}.original.png")
    PIL.fromarray(rebuilt).save(folder / f"screen_{name}.rebuilt.png")


def test_a_picture_drawn_flat_is_lost_as_missing_and_the_parts_add_up(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    save_pair(frames / "trace_0", "home", page(photo=True, status_ink=True), page(photo=False, status_ink=False))
    gap = visual_gap.visual_gap([frames])
    assert gap["screens"] == 1
    lost = gap["lost"]
    assert lost["missing"] > 0.05, lost
    assert lost["status bar"] > 0.0, "the clock only the original draws"
    assert lost["extra"] == lost["navigation bar"] == 0.0
    # Only windows across the status bar's edge (next to the clock) show something in both.
    assert lost["different"] < lost["missing"] / 10
    assert abs(1 - gap["similarity"] - sum(lost.values())) < 1e-9
    assert "| status bar | navigation bar | missing |" in visual_gap.markdown(gap)


def test_the_same_screen_loses_nothing_and_no_pairs_is_none(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    same = page(photo=True, status_ink=True)
    save_pair(frames / "trace_0", "home", same, same)
    gap = visual_gap.visual_gap([frames])
    assert gap["similarity"] == pytest.approx(1.0)
    assert all(v == pytest.approx(0.0, abs=1e-12) for v in gap["lost"].values())
    assert visual_gap.visual_gap([tmp_path / "nothing"]) is None
