"""Envs in Ray actors, placed where they must run: a real phone is plugged into one host, so
its `AdbEnv` actor asks for that host's custom resource (`phone_resource(serial)`, given to
the node with `ray start --resources '{"phone:SERIAL": 1}'`); mock phones go anywhere.
`mixed_pool` builds a `MixedPool` of such envs: the same seeded draw of sources and the same
per-source statistics as locally, with the episodes played on the cluster.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

import gymnasium as gym
import ray

from .._core import DeviceError
from ..mixed import MixedPool
from .runs import connect


def phone_resource(serial: str) -> str:
    """The custom Ray resource of the host a real phone is plugged into."""
    return f"phone:{serial}"


@ray.remote
class EnvActor:
    """One Gymnasium env built on a worker by `factory` (a pickled callable, or an id for
    `gym.make` with keyword arguments)."""

    def __init__(self, factory: "Callable[[], gym.Env[Any, Any]] | str", kwargs: dict[str, Any]) -> None:
        if isinstance(factory, str):
            import phoneworld  # noqa: F401 (registers the ids on this worker)

            self.env = gym.make(factory, **kwargs)
        else:
            self.env = factory()

    def reset(self, seed: Optional[int], options: Optional[dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
        return self.env.reset(seed=seed, options=options)  # type: ignore[no-any-return]

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.step(action)  # type: ignore[return-value]

    def call(self, name: str, *args: Any) -> Any:
        return getattr(self.env.unwrapped, name)(*args)

    def attr(self, name: str) -> Any:
        return getattr(self.env, name)

    def node(self) -> str:
        return str(ray.get_runtime_context().get_node_id())

    def close(self) -> None:
        self.env.close()


class RemoteEnv(gym.Env):  # type: ignore[type-arg]
    """A Gymnasium env whose phone lives in a Ray actor (placed by `actor_options`, e.g.
    `{"resources": {phone_resource("R5CT...") : 1}}`). A device failure on the worker comes
    back as the same `DeviceError`, so `MixedPool` backs off from it as from a local one."""

    def __init__(
        self,
        factory: "Callable[[], gym.Env[Any, Any]] | str",
        *,
        actor_options: Optional[dict[str, Any]] = None,
        address: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        connect(address)
        options = {"num_cpus": 1, **(actor_options or {})}
        self._actor = EnvActor.options(**options).remote(factory, kwargs)  # type: ignore[attr-defined]
        # Built first, so a failure to build the env shows here rather than at the first step.
        self.observation_space = self._get(self._actor.attr.remote("observation_space"))
        self.action_space = self._get(self._actor.attr.remote("action_space"))

    @staticmethod
    def _get(ref: Any) -> Any:
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as err:
            cause = err.cause if isinstance(getattr(err, "cause", None), Exception) else None
            if isinstance(cause, DeviceError):
                raise cause from None
            raise

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> tuple[Any, dict[str, Any]]:
        return self._get(self._actor.reset.remote(seed, options))  # type: ignore[no-any-return]

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self._get(self._actor.step.remote(action))  # type: ignore[no-any-return]

    def result(self) -> dict[str, Any]:
        return self._get(self._actor.call.remote("result"))  # type: ignore[no-any-return]

    def node(self) -> str:
        """The Ray node the env lives on."""
        return self._get(self._actor.node.remote())  # type: ignore[no-any-return]

    def close(self) -> None:
        try:
            ray.get(self._actor.close.remote())
        except ray.exceptions.RayError:
            pass  # a dead actor has nothing left to close
        ray.kill(self._actor)


def mixed_pool(
    mock: "Callable[[], gym.Env[Any, Any]] | str",
    real: Mapping[str, "Callable[[], gym.Env[Any, Any]]"],
    *,
    ratio: float = 0.5,
    seed: int = 0,
    mock_kwargs: Optional[dict[str, Any]] = None,
    address: Optional[str] = None,
    **pool_kwargs: Any,
) -> MixedPool:
    """A `MixedPool` whose envs are `RemoteEnv`s: the mock anywhere on the cluster, each real
    device (name -> factory building its `AdbEnv`) on the host holding `phone_resource(name)`."""
    connect(address)
    mock_factory = lambda: RemoteEnv(mock, **(mock_kwargs or {}))  # noqa: E731

    def on_host(name: str, factory: "Callable[[], gym.Env[Any, Any]]") -> "Callable[[], gym.Env[Any, Any]]":
        return lambda: RemoteEnv(factory, actor_options={"resources": {phone_resource(name): 1}})

    return MixedPool(mock_factory, {name: on_host(name, f) for name, f in real.items()}, ratio=ratio, seed=seed, **pool_kwargs)
