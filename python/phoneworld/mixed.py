"""`MixedPool`: episodes drawn from mock and real phones at a set ratio (mixed-RL recipes).

>>> import phoneworld
>>> pool = phoneworld.MixedPool(lambda: phoneworld.PhoneEnv(obs_size=(108, 240)), [], ratio=0.0, seed=1)
>>> home = lambda obs, info: {"type": "finish", "status": "success"}
>>> record = pool.run_episode(home, task="clock_add_alarm", seed=0)
>>> record.source, record.success, record.infra_failure
('mock', False, False)
>>> pool.stats()["mock"]["episodes"]
1
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

import gymnasium as gym

from ._core import ConfigError, DeviceError

EnvFactory = Callable[[], gym.Env]  # type: ignore[type-arg]
#: An agent maps (observation, info) to an action in any format the env accepts.
Agent = Callable[[dict[str, Any], dict[str, Any]], Any]


@dataclass
class EpisodeRecord:
    """One episode: where it ran and how it ended. An infrastructure failure (the device went
    offline, timed out, refused the key) is not an agent failure: `success` is None then."""

    source: str
    task: Optional[str]
    seed: int
    success: Optional[bool]
    steps: int
    seconds: float
    infra_failure: bool = False
    error: Optional[str] = None
    #: True when a real episode was drawn but every real device was backing off, so it ran on the mock.
    fallback: bool = False


@dataclass
class SourceStats:
    """Per-source counts. `episodes` and `successes` count only episodes that ran to the end;
    `infra_failures` the ones a device failure cut short."""

    episodes: int = 0
    successes: int = 0
    unverified: int = 0
    steps: int = 0
    step_seconds: float = 0.0
    infra_failures: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "episodes": self.episodes,
            "successes": self.successes,
            "success_rate": self.successes / self.episodes if self.episodes else None,
            "unverified": self.unverified,
            "steps": self.steps,
            "seconds_per_step": self.step_seconds / self.steps if self.steps else None,
            "infra_failures": self.infra_failures,
        }


@dataclass
class _Device:
    name: str
    factory: EnvFactory
    env: Optional[gym.Env] = None  # type: ignore[type-arg]
    failures: int = 0
    retry_at: float = 0.0
    history: list[float] = field(default_factory=list)


class MixedPool:
    """Draws each episode from the mock env or one of the real ones.

    - `mock_factory()` builds the mock env (a `PhoneEnv`); `real_factories` build the real ones
      (`AdbEnv`s), as a list (named `real0`, `real1`, ...) or a dict of names.
    - `ratio` is the share of episodes drawn for real devices (0..1). The draw is a seeded
      generator (`seed`), so the sequence of sources is the same on every run; real devices
      take turns in order.
    - A device that fails (any `DeviceError`: offline, unauthorized, timeout, a lost
      connection) ends its episode as an infrastructure failure, not an agent failure; its env
      is dropped and the device rests for `backoff * 2**(failures-1)` seconds (at most
      `max_backoff`) before the pool builds a fresh env for it. A success resets the count.
      While every real device rests, real draws run on the mock (`fallback=True`).
    - `stats()` gives per-source counts: episodes, successes, steps, seconds per step, infra
      failures (sources: "mock" and each real device's name).
    """

    def __init__(
        self,
        mock_factory: EnvFactory,
        real_factories: Union[Sequence[EnvFactory], Mapping[str, EnvFactory]],
        ratio: float = 0.5,
        seed: int = 0,
        backoff: float = 1.0,
        max_backoff: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0.0 <= ratio <= 1.0:
            raise ConfigError(f"ratio must be within [0, 1], not {ratio}")
        if backoff < 0 or max_backoff < backoff:
            raise ConfigError(f"backoff must be >= 0 and max_backoff >= backoff, not {backoff}, {max_backoff}")
        named = dict(real_factories) if isinstance(real_factories, Mapping) else {f"real{i}": f for i, f in enumerate(real_factories)}
        if "mock" in named:
            raise ConfigError("`mock` names the mock source; give the real devices other names")
        if ratio > 0 and not named:
            raise ConfigError("ratio > 0 needs at least one real factory")
        self.ratio = ratio
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._clock = clock
        self._draw = random.Random(seed)
        self._mock_factory = mock_factory
        self._mock: Optional[gym.Env] = None  # type: ignore[type-arg]
        self._devices = [_Device(name, factory) for name, factory in named.items()]
        self._turn = 0
        self._stats: dict[str, SourceStats] = {"mock": SourceStats(), **{d.name: SourceStats() for d in self._devices}}
        self._episode = 0

    # --- public API ----------------------------------------------------------------------

    def run_episode(self, agent: Agent, task: Optional[str] = None, seed: Optional[int] = None, max_steps: Optional[int] = None) -> EpisodeRecord:
        """Runs one episode with `agent` on the next drawn source. `seed` defaults to the
        episode's index; `max_steps` caps the steps (the env's own budget applies too)."""
        wants_real = self._draw.random() < self.ratio
        seed = self._episode if seed is None else seed
        self._episode += 1
        device = self._next_device() if wants_real else None
        if device is None:
            return self._run_mock(agent, task, seed, max_steps, fallback=wants_real)
        return self._run_real(device, agent, task, seed, max_steps)

    def episodes(self, agent: Agent, n: int, tasks: Optional[Sequence[Optional[str]]] = None, seed: int = 0) -> list[EpisodeRecord]:
        """`n` episodes (infrastructure failures included, marked); tasks cycle through
        `tasks` (None: the env's default), seeds count up from `seed`."""
        return list(self.iter_episodes(agent, n, tasks, seed))

    def iter_episodes(self, agent: Agent, n: int, tasks: Optional[Sequence[Optional[str]]] = None, seed: int = 0) -> Iterator[EpisodeRecord]:
        """`episodes`, one record at a time."""
        cycle = list(tasks) if tasks else [None]
        for i in range(n):
            yield self.run_episode(agent, task=cycle[i % len(cycle)], seed=seed + i)

    def stats(self) -> dict[str, dict[str, Any]]:
        """Per-source statistics (see `SourceStats`)."""
        return {name: s.as_dict() for name, s in self._stats.items()}

    def device_status(self) -> dict[str, dict[str, Any]]:
        """Each real device: consecutive failures and seconds until it is tried again."""
        now = self._clock()
        return {d.name: {"failures": d.failures, "retry_in": max(0.0, d.retry_at - now), "connected": d.env is not None} for d in self._devices}

    def close(self) -> None:
        """Closes every env. Idempotent."""
        for device in self._devices:
            self._drop(device)
        if self._mock is not None:
            self._mock.close()
            self._mock = None

    def __enter__(self) -> "MixedPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- internals -------------------------------------------------------------------------

    def _next_device(self) -> Optional[_Device]:
        now = self._clock()
        for k in range(len(self._devices)):
            device = self._devices[(self._turn + k) % len(self._devices)]
            if device.retry_at <= now:
                self._turn = (self._turn + k + 1) % len(self._devices)
                return device
        return None

    def _run_mock(self, agent: Agent, task: Optional[str], seed: int, max_steps: Optional[int], fallback: bool) -> EpisodeRecord:
        if self._mock is None:
            self._mock = self._mock_factory()
        record = _play(self._mock, "mock", agent, task, seed, max_steps)
        record.fallback = fallback
        self._count("mock", record)
        return record

    def _run_real(self, device: _Device, agent: Agent, task: Optional[str], seed: int, max_steps: Optional[int]) -> EpisodeRecord:
        start = self._clock()
        try:
            if device.env is None:
                device.env = device.factory()
            record = _play(device.env, device.name, agent, task, seed, max_steps)
        except DeviceError as err:
            record = EpisodeRecord(device.name, task, seed, None, 0, self._clock() - start, infra_failure=True, error=f"{type(err).__name__}: {err}")
            self._fail(device)
            self._stats[device.name].infra_failures += 1
            return record
        device.failures = 0
        self._count(device.name, record)
        return record

    def _fail(self, device: _Device) -> None:
        self._drop(device)
        device.failures += 1
        delay = min(self.max_backoff, self.backoff * 2 ** (device.failures - 1))
        device.retry_at = self._clock() + delay
        device.history.append(delay)

    def _drop(self, device: _Device) -> None:
        if device.env is not None:
            try:
                device.env.close()
            except Exception:  # noqa: BLE001 (a broken device may fail to close; it is dropped anyway)
                pass
            device.env = None

    def _count(self, source: str, record: EpisodeRecord) -> None:
        stats = self._stats[source]
        stats.episodes += 1
        stats.successes += int(record.success is True)
        stats.unverified += int(record.success is None)
        stats.steps += record.steps
        stats.step_seconds += record.seconds if record.steps else 0.0


def _play(env: gym.Env, source: str, agent: Agent, task: Optional[str], seed: int, max_steps: Optional[int]) -> EpisodeRecord:  # type: ignore[type-arg]
    options = {"task": task} if task is not None else None
    obs, info = env.reset(seed=seed, options=options)
    steps, seconds = 0, 0.0
    success: Optional[bool] = None
    while max_steps is None or steps < max_steps:
        action = agent(obs, info)
        start = time.perf_counter()
        obs, _reward, terminated, truncated, info = env.step(action)
        seconds += time.perf_counter() - start
        steps += 1
        if terminated or truncated:
            success = info.get("success")
            break
    return EpisodeRecord(source, info.get("task_id", task), seed, None if success is None else bool(success), steps, seconds)
