"""Seeded interruptions through the env: the reset option and the constructor argument,
determinism by seed, the step budget, and bad options named."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

import phoneworld
from phoneworld import PhoneEnv

WAIT = {"type": "wait", "ms": 500}


def texts(info: dict[str, Any]) -> set[str]:
    return {e.get("text") or "" for e in info["ui_elements"]} | {e.get("content_description") or "" for e in info["ui_elements"]}


def test_the_reset_option_brings_a_dialog_after_the_step_asked_for(small: dict[str, Any]) -> None:
    env = PhoneEnv(task="clock_add_alarm", **small)
    _, info = env.reset(seed=3, options={"interruptions": "low_battery@2"})
    assert "15% remaining" not in texts(info)
    _, _, _, _, info = env.step(WAIT)
    assert "15% remaining" not in texts(info)
    _, _, _, _, info = env.step(WAIT)
    assert {"Battery low", "15% remaining", "Battery Saver", "Dismiss"} <= texts(info)
    _, _, _, _, info = env.step({"type": "key", "key": "back"})
    assert "Battery low" not in texts(info), "Back dismisses it"
    # Without the option the next episode is not interrupted.
    env.reset(seed=3)
    for _ in range(2):
        _, _, _, _, info = env.step(WAIT)
    assert "Battery low" not in texts(info)


def test_the_same_seed_interrupts_the_same_way(small: dict[str, Any]) -> None:
    def frames(env: PhoneEnv) -> list[np.ndarray]:
        obs, _ = env.reset(seed=11)
        shots = [obs["screenshot"]]
        for _ in range(8):
            obs, *_ = env.step(WAIT)
            shots.append(obs["screenshot"])
        return shots

    a = frames(PhoneEnv(task="clock_add_alarm", interruptions=5, **small))
    b = frames(PhoneEnv(task="clock_add_alarm", interruptions=5, **small))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    plain = frames(PhoneEnv(task="clock_add_alarm", **small))
    assert any(not np.array_equal(x, y) for x, y in zip(a, plain)), "five interruptions changed some frame"


def test_the_budget_grows_by_one_step_per_interruption_and_pickles_keep_the_setting(small: dict[str, Any]) -> None:
    plain = PhoneEnv(task="clock_add_alarm", **small)
    plain.reset(seed=1)
    env = PhoneEnv(task="clock_add_alarm", interruptions="permission@1,notification@2", **small)
    env.reset(seed=1)
    assert env.max_steps == plain.max_steps + 2
    copy = pickle.loads(pickle.dumps(env))
    assert copy.interruptions == "permission@1,notification@2"
    assert copy.state_hash() == env.state_hash()
    assert copy.max_steps == env.max_steps


def test_bad_options_are_named(small: dict[str, Any]) -> None:
    env = PhoneEnv(task="clock_add_alarm", **small)
    with pytest.raises(phoneworld.ConfigError, match="unknown kind `popup`"):
        env.reset(seed=0, options={"interruptions": "popup@2"})
    with pytest.raises(phoneworld.PhoneWorldError, match="interruptions must be"):
        env.reset(seed=0, options={"interruptions": 2.5})
