"""Appearances in the Gymnasium env: the observation keeps `obs_size` whatever the resolution,
actions land in the episode's device pixels, the look is recorded, and bad names are refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import phoneworld
from phoneworld import PhoneEnv


@pytest.mark.parametrize("look, device", [("small_phone", (720, 1600)), ("large_phone", (1440, 3120))])
def test_obs_shape_is_fixed_by_obs_size(look: str, device: tuple[int, int]) -> None:
    env = PhoneEnv(task="clock_add_alarm", obs_size=(270, 600), appearance=look)
    obs, _ = env.reset(seed=0)
    assert env.device_size == device
    assert obs["screenshot"].shape == (600, 270, 3)
    assert env.observation_space["screenshot"].shape == (600, 270, 3)
    assert env.observation_space.contains(obs)


def test_reset_options_pick_the_look_per_episode() -> None:
    env = PhoneEnv(task="clock_add_alarm", obs_size=(270, 600))
    plain, _ = env.reset(seed=0)
    assert env.device_size == (1080, 2400) and env.appearance() is None
    dark, _ = env.reset(seed=0, options={"appearance": "dark"})
    assert env.appearance()["dark"] is True  # type: ignore[index]
    assert dark["screenshot"].mean() < plain["screenshot"].mean(), "the dark theme is darker"
    small, _ = env.reset(seed=0, options={"appearance": "small_phone"})
    assert env.device_size == (720, 1600) and small["screenshot"].shape == plain["screenshot"].shape


def test_random_looks_follow_the_seed() -> None:
    env = PhoneEnv(task="clock_add_alarm", obs_size=(135, 300), appearance="random")
    first, _ = env.reset(seed=9)
    look = env.appearance()
    again, _ = env.reset(seed=9)
    assert env.appearance() == look
    assert np.array_equal(first["screenshot"], again["screenshot"])


def test_normalized_actions_map_to_the_device_pixels() -> None:
    env = PhoneEnv(task="clock_add_alarm", obs_size=(270, 600), appearance="large_phone")
    env.reset(seed=0)
    # UI-TARS' 0-1000 frame: the centre of the screen is the centre of the 1440x3120 phone.
    _, _, _, _, info = env.step("Action: click(start_box='(500,500)')")
    x, y = info["parsed_action"]["x"], info["parsed_action"]["y"]
    assert (x, y) == (720, 1560), info["parsed_action"]


def test_the_oracle_solves_a_task_under_a_profile() -> None:
    env = PhoneEnv(task="clock_add_alarm", obs_size=(135, 300), appearance="dark_large")
    env.reset(seed=1)
    done = False
    while not done:
        action = env.expert_action()
        if action is None:
            break
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    assert env.result()["success"] is True


def test_episode_json_records_the_look(tmp_path: Path) -> None:
    env = PhoneEnv(task="clock_add_alarm", obs_size=(135, 300), appearance="random")
    env.reset(seed=3)
    env._core.start_recording(tmp_path, False)
    env.step({"type": "home"})
    env._core.finish_recording()
    record = json.loads((tmp_path / "episode.json").read_text())
    assert record["options"]["appearance"] == env.appearance()
    assert [record["device"]["width"], record["device"]["height"]] == list(env.device_size)


def test_unknown_appearances_are_config_errors() -> None:
    with pytest.raises(phoneworld.ConfigError, match=r"unknown appearance `neon` \(valid: default, dark"):
        PhoneEnv(task="clock_add_alarm", appearance="neon")
    env = PhoneEnv(task="clock_add_alarm", obs_size=(135, 300))
    with pytest.raises(phoneworld.PhoneWorldError, match="small_phone"):
        env.reset(seed=0, options={"appearance": "tiny"})


def test_pickled_envs_keep_their_look() -> None:
    import pickle

    env = PhoneEnv(task="clock_add_alarm", obs_size=(135, 300))
    env.reset(seed=2, options={"appearance": "small_phone"})
    env.step({"type": "home"})
    twin = pickle.loads(pickle.dumps(env))
    assert twin.device_size == (720, 1600)
    assert twin.appearance() == env.appearance()
    assert twin.state_hash() == env.state_hash()
