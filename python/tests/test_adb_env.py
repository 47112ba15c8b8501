"""`phoneworld/Adb-v0` over mock phones served over ADB: the device's own verifier when the mock
plays the task, UI-observable checks otherwise, and `PhoneEnv`'s observations and actions."""

from __future__ import annotations

from typing import Any, Iterator

import gymnasium as gym
import pytest

import phoneworld
from phoneworld import Phone, PhoneEnv, PrivateAdbServer
from phoneworld.adb import AdbEnv, evaluate_checks, task_checks

SMALL = (108, 240)


def serve(adb: PrivateAdbServer, phone: Phone) -> tuple[Any, str]:
    server = phone.serve_adb()
    return server, adb.connect(server.address)


def make(adb: PrivateAdbServer, serial: str, **kwargs: Any) -> AdbEnv:
    env = gym.make("phoneworld/Adb-v0", serial=serial, port=adb.port, obs_size=SMALL, disable_env_checker=True, **kwargs)
    return env.unwrapped  # type: ignore[no-any-return]


def test_adb_v0_is_registered_nondeterministic() -> None:
    spec = gym.spec("phoneworld/Adb-v0")
    assert spec.nondeterministic and spec.entry_point == "phoneworld.adb:AdbEnv"


def test_a_served_mock_playing_the_task_is_judged_by_its_own_verifier(adb: PrivateAdbServer) -> None:
    task, seed = "clock_add_alarm", 3
    phone = Phone.for_task(task, seed=seed)
    direct = PhoneEnv(task=task, obs_size=SMALL)
    direct.reset(seed=seed)
    assert direct.state_hash() == phone.state_hash(), "for_task builds the env's start state"
    server, serial = serve(adb, phone)
    try:
        env = make(adb, serial)
        obs, info = env.reset(options={"task": task})
        assert obs["instruction"] == phone.task()["instruction"] == task_checks(task, seed)["instruction"]  # type: ignore[index]
        assert info["judged_by"] == "device" and obs["screenshot"].shape == (240, 108, 3)
        assert obs["ui_tree"].startswith("<?xml")
        steps = 0
        while (action := direct.expert_action()) is not None:
            direct.step(action)
            _, reward, terminated, truncated, info = env.step(action)
            assert info["action_error"] is None and not terminated and not truncated, info
            steps += 1
        assert steps > 2
        finish = {"type": "finish", "status": "success"}
        direct.step(finish)
        _, reward, terminated, truncated, info = env.step(finish)
        assert terminated and reward == 1.0 and info["success"] is True
        verdict = env.verdict()
        assert verdict is not None and verdict["success"] and verdict["finished"] == "success"
        # The same app data as the direct run. (The session's step count and clock differ:
        # `type_text` with clear is two device commands over ADB, a clear and the typing.)
        assert phone.state()["apps"] == Phone.restore(direct.snapshot()).state()["apps"]
        assert phone.verdict()["success"] is True  # type: ignore[index]
    finally:
        server.close()


def test_ui_observable_tasks_are_judged_on_any_device(adb: PrivateAdbServer) -> None:
    task, seed = "contacts_phone_lookup", 1
    checks = task_checks(task, seed)
    assert checks["ui_observable"] and {c["kind"] for c in checks["success"]} <= {"answer", "finished", "all", "any", "not", "screen"}
    expected = next(c["text"] for c in _flat(checks["success"]) if c["kind"] == "answer")
    server, serial = serve(adb, Phone(seed=0))  # no task on the device: a stand-in for a real phone
    try:
        env = make(adb, serial)
        for answer, success in ((expected, True), ("nobody", False)):
            obs, info = env.reset(seed=seed, options={"task": task})
            assert info["judged_by"] == "ui" and info["foreground_app"][0] == "com.phoneworld.launcher"
            env.step({"type": "open_app", "app": "Contacts"})
            env.step(f'{{"type": "answer", "text": "{answer}"}}')
            _, reward, terminated, _, info = env.step({"type": "finish", "status": "success"})
            assert terminated and info["success"] is success and reward == float(success)
    finally:
        server.close()


def test_data_checks_are_unverifiable_on_a_device_unless_host_checks_are_given(adb: PrivateAdbServer) -> None:
    server, serial = serve(adb, Phone(seed=0))
    try:
        env = make(adb, serial, max_steps=2)
        env.reset(seed=0, options={"task": "clock_add_alarm"})
        env.step({"type": "open_app", "app": "Clock"})
        _, reward, terminated, truncated, info = env.step({"type": "key", "key": "back"})
        assert truncated and not terminated and info["success"] is None and reward == 0.0
        env.reset(options={"instruction": "Open the clock", "checks": [{"kind": "app", "app": "com.phoneworld.clock"}, {"kind": "text_visible", "text": "Alarm"}]})
        _, _, _, _, info = env.step({"type": "open_app", "app": "Clock"})
        _, reward, terminated, _, info = env.step({"type": "finish", "status": "success"})
        assert terminated and info["success"] is True and reward == 1.0
        bad = env.step  # an unparseable action is an observation, not an exception
        env.reset(options={"instruction": "x"})
        _, _, _, _, info = bad("tap somewhere nice")
        assert info["action_error"] and info["parsed_actions"] == []
        with pytest.raises(phoneworld.ConfigError, match=r"checks\[0\]"):
            env.reset(options={"checks": [{"kind": "exists"}]})
    finally:
        server.close()


def test_device_failures_surface_as_device_errors(adb: PrivateAdbServer) -> None:
    server, serial = serve(adb, Phone(seed=0))
    env = make(adb, serial, timeout=1.0)
    env.reset(options={"instruction": "x"})
    server.close()
    with pytest.raises(phoneworld.DeviceError):
        env.step({"type": "key", "key": "home"})


def test_evaluate_checks_composes_and_refuses_to_guess() -> None:
    elements = [{"text": "Wi-Fi", "content_description": "", "resource_name": "", "is_checked": True}]
    ok = lambda checks: evaluate_checks(checks, answer="$1,299.00", finished="success", foreground=("com.x", "Main"), ui_elements=elements)  # noqa: E731
    assert ok([{"kind": "answer", "text": "1299"}, {"kind": "checked", "text": "wi-fi"}, {"kind": "app", "app": "com.x"}]) is True
    assert ok([{"kind": "not", "check": {"kind": "finished", "status": "infeasible"}}]) is True
    assert ok([{"kind": "any", "checks": [{"kind": "text_visible", "text": "Bluetooth"}, {"kind": "screen", "app": "com.x", "screen": None}]}]) is True
    assert ok([{"kind": "screen", "app": "com.x", "screen": "settings"}]) is None
    assert ok([{"kind": "exists", "app": "com.x", "path": "a"}, {"kind": "answer", "text": "1299"}]) is None


def _flat(checks: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for c in checks:
        yield c
        yield from _flat(c.get("checks", []))
        if "check" in c:
            yield from _flat([c["check"]])
