"""`RecordTrajectory`: writes every episode in the layout of `phoneworld rollouts`
(`<out_dir>/<task>-<seed>[-<n>]/episode.json`, `steps.jsonl`, a PNG and the UI XML per step)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, SupportsFloat

import gymnasium as gym

from .env import PhoneEnv


class RecordTrajectory(gym.Wrapper[Any, Any, Any, Any]):
    """Records each episode of a `PhoneEnv` (also one made by `gymnasium.make`).

    >>> import tempfile, pathlib, phoneworld
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> env = phoneworld.RecordTrajectory(phoneworld.PhoneEnv(task="clock_add_alarm", obs_size=(108, 240)), out, images=False)
    >>> _ = env.reset(seed=3)
    >>> _ = env.step({"type": "finish", "status": "success"})
    >>> sorted(p.name for p in (out / "clock_add_alarm-3").iterdir())
    ['episode.json', 'steps.jsonl']
    """

    def __init__(self, env: gym.Env[Any, Any], out_dir: "str | Path", images: bool = True) -> None:
        super().__init__(env)
        if not isinstance(env.unwrapped, PhoneEnv):
            raise TypeError(f"RecordTrajectory records PhoneEnv episodes, not {type(env.unwrapped).__name__}")
        self.out_dir = Path(out_dir)
        self.images = images
        self._recording = False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> tuple[Any, dict[str, Any]]:
        self._finish()
        obs, info = self.env.reset(seed=seed, options=options)
        self._dir = self._episode_dir(info["task"], info["seed"])
        self.env.unwrapped._core.start_recording(str(self._dir), self.images)  # type: ignore[attr-defined]
        self._recording = True
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            self._finish()
        return obs, reward, terminated, truncated, info

    def close(self) -> None:
        self._finish()
        super().close()

    @property
    def episode_dir(self) -> Optional[Path]:
        """The folder of the current (or last) episode."""
        return getattr(self, "_dir", None)

    def _episode_dir(self, task: str, seed: int) -> Path:
        base = self.out_dir / f"{task}-{seed}"
        candidate, n = base, 1
        while candidate.exists():
            n += 1
            candidate = base.with_name(f"{base.name}-{n}")
        return candidate

    def _finish(self) -> None:
        if self._recording:
            self.env.unwrapped._core.finish_recording()  # type: ignore[attr-defined]
            self._recording = False
