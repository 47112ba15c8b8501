"""`PhoneEnv`: a Gymnasium env over one mock phone playing the suite's tasks.

>>> import phoneworld
>>> env = phoneworld.PhoneEnv(task="clock_add_alarm", obs_size=(270, 600))
>>> obs, info = env.reset(seed=0)
>>> obs["screenshot"].shape, info["step"]
((600, 270, 3), 0)
>>> obs, reward, terminated, truncated, info = env.step("not an action")
>>> info["action_error"] is not None, info["step"]
(True, 1)
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional, SupportsFloat, Union

import gymnasium as gym
import numpy as np

from ._core import ConfigError, EnvCore, PhoneWorldError
from .config import PhoneConfig, parse_action
from .spaces import action_space, observation_space

ObsType = dict[str, Any]


class PhoneEnv(gym.Env[ObsType, Any]):
    """One phone, one task per episode.

    `task` fixes the task template; without it each `reset` takes the task from
    `options={"task": ..., "params": {...}}` or draws one from the suite by the seed.
    Observations hold the instruction, the screenshot and the UI tree as text (as configured);
    `info` holds the UI elements, the foreground app, the step, success (None until the
    episode ends), sub-goal progress, `parsed_action` (the canonical action in device pixels;
    an empty dict when the action could not be parsed), `parsed_actions` (all canonical
    actions of the step: AndroidWorld's `input_text` on a field is a tap and the typing) and
    `action_error` (None or the reason).

    `appearance` (a profile name or "random", also per episode as `options={"appearance": ...}`)
    varies how the phone looks: resolution, density, font scale, theme, accent, wallpaper and clock.
    Observations keep `obs_size` whatever the resolution; actions in normalized or pixel frames map
    to the episode's device pixels (`device_size`).

    `interruptions` (or `options={"interruptions": ...}` for one episode) opts in to seeded
    interruptions: "off" (the default), "on" (one or two per episode), a count, or
    "kind@step,..." (kinds: notification, permission, rate_app, app_update, low_battery).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 2}

    def __init__(
        self,
        task: Optional[str] = None,
        config: "PhoneConfig | dict[str, Any] | None" = None,
        render_mode: Optional[str] = None,
        interruptions: Interruptions = None,
        **kwargs: Any,
    ) -> None:
        self.config = PhoneConfig.from_kwargs(config, **kwargs)
        self.interruptions = interruption_setting(interruptions)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise gym.error.Error(f"render_mode must be None or 'rgb_array', not {render_mode!r}")
        self.render_mode = render_mode
        self.task = task
        self._core = EnvCore(self.config.core_settings())
        self.observation_space = observation_space(self.config.screenshot_size, "ui_tree" in self.config.observe)
        self.action_space = action_space()
        self._elements: Optional[list[dict[str, Any]]] = None
        self._last_obs: Optional[ObsType] = None
        self._closed = False

    # --- Gymnasium API -------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> tuple[ObsType, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        task = options.pop("task", self.task)
        params = options.pop("params", None)
        appearance = options.pop("appearance", None)
        interruptions = interruption_setting(options.pop("interruptions", self.interruptions))
        if options:
            raise PhoneWorldError(
                f"unknown reset options: {', '.join(sorted(options))} (known: task, params, appearance, interruptions)"
            )
        if appearance is not None and not isinstance(appearance, str):
            raise ConfigError(f"appearance must be a profile name or 'random', not {type(appearance).__name__}")
        if seed is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
        pixels, instruction, tree, info = self._core.reset(int(seed), task, params, appearance, interruptions)
        return self._observe(pixels, instruction, tree, info), info

    def step(self, action: Any) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        try:
            canonical, error = parse_action(action, self.config, self._elements, self._core.device_size), None
        except PhoneWorldError as err:
            canonical, error = None, str(err)
        pixels, instruction, tree, reward, terminated, truncated, info = self._core.step(canonical, error)
        return self._observe(pixels, instruction, tree, info), float(reward), bool(terminated), bool(truncated), info

    def render(self) -> Optional[np.ndarray]:
        if self.render_mode != "rgb_array":
            return None
        if self._last_obs is not None and "screenshot" in self._last_obs:
            return self._last_obs["screenshot"]  # type: ignore[no-any-return]
        return None

    def close(self) -> None:
        self._closed = True

    # --- Beyond Gymnasium ----------------------------------------------------------------

    async def areset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> tuple[ObsType, dict[str, Any]]:
        """`reset` on a worker thread (the engine releases the GIL), for asyncio trainers."""
        return await asyncio.to_thread(self.reset, seed=seed, options=options)

    async def astep(self, action: Any) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """`step` on a worker thread, for asyncio trainers; `action` is usually the model's raw text."""
        return await asyncio.to_thread(self.step, action)

    def restart(self) -> tuple[ObsType, dict[str, Any]]:
        """Back to the current task's start state (same seed and parameters) without its setup."""
        pixels, instruction, tree, info = self._core.restart()
        return self._observe(pixels, instruction, tree, info), info

    def fork(self) -> "PhoneEnv":
        """An independent env continuing from this one's exact state (for rollout groups)."""
        twin = PhoneEnv.__new__(PhoneEnv)
        twin.__dict__.update(self.__dict__)
        twin._core = self._core.fork()
        twin._np_random = None if self._np_random is None else _copy_rng(self._np_random)
        return twin

    def expert_action(self) -> Optional[dict[str, Any]]:
        """The task's reference solution's next canonical action from the current state, or
        None when it is done: demonstrations for SFT, or a baseline agent."""
        return self._core.expert_action()  # type: ignore[no-any-return]

    def snapshot(self) -> bytes:
        """The phone's state as bytes (see `phoneworld.Phone.restore`)."""
        return self._core.snapshot()  # type: ignore[no-any-return]

    def state_hash(self) -> str:
        return self._core.state_hash()  # type: ignore[no-any-return]

    def result(self) -> dict[str, Any]:
        """The episode as `phoneworld eval --json` reports it (success, steps, failure, ...)."""
        return self._core.result()  # type: ignore[no-any-return]

    @property
    def max_steps(self) -> int:
        return int(self._core.max_steps)

    @property
    def device_size(self) -> tuple[int, int]:
        """The phone's (width, height) in pixels this episode: an appearance may change it;
        canonical actions are in these pixels, observations keep `obs_size`."""
        width, height = self._core.device_size
        return int(width), int(height)

    def appearance(self) -> Optional[dict[str, Any]]:
        """The episode's look as `episode.json` records it (None without an appearance)."""
        return self._core.appearance()  # type: ignore[no-any-return]

    def __reduce__(self) -> Any:
        state = {
            "task": self.task,
            "config": self.config,
            "render_mode": self.render_mode,
            "interruptions": self.interruptions,
            "episode": self._core.suspend(),
            "rng": None if self._np_random is None else self._np_random.bit_generator.state,
            "elements": self._elements,
        }
        return (_unpickle_env, (state,))

    # --- internals -------------------------------------------------------------------------

    def _observe(self, pixels: Optional[np.ndarray], instruction: str, tree: Optional[str], info: dict[str, Any]) -> ObsType:
        obs: ObsType = {"instruction": instruction}
        if pixels is not None:
            obs["screenshot"] = pixels
        if tree is not None:
            obs["ui_tree"] = tree
        self._elements = info.get("ui_elements")
        self._last_obs = obs
        return obs


Interruptions = Union[str, int, bool, None]


def interruption_setting(value: Interruptions) -> str:
    """The `interruptions` option as the engine reads it: True is "on", False and None "off",
    a number a count; strings are passed on (the engine names what is wrong with a bad one)."""
    if value is None or value is False:
        return "off"
    if value is True:
        return "on"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    raise PhoneWorldError(f"interruptions must be a string, a count or a bool, not {type(value).__name__}")


def _copy_rng(rng: np.random.Generator) -> np.random.Generator:
    copy = np.random.Generator(type(rng.bit_generator)())
    copy.bit_generator.state = rng.bit_generator.state
    return copy


def _unpickle_env(state: dict[str, Any]) -> PhoneEnv:
    env = PhoneEnv(task=state["task"], config=state["config"], render_mode=state["render_mode"], interruptions=state.get("interruptions"))
    if state["episode"] is not None:
        env._core.resume(state["episode"])
    if state["rng"] is not None:
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = state["rng"]
        env._np_random = rng
    env._elements = state["elements"]
    return env
