"""The Gymnasium env: registered ids, observations, rewards, invalid actions, forks."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import phoneworld
from phoneworld import PhoneEnv

MOCK_IDS = sorted(k for k in gym.registry if k.startswith("phoneworld/") and k != "phoneworld/Adb-v0")


def test_every_template_is_registered() -> None:
    templates = phoneworld.task_ids()
    assert len(templates) >= 180
    assert set(templates) | {"phoneworld/Suite-v0"} <= set(MOCK_IDS)


@pytest.mark.parametrize("env_id", MOCK_IDS)
def test_check_env_passes(env_id: str) -> None:
    env = gym.make(env_id, obs_size=(108, 240))
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_suite_env_takes_the_task_from_options_or_draws_it_by_seed(small: dict[str, Any]) -> None:
    env = gym.make("phoneworld/Suite-v0", **small)
    _, info = env.reset(seed=5, options={"task": "clock_add_alarm", "params": {"label": "Gym"}})
    assert info["task"] == "clock_add_alarm"
    obs, _ = env.reset(seed=5, options={"task": "clock_add_alarm", "params": {"label": "Gym"}})
    assert "Gym" in obs["instruction"]
    drawn = {env.reset(seed=s)[1]["task"] for s in range(12)}
    assert len(drawn) > 6, "seeds draw different tasks"
    assert env.reset(seed=7)[1]["task"] == env.reset(seed=7)[1]["task"]
    with pytest.raises(phoneworld.ConfigError, match="no such parameter"):
        env.reset(seed=1, options={"task": "clock_add_alarm", "params": {"colour": 1}})


def test_observation_is_configurable_and_nothing_is_rendered_without_screenshots() -> None:
    env = PhoneEnv(task="clock_add_alarm", observe=("ui_tree",))
    obs, info = env.reset(seed=0)
    assert set(obs) == {"instruction", "ui_tree"} and "screenshot" not in env.observation_space.spaces
    assert "TextView" in obs["ui_tree"] and "#status_bar" in obs["ui_tree"]
    env = PhoneEnv(task="clock_add_alarm", obs_size=(216, 480), observe=("screenshot",), ui_elements=False)
    obs, info = env.reset(seed=0)
    assert obs["screenshot"].shape == (480, 216, 3) and "ui_elements" not in info


def test_invalid_action_is_reported_and_costs_a_step(small: dict[str, Any]) -> None:
    env = PhoneEnv(task="clock_add_alarm", **small)
    env.reset(seed=0)
    for k, bad in enumerate(["", "click somewhere", {"type": "tap"}, 42, {"action_type": "fly"}], start=1):
        _, reward, terminated, truncated, info = env.step(bad)
        assert info["action_error"] and info["parsed_action"] == {} and info["parsed_actions"] == []
        assert info["step"] == k and reward == 0.0 and not terminated


def test_expert_reaches_success_with_reward_one_and_shaped_mode_pays_subgoals(small: dict[str, Any]) -> None:
    for mode in ("sparse", "shaped"):
        env = PhoneEnv(task="clock_add_alarm", reward=mode, **small)
        _, info = env.reset(seed=2)
        rewards, done = [], False
        while not done:
            action = env.expert_action() or {"type": "finish", "status": "success"}
            _, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        assert info["success"] is True and info["parsed_action"]["type"] == "finish"
        assert rewards[-1] >= 1.0
        if mode == "sparse":
            assert sum(rewards) == 1.0
        else:
            # the sub-goal "alarm editor open" paid +1 when reached and -1 when left
            assert 1.0 in rewards[:-1] and -1.0 in rewards[:-1]
            assert sum(rewards) == pytest.approx(1.0 + info["subgoal_progress"])


def test_step_budget_truncates(small: dict[str, Any]) -> None:
    env = PhoneEnv(task="clock_add_alarm", max_steps=3, **small)
    env.reset(seed=0)
    flags = [env.step({"type": "wait", "ms": 100})[3] for _ in range(3)]
    assert flags == [False, False, True]
    _, _, _, _, info = env.step({"type": "wait", "ms": 100})
    assert "over" in info["action_error"]


def test_forks_from_one_start_state_are_independent_and_identical(small: dict[str, Any]) -> None:
    env = PhoneEnv(task="clock_add_alarm", **small)
    env.reset(seed=4)
    env.step({"type": "tap", "x": 540, "y": 1200})
    group = [env.fork() for _ in range(3)]
    hashes = set()
    for fork in group:
        fork.step({"type": "key", "key": "back"})
        hashes.add(fork.state_hash())
    assert len(hashes) == 1
    diverged = env.fork()
    diverged.step({"type": "open_app", "app": "Settings"})
    assert diverged.state_hash() not in hashes
    start, _ = env.restart()
    again, _ = env.restart()
    assert np.array_equal(start["screenshot"], again["screenshot"])


def test_async_episode_api_runs_episodes_concurrently(small: dict[str, Any]) -> None:
    import asyncio

    async def episode(seed: int) -> str:
        env = PhoneEnv(task="clock_add_alarm", **small)
        await env.areset(seed=seed)
        for _ in range(3):
            await env.astep('{"type": "key", "key": "home"}')
        return env.state_hash()

    async def main() -> list[str]:
        return await asyncio.gather(*(episode(s) for s in (1, 1, 2)))

    first, same, other = asyncio.run(main())
    assert first == same != other
