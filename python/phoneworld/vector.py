"""`VectorEnv`: N phones stepped in parallel on Rust threads, screenshots in one (N, H, W, 3)
array; Gymnasium 1.x's VectorEnv contract with its three autoreset modes, and EnvPool-style
`send`/`recv` for batches smaller than `num_envs`.

>>> import phoneworld
>>> envs = phoneworld.VectorEnv(num_envs=2, num_threads=2, obs_size=(108, 240))
>>> obs, infos = envs.reset(seed=0)
>>> obs["screenshot"].shape
(2, 240, 108, 3)
>>> obs, rewards, terminated, truncated, infos = envs.step([{"type": "key", "key": "home"}] * 2)
>>> infos["step"].tolist()
[1, 1]
>>> envs.close()
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ._core import ConfigError, PhoneWorldError, VectorCore
from .config import PhoneConfig, parse_action
from .spaces import action_space, observation_space

_MODE_NAMES = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step", AutoresetMode.DISABLED: "disabled"}


def _mode(mode: Union[str, AutoresetMode]) -> AutoresetMode:
    if isinstance(mode, AutoresetMode):
        return mode
    for member, name in _MODE_NAMES.items():
        if mode in (name, member.value, member.name):
            return member
    raise ConfigError(f"autoreset_mode must be next_step, same_step or disabled, not {mode!r}")


class VectorEnv(gym.vector.VectorEnv):  # type: ignore[type-arg]
    """`num_envs` phones; env i starts with seed `seed + i` and later episodes with
    `seed + i + k * num_envs` (`k * seed_stride` with `seed_stride`: a shard of a larger pool
    passes the pool's size, so its envs play the seeds they would in the pool).

    `task` (or `options={"task": ...}` at reset, one per env or one for all) fixes the task;
    otherwise each episode draws one from the suite by its seed.
    """

    def __init__(
        self,
        num_envs: int = 8,
        task: Optional[str] = None,
        config: "PhoneConfig | dict[str, Any] | None" = None,
        *,
        num_threads: Optional[int] = None,
        batch_size: Optional[int] = None,
        autoreset_mode: Union[str, AutoresetMode] = AutoresetMode.NEXT_STEP,
        copy: bool = True,
        render_mode: Optional[str] = None,
        seed_stride: Optional[int] = None,
        **kwargs: Any,
    ) -> None:
        self.config = PhoneConfig.from_kwargs(config, **kwargs)
        self.num_envs = int(num_envs)
        self.num_threads = int(num_threads or min(self.num_envs, _cpu_count()))
        self.batch_size = int(batch_size or self.num_envs)
        if not 1 <= self.batch_size <= self.num_envs:
            raise ConfigError(f"batch_size must be in 1..={self.num_envs}, not {self.batch_size}")
        self.autoreset_mode = _mode(autoreset_mode)
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": ["rgb_array"]}
        self.render_mode = render_mode
        self.copy = copy
        self.task = task
        self.seed_stride = seed_stride
        self._core = VectorCore(self.config.core_settings(), self.num_envs, self.num_threads, _MODE_NAMES[self.autoreset_mode], seed_stride)
        self.single_observation_space = observation_space(self.config.screenshot_size, "ui_tree" in self.config.observe)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._elements: list[Optional[list[dict[str, Any]]]] = [None] * self.num_envs
        self._tasks: list[Optional[str]] = [task] * self.num_envs
        self._closed = False

    # --- Gymnasium VectorEnv API ---------------------------------------------------------------

    def reset(self, *, seed: "int | Sequence[int] | None" = None, options: Optional[dict[str, Any]] = None) -> tuple[dict[str, Any], dict[str, Any]]:
        seeds = env_seeds(self, seed)
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        tasks = self._per_env(options.pop("task", options.pop("tasks", None)), self._tasks)
        params = self._per_env(options.pop("params", None), [None] * self.num_envs)
        if options:
            raise PhoneWorldError(f"unknown reset options: {', '.join(sorted(options))} (known: task, params, reset_mask)")
        if mask is not None:
            mask = [bool(m) for m in np.asarray(mask, dtype=bool).reshape(-1)]
        self._tasks = list(tasks)
        pixels, instructions, trees, infos = self._core.reset(seeds, list(tasks), list(params), mask)
        return self._batch(pixels, instructions, trees), self._infos(infos)

    def step(self, actions: Any) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        canonical, errors = self._parse(actions, range(self.num_envs))
        return self._step_result(self._core.step(canonical, errors))

    def render(self) -> Optional[tuple[np.ndarray, ...]]:
        return None

    def close_extras(self, **kwargs: Any) -> None:
        self._core.close()

    # --- EnvPool-style asynchronous stepping ------------------------------------------------------

    def send(self, actions: Any, env_ids: "Sequence[int] | np.ndarray | None" = None) -> None:
        """Queues one step for each env in `env_ids` (all envs when None); returns at once."""
        ids = list(range(self.num_envs)) if env_ids is None else [int(i) for i in np.asarray(env_ids).reshape(-1)]
        canonical, errors = self._parse(actions, ids)
        self._core.send(canonical, errors, ids)

    def recv(self) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The first `batch_size` sent steps to finish; `info["env_id"]` says whose they are."""
        ids, stepped = self._core.recv(self.batch_size)
        obs, rewards, terminated, truncated, info = self._step_result(stepped, ids)
        info["env_id"] = np.asarray(ids, dtype=np.int64)
        return obs, rewards, terminated, truncated, info

    def result(self, env_id: int) -> dict[str, Any]:
        """Env `env_id`'s current or finished episode as `phoneworld eval` reports it."""
        return self._core.result(int(env_id))  # type: ignore[no-any-return]

    def state_hash(self, env_id: int) -> str:
        return self._core.state_hash(int(env_id))  # type: ignore[no-any-return]

    def __reduce__(self) -> Any:
        args = {
            "num_envs": self.num_envs,
            "task": self.task,
            "config": self.config,
            "num_threads": self.num_threads,
            "batch_size": self.batch_size,
            "autoreset_mode": _MODE_NAMES[self.autoreset_mode],
            "copy": self.copy,
            "render_mode": self.render_mode,
            "seed_stride": self.seed_stride,
        }
        envs = [self._core.suspend(i) for i in range(self.num_envs)]
        return (_unpickle_vector, (args, envs, self._tasks, self._elements))

    # --- internals ---------------------------------------------------------------------------------

    def _step_result(self, stepped: Any, ids: Optional[Sequence[int]] = None) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        (pixels, instructions, trees, infos), rewards, terminated, truncated, finals = stepped
        return (
            self._batch(pixels, instructions, trees),
            np.asarray(rewards, dtype=np.float64),
            np.asarray(terminated, dtype=np.bool_),
            np.asarray(truncated, dtype=np.bool_),
            self._infos(infos, finals, ids),
        )

    def _per_env(self, value: Any, default: list[Any]) -> list[Any]:
        if value is None:
            return list(default)
        if isinstance(value, (list, tuple)):
            if len(value) != self.num_envs:
                raise ConfigError(f"got {len(value)} values for {self.num_envs} envs")
            return list(value)
        return [value] * self.num_envs

    def _parse(self, actions: Any, ids: Sequence[int]) -> tuple[list[Any], list[Optional[str]]]:
        actions = list(actions)
        if len(actions) != len(ids):
            raise ConfigError(f"got {len(actions)} actions for {len(ids)} envs")
        canonical: list[Any] = []
        errors: list[Optional[str]] = []
        for env_id, action in zip(ids, actions):
            try:
                canonical.append(parse_action(action, self.config, self._elements[env_id]))
                errors.append(None)
            except PhoneWorldError as err:
                canonical.append(None)
                errors.append(str(err))
        self._ids = list(ids)
        return canonical, errors

    def _batch(self, pixels: Optional[np.ndarray], instructions: list[str], trees: list[Optional[str]]) -> dict[str, Any]:
        obs: dict[str, Any] = {"instruction": tuple(instructions)}
        if pixels is not None:
            obs["screenshot"] = pixels.copy() if self.copy else pixels
        if "ui_tree" in self.config.observe:
            obs["ui_tree"] = tuple(t or "" for t in trees)
        return obs

    def _infos(self, infos: list[dict[str, Any]], finals: Optional[list[Any]] = None, ids: Optional[Sequence[int]] = None) -> dict[str, Any]:
        ids = list(range(len(infos))) if ids is None else list(ids)
        for env_id, info in zip(ids, infos):
            self._elements[env_id] = info.get("ui_elements")
        out = _merge_infos(infos)
        if finals is not None and any(f is not None for f in finals):
            final_obs = np.full(len(infos), None, dtype=object)
            final_info = np.full(len(infos), None, dtype=object)
            for k, final in enumerate(finals):
                if final is None:
                    continue
                pixels, instruction, tree, info = final
                obs: dict[str, Any] = {"instruction": instruction}
                size = self.config.screenshot_size
                if pixels is not None and size is not None:
                    obs["screenshot"] = np.frombuffer(bytes(pixels), dtype=np.uint8).reshape(size[1], size[0], 3)
                if tree is not None:
                    obs["ui_tree"] = tree
                final_obs[k], final_info[k] = obs, info
            mask = np.asarray([f is not None for f in finals])
            out["final_obs"], out["_final_obs"] = final_obs, mask
            out["final_info"], out["_final_info"] = final_info, mask
        return out


def env_seeds(envs: gym.vector.VectorEnv, seed: "int | Sequence[int] | None") -> list[int]:  # type: ignore[type-arg]
    """The seed of each env at a reset: `seed + i` for env i (drawn when None), or one per env;
    the vector env's own generator is seeded as Gymnasium's contract says."""
    if seed is None or isinstance(seed, (int, np.integer)):
        gym.vector.VectorEnv.reset(envs, seed=None if seed is None else int(seed))
        base = int(seed) if seed is not None else int(envs.np_random.integers(0, 2**31 - 1))
        return [base + i for i in range(envs.num_envs)]
    seeds = [int(s) for s in seed]
    if len(seeds) != envs.num_envs:
        raise ConfigError(f"reset got {len(seeds)} seeds for {envs.num_envs} envs")
    gym.vector.VectorEnv.reset(envs, seed=seeds[0])
    return seeds


def _merge_infos(infos: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-env info dicts as Gymnasium's vector info: one array per key (numbers and bools as
    numeric arrays, anything else as objects) with a `_key` mask of the envs that have it."""
    out: dict[str, Any] = {}
    keys = sorted({k for info in infos for k in info})
    n = len(infos)
    for key in keys:
        values = [info.get(key) for info in infos]
        mask = np.asarray([key in info for info in infos], dtype=np.bool_)
        present = [v for v, m in zip(values, mask) if m]
        if present and all(isinstance(v, bool) for v in present):
            array: np.ndarray = np.zeros(n, dtype=np.bool_)
        elif present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            array = np.zeros(n, dtype=np.int64)
        elif present and all(isinstance(v, float) for v in present):
            array = np.zeros(n, dtype=np.float64)
        else:
            array = np.full(n, None, dtype=object)
        for i, (value, has) in enumerate(zip(values, mask)):
            if has:
                array[i] = value
        out[key], out[f"_{key}"] = array, mask
    return out


def _unpickle_vector(args: dict[str, Any], envs: list[Optional[dict[str, Any]]], tasks: list[Optional[str]], elements: list[Any]) -> VectorEnv:
    venv = VectorEnv(**args)
    for i, state in enumerate(envs):
        if state is not None:
            venv._core.resume(i, state)
    venv._tasks, venv._elements = list(tasks), list(elements)
    return venv


def _cpu_count() -> int:
    import os

    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
