"""`RayVectorEnv`: phones on many machines stepped as one Gymnasium `VectorEnv`.

Each `VectorEnvActor` owns a `phoneworld.VectorEnv` (its phones stepped on its own threads);
the pool splits every batch of actions among the actors and joins what they return. Env i of
the pool is env `i % envs_per_actor` of actor `i // envs_per_actor`, seeded as env i of a
local `VectorEnv(num_envs)`: the same seeds give the same episodes, frames and state hashes.
Observations come back as numpy arrays through Ray's object store (no pickling of the
pixels); `observe=("ui_tree",)` keeps screenshots off the wire altogether.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import gymnasium as gym
import numpy as np
import ray
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .._core import ConfigError
from ..config import PhoneConfig
from ..spaces import action_space, observation_space
from ..vector import VectorEnv, _merge_infos, _mode, env_seeds
from .runs import connect


@ray.remote
class VectorEnvActor:
    """A `VectorEnv` living in a Ray worker; its methods are the batch calls of the pool."""

    def __init__(self, num_envs: int, task: Optional[str], config: dict[str, Any], num_threads: int, autoreset_mode: str, seed_stride: int) -> None:
        self.envs = VectorEnv(num_envs, task, config=config, num_threads=num_threads, autoreset_mode=autoreset_mode, seed_stride=seed_stride, copy=False)

    def reset(self, seeds: list[int], options: Optional[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        obs, infos = self.envs.reset(seed=seeds, options=options)
        return obs, _split_infos(infos, self.envs.num_envs)

    def step(self, actions: list[Any]) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        obs, rewards, terminated, truncated, infos = self.envs.step(actions)
        return obs, rewards, terminated, truncated, _split_infos(infos, self.envs.num_envs)

    def result(self, env_id: int) -> dict[str, Any]:
        return self.envs.result(env_id)

    def state_hash(self, env_id: int) -> str:
        return self.envs.state_hash(env_id)

    def node(self) -> str:
        return str(ray.get_runtime_context().get_node_id())

    def close(self) -> None:
        self.envs.close()


def _split_infos(infos: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """A vector info (arrays with `_key` masks) back as one dict per env, so the pool can merge
    the actors' envs as one batch."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, values in infos.items():
        if key.startswith("_"):
            continue
        mask = infos.get(f"_{key}")
        for i in range(n):
            if mask is None or mask[i]:
                value = values[i]
                out[i][key] = value.item() if isinstance(value, np.generic) else value
    return out


class RayVectorEnv(gym.vector.VectorEnv):  # type: ignore[type-arg]
    """`num_envs` phones in actors of `envs_per_actor` spread over the cluster (`address`, or
    the one this process is connected to). Gymnasium's `VectorEnv` API, plus EnvPool-style
    `send`/`recv` in actor-sized batches. `actor_options` go to each actor (`num_cpus`,
    `resources`, `scheduling_strategy`, ...).
    """

    def __init__(
        self,
        num_envs: int = 8,
        task: Optional[str] = None,
        config: "PhoneConfig | dict[str, Any] | None" = None,
        *,
        envs_per_actor: int = 4,
        threads_per_actor: Optional[int] = None,
        autoreset_mode: Union[str, AutoresetMode] = AutoresetMode.NEXT_STEP,
        address: Optional[str] = None,
        actor_options: Optional[dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        if num_envs < 1 or envs_per_actor < 1:
            raise ConfigError(f"num_envs and envs_per_actor must be at least 1, not {num_envs} and {envs_per_actor}")
        connect(address)
        self.config = PhoneConfig.from_kwargs(config, **kwargs)
        self.num_envs = int(num_envs)
        self.autoreset_mode = _mode(autoreset_mode)
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": []}
        self.render_mode = None
        self.single_observation_space = observation_space(self.config.screenshot_size, "ui_tree" in self.config.observe)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        sizes = [min(envs_per_actor, self.num_envs - start) for start in range(0, self.num_envs, envs_per_actor)]
        self._starts = [sum(sizes[:k]) for k in range(len(sizes))]
        options = {"num_cpus": 1, **(actor_options or {})}
        config_dict = {k: getattr(self.config, k) for k in self.config.__dataclass_fields__}
        self._actors = [
            VectorEnvActor.options(**options).remote(  # type: ignore[attr-defined]
                size, task, config_dict, threads_per_actor or size, self.autoreset_mode.value, self.num_envs
            )
            for size in sizes
        ]
        self._sizes = sizes
        self._sent: dict[Any, int] = {}
        self._closed = False

    # --- Gymnasium VectorEnv API ---------------------------------------------------------------

    def reset(self, *, seed: "int | Sequence[int] | None" = None, options: Optional[dict[str, Any]] = None) -> tuple[dict[str, Any], dict[str, Any]]:
        seeds = env_seeds(self, seed)
        refs = [
            actor.reset.remote(seeds[start : start + size], self._actor_options(options, start, size))
            for actor, start, size in zip(self._actors, self._starts, self._sizes)
        ]
        parts = ray.get(refs)
        return _join_obs([p[0] for p in parts]), _merge_infos([i for p in parts for i in p[1]])

    def step(self, actions: Any) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = list(actions)
        if len(actions) != self.num_envs:
            raise ConfigError(f"got {len(actions)} actions for {self.num_envs} envs")
        refs = [actor.step.remote(actions[start : start + size]) for actor, start, size in zip(self._actors, self._starts, self._sizes)]
        return _join_steps(ray.get(refs))

    def close_extras(self, **kwargs: Any) -> None:
        if self._closed:
            return
        self._closed = True
        for actor in self._actors:
            try:
                ray.get(actor.close.remote())
            finally:
                ray.kill(actor)

    # --- EnvPool-style asynchronous stepping --------------------------------------------------------

    def send(self, actions: Any, actor_ids: "Sequence[int] | None" = None) -> None:
        """Queues one step for the envs of each actor in `actor_ids` (all when None): `actions`
        holds one action per env of those actors, in env order. Returns at once."""
        ids = list(range(len(self._actors))) if actor_ids is None else [int(i) for i in actor_ids]
        actions = list(actions)
        wanted = sum(self._sizes[k] for k in ids)
        if len(actions) != wanted:
            raise ConfigError(f"got {len(actions)} actions for the {wanted} envs of actors {ids}")
        offset = 0
        for k in ids:
            if k in self._sent.values():
                raise ConfigError(f"actor {k} has a step in flight: recv() it first")
            self._sent[self._actors[k].step.remote(actions[offset : offset + self._sizes[k]])] = k
            offset += self._sizes[k]

    def recv(self, min_envs: int = 1) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The steps of the first actors to finish, at least `min_envs` envs (or all in flight);
        `info["env_id"]` says whose they are and `info["actor_id"]` which actor stepped them."""
        if not self._sent:
            raise ConfigError("nothing was sent")
        got: list[tuple[int, Any]] = []
        while self._sent and sum(self._sizes[k] for k, _ in got) < min_envs:
            ready, _ = ray.wait(list(self._sent), num_returns=1)
            for ref in ready:
                got.append((self._sent.pop(ref), ray.get(ref)))
        got.sort(key=lambda pair: pair[0])
        obs, rewards, terminated, truncated, info = _join_steps([part for _, part in got])
        info["env_id"] = np.concatenate([np.arange(self._starts[k], self._starts[k] + self._sizes[k]) for k, _ in got])
        info["actor_id"] = np.concatenate([np.full(self._sizes[k], k) for k, _ in got])
        return obs, rewards, terminated, truncated, info

    # --- per env --------------------------------------------------------------------------------

    def _locate(self, env_id: int) -> tuple[Any, int]:
        if not 0 <= env_id < self.num_envs:
            raise ConfigError(f"env id {env_id} is out of range (num_envs={self.num_envs})")
        k = max(i for i, start in enumerate(self._starts) if start <= env_id)
        return self._actors[k], env_id - self._starts[k]

    def result(self, env_id: int) -> dict[str, Any]:
        actor, i = self._locate(int(env_id))
        return ray.get(actor.result.remote(i))  # type: ignore[no-any-return]

    def state_hash(self, env_id: int) -> str:
        actor, i = self._locate(int(env_id))
        return ray.get(actor.state_hash.remote(i))  # type: ignore[no-any-return]

    def nodes(self) -> list[str]:
        """The Ray node each actor runs on."""
        return ray.get([actor.node.remote() for actor in self._actors])  # type: ignore[no-any-return]

    @property
    def num_actors(self) -> int:
        return len(self._actors)

    def _actor_options(self, options: Optional[dict[str, Any]], start: int, size: int) -> Optional[dict[str, Any]]:
        """Per-env reset options (lists of num_envs values) cut to one actor's envs."""
        if not options:
            return options
        cut: dict[str, Any] = {}
        for key, value in options.items():
            cut[key] = value[start : start + size] if isinstance(value, (list, tuple, np.ndarray)) and len(value) == self.num_envs else value
        return cut


def _join_obs(parts: list[dict[str, Any]]) -> dict[str, Any]:
    obs: dict[str, Any] = {"instruction": tuple(i for p in parts for i in p["instruction"])}
    if "screenshot" in parts[0]:
        obs["screenshot"] = np.concatenate([p["screenshot"] for p in parts])
    if "ui_tree" in parts[0]:
        obs["ui_tree"] = tuple(t for p in parts for t in p["ui_tree"])
    return obs


def _join_steps(parts: list[Any]) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    return (
        _join_obs([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        np.concatenate([p[3] for p in parts]),
        _merge_infos([i for p in parts for i in p[4]]),
    )
