"""`MixedPool` with mock phones served over ADB standing in for real ones: the ratio, per-source
statistics, and devices that die, stall or refuse the key (infrastructure failures, retried
with backoff)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import pytest

import phoneworld
from phoneworld import MixedPool, Phone, PhoneEnv, PrivateAdbServer
from phoneworld.adb import AdbEnv, adb_disconnect

SMALL = (108, 240)


def mock() -> PhoneEnv:
    return PhoneEnv(obs_size=SMALL, ui_elements=False)


def real(adb: PrivateAdbServer, address: str, timeout: float = 5.0) -> Callable[[], AdbEnv]:
    def factory() -> AdbEnv:
        try:
            adb_disconnect(address, port=adb.port)  # forget a connection that died
        except phoneworld.DeviceError:
            pass
        return AdbEnv(address, port=adb.port, timeout=timeout, connect=True, obs_size=SMALL)

    return factory


def finish(obs: dict[str, Any], info: dict[str, Any]) -> Any:
    return {"type": "finish", "status": "success"}


def test_the_ratio_holds_over_many_episodes_and_the_draw_is_seeded(adb: PrivateAdbServer) -> None:
    servers = [Phone(seed=i).serve_adb() for i in range(2)]
    try:
        pool = MixedPool(mock, [real(adb, s.address) for s in servers], ratio=0.25, seed=7)
        records = pool.episodes(finish, 80)
        sources = [r.source for r in records]
        n_real = sum(s != "mock" for s in sources)
        assert 8 <= n_real <= 32, n_real  # 20 expected; binomial sd 3.9
        assert {"real0", "real1"} <= set(sources), "real devices take turns"
        assert not any(r.infra_failure or r.fallback for r in records)
        stats = pool.stats()
        assert stats["mock"]["episodes"] + stats["real0"]["episodes"] + stats["real1"]["episodes"] == 80
        assert stats["real0"]["episodes"] == sources.count("real0") and stats["real0"]["steps"] == sources.count("real0")
        assert stats["real0"]["seconds_per_step"] > 0 and stats["mock"]["seconds_per_step"] > 0
        assert stats["real0"]["unverified"] == stats["real0"]["episodes"], "no task, no checks: nothing to verify"
        pool.close()
        # The same seed draws the same sources, whatever the devices do.
        again = MixedPool(mock, {"real0": _unused, "real1": _unused}, ratio=0.25, seed=7)
        draws = [again._draw.random() < 0.25 for _ in range(80)]
        assert draws == [s != "mock" for s in sources]
    finally:
        for s in servers:
            s.close()


def _unused() -> AdbEnv:
    raise AssertionError("not built")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_server_killed_mid_episode_is_an_infra_failure_and_the_device_is_retried_with_backoff(adb: PrivateAdbServer) -> None:
    phone = Phone(seed=0)
    server = phone.serve_adb()
    port, address = server.port, server.address
    clock = Clock()
    pool = MixedPool(mock, {"pixel": real(adb, address)}, ratio=1.0, backoff=10.0, clock=clock)
    calls = {"n": 0}

    def killer(obs: dict[str, Any], info: dict[str, Any]) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            server.close()  # the phone goes away in the middle of the episode
        return {"type": "key", "key": "home"} if calls["n"] < 3 else {"type": "finish", "status": "success"}

    try:
        first = pool.run_episode(killer, seed=1)
        assert first.source == "pixel" and first.infra_failure and first.success is None
        assert first.error is not None and first.error.startswith("Device")
        assert pool.stats()["pixel"]["infra_failures"] == 1 and pool.stats()["pixel"]["episodes"] == 0
        assert pool.device_status()["pixel"]["retry_in"] == pytest.approx(10.0)
        # Backing off: the real draw runs on the mock.
        second = pool.run_episode(finish, seed=2)
        assert second.source == "mock" and second.fallback and not second.infra_failure
        # Still down after the backoff: the next wait doubles.
        clock.now += 10.0
        third = pool.run_episode(finish, seed=3)
        assert third.infra_failure and pool.device_status()["pixel"]["retry_in"] == pytest.approx(20.0)
        # Back up: the device is used again and its failure count resets.
        revived = phone.serve_adb(port=port)
        clock.now += 20.0
        fourth = pool.run_episode(finish, seed=4)
        assert fourth.source == "pixel" and not fourth.infra_failure and fourth.steps == 1
        assert pool.device_status()["pixel"]["failures"] == 0 and pool.stats()["pixel"]["episodes"] == 1
        revived.close()
    finally:
        server.close()
        pool.close()


def test_a_stalled_server_times_out(adb: PrivateAdbServer) -> None:
    server = Phone(seed=0).serve_adb()
    pool = MixedPool(mock, [real(adb, server.address, timeout=1.0)], ratio=1.0)

    def staller(obs: dict[str, Any], info: dict[str, Any]) -> Any:
        server.set_stalled(True)
        return {"type": "key", "key": "home"}

    try:
        start = time.monotonic()
        record = pool.run_episode(staller, seed=0)
        assert record.infra_failure and record.error is not None and record.error.startswith("DeviceTimeout")
        assert time.monotonic() - start < 6.0
    finally:
        server.set_stalled(False)
        server.close()
        pool.close()


def test_a_server_rejecting_the_key_is_unauthorized(adb: PrivateAdbServer, tmp_path: Path) -> None:
    from adb_shell.auth.keygen import keygen

    keygen(str(tmp_path / "other"))
    server = Phone(seed=0).serve_adb(auth_keys=[str(tmp_path / "other.pub")])
    pool = MixedPool(mock, [real(adb, server.address, timeout=1.0)], ratio=1.0)
    try:
        record = pool.run_episode(finish, seed=0)
        assert record.infra_failure and record.error is not None and record.error.startswith("DeviceUnauthorized")
        assert pool.stats()["real0"] == {**pool.stats()["real0"], "episodes": 0, "infra_failures": 1}
        with pytest.raises(phoneworld.DeviceUnauthorized):
            real(adb, server.address, timeout=1.0)()
    finally:
        server.close()
        pool.close()


def test_bad_pool_settings_are_config_errors() -> None:
    with pytest.raises(phoneworld.ConfigError, match="ratio"):
        MixedPool(mock, [], ratio=1.5)
    with pytest.raises(phoneworld.ConfigError, match="real factory"):
        MixedPool(mock, [], ratio=0.5)
    with pytest.raises(phoneworld.ConfigError, match="mock"):
        MixedPool(mock, {"mock": mock}, ratio=0.5)


def test_docstring_examples_of_the_adb_and_mixed_modules() -> None:
    import doctest

    for module in (phoneworld.adb, phoneworld.mixed):
        failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert failures == 0 and tried > 0, module.__name__
