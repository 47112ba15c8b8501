"""Envs made on Ray workers from plain config: RLlib's `register_env` takes a creator of one
env from a dict, and the dict crosses the cluster as plain data.

`env_creator({"task": "clock_add_alarm", "obs_size": [108, 240]})` builds a `PhoneEnv` (keys
of `PhoneConfig` plus `task`); `{"id": "phoneworld/ClockAddAlarm-v0"}` goes through
`gym.make` (any registered id, `phoneworld/Adb-v0` included, with the other keys as its
arguments).
"""

from __future__ import annotations

from typing import Any, Mapping

import gymnasium as gym

from ..env import PhoneEnv

#: The name `register_rllib` registers by default.
RLLIB_NAME = "phoneworld"


def env_creator(config: Mapping[str, Any]) -> gym.Env:  # type: ignore[type-arg]
    """One env from plain config (RLlib passes an `EnvContext`, a dict with extra attributes)."""
    options = {k: v for k, v in dict(config).items() if not k.startswith("_")}
    env_id = options.pop("id", None)
    if env_id is not None:
        import phoneworld  # noqa: F401 (registers the ids in this process)

        return gym.make(env_id, **options)
    task = options.pop("task", None)
    return PhoneEnv(task=task, config=options)


def register_rllib(name: str = RLLIB_NAME) -> str:
    """Registers `env_creator` with Ray Tune's registry (what RLlib's `config.environment(name)`
    looks up on every worker); returns the name. Needs `ray[tune]` or `ray[rllib]`."""
    from ray.tune.registry import register_env

    register_env(name, env_creator)
    return name
