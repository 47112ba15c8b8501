"""Recording what is done on a phone behind ADB as a PhoneWorld trajectory, the format
`phoneworld reconstruct` reads: rollouts on real devices become new mock apps.

Each step saves what the phone showed before the action (its screenshot, its uiautomator
XML, the foreground app and activity) and the action, then performs it:

    with AdbRecorder(AdbPhone(serial), "out/traj/run-1", instruction="Set an alarm") as rec:
        rec.step({"type": "open_app", "app": "Clock"})
        rec.step({"type": "tap", "x": 540, "y": 1200})

The folder gets `episode.json` (device size, instruction, step count) and `steps.jsonl`, with
`step_NNNN.png` and `step_NNNN.xml` beside them. The instruction, when given, makes the
recording a demonstration: `reconstruct` turns it into a task of the rebuilt app.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import TracebackType
from typing import Any, Optional, Union

from ._core import AdbPhone

__all__ = ["AdbRecorder"]


class AdbRecorder:
    """Records the steps taken on an `AdbPhone` into a trajectory folder (created; a folder
    that already holds a trajectory is refused)."""

    def __init__(self, phone: AdbPhone, directory: Union[str, Path], instruction: Optional[str] = None) -> None:
        self.phone = phone
        self.directory = Path(directory)
        self.instruction = instruction
        if (self.directory / "steps.jsonl").exists():
            raise FileExistsError(f"{self.directory}: already holds a trajectory (steps.jsonl)")
        self.directory.mkdir(parents=True, exist_ok=True)
        self._steps = self.directory / "steps.jsonl"
        self._count = 0
        self._closed = False

    def step(self, action: Union[dict[str, Any], str]) -> dict[str, Any]:
        """Saves the screen, performs `action` (a canonical action or its JSON) on the phone,
        and returns what the phone reported."""
        if self._closed:
            raise ValueError(f"{self.directory}: the recording is finished")
        canonical = json.loads(action) if isinstance(action, str) else action
        name = f"step_{self._count:04d}"
        png = self.phone.screenshot_png()
        (self.directory / f"{name}.png").write_bytes(png)
        (self.directory / f"{name}.xml").write_text(self.phone.ui_xml(), encoding="utf-8")
        package, activity = self.phone.foreground()
        record = {
            "step": self._count,
            "action": canonical,
            "package": package,
            "screen": activity,
            # Screens are told apart by what is drawn.
            "frame_hash": hashlib.sha256(png).hexdigest(),
            "image": f"{name}.png",
            "xml": f"{name}.xml",
        }
        with self._steps.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        self._count += 1
        return self.phone.step(canonical)

    def close(self) -> None:
        """Saves the last screen (as a final `wait`: the trajectory shows where it ended) and
        writes `episode.json`."""
        if self._closed:
            return
        if self._count:
            self.step({"type": "wait", "ms": 0})
        width, height = self.phone.size
        episode = {"device": {"width": width, "height": height}, "serial": self.phone.serial, "steps": self._count}
        if self.instruction:
            episode["instruction"] = self.instruction
        (self.directory / "episode.json").write_text(json.dumps(episode, indent=2), encoding="utf-8")
        self._closed = True

    def __enter__(self) -> "AdbRecorder":
        return self

    def __exit__(
        self, exc_type: Optional[type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()
