"""VectorEnv: batched stepping, the three autoreset modes, send/recv, make_vec."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from phoneworld import PhoneEnv, VectorEnv

FINISH = {"type": "finish", "status": "infeasible"}
HOME = {"type": "key", "key": "home"}


def make(mode: str, n: int = 3, **kw: Any) -> VectorEnv:
    return VectorEnv(num_envs=n, task="clock_add_alarm", num_threads=2, autoreset_mode=mode, obs_size=(108, 240), **kw)


def test_batched_observations_match_single_envs_with_seed_plus_i() -> None:
    venv = make("next_step", n=3)
    obs, infos = venv.reset(seed=10)
    assert obs["screenshot"].shape == (3, 240, 108, 3) and len(obs["instruction"]) == 3
    assert list(infos["seed"]) == [10, 11, 12] and infos["_seed"].all()
    obs, rewards, term, trunc, infos = venv.step([HOME, {"type": "tap", "x": 540, "y": 1200}, "garbage"])
    assert rewards.dtype == np.float64 and term.dtype == np.bool_
    assert infos["action_error"][2] and infos["action_error"][0] is None
    for i, action in enumerate([HOME, {"type": "tap", "x": 540, "y": 1200}, "garbage"]):
        single = PhoneEnv(task="clock_add_alarm", obs_size=(108, 240))
        single.reset(seed=10 + i)
        single_obs, *_ = single.step(action)
        assert single.state_hash() == venv.state_hash(i)
        assert np.array_equal(single_obs["screenshot"], obs["screenshot"][i])
    venv.close()


def test_one_thread_and_two_threads_give_identical_batches() -> None:
    results = []
    for threads in (1, 2):
        venv = VectorEnv(num_envs=4, num_threads=threads, obs_size=(108, 240))
        venv.reset(seed=3)
        obs, *_ = venv.step([HOME, {"type": "swipe", "x1": 540, "y1": 1800, "x2": 540, "y2": 600}, FINISH, HOME])
        results.append((obs["screenshot"].copy(), [venv.state_hash(i) for i in range(4)]))
        venv.close()
    assert np.array_equal(results[0][0], results[1][0]) and results[0][1] == results[1][1]


def test_next_step_autoreset_resets_on_the_following_step() -> None:
    venv = make("next_step", n=2)
    venv.reset(seed=0)
    _, rewards, term, _, infos = venv.step([FINISH, HOME])
    assert list(term) == [True, False] and infos["step"][0] == 1
    obs, rewards, term, trunc, infos = venv.step([HOME, HOME])
    # env 0 was reset instead of stepped: its action was ignored, reward 0, step 0, new seed
    assert infos["step"][0] == 0 and rewards[0] == 0.0 and not term[0] and not trunc[0]
    assert infos["seed"][0] == 2 and infos["step"][1] == 2
    venv.close()


def test_same_step_autoreset_returns_the_new_episode_and_the_final_observation() -> None:
    venv = make("same_step", n=2)
    venv.reset(seed=0)
    obs, _, term, _, infos = venv.step([FINISH, HOME])
    assert list(term) == [True, False]
    assert infos["step"][0] == 0 and infos["seed"][0] == 2, "already the next episode"
    assert list(infos["_final_obs"]) == [True, False]
    final_obs, final_info = infos["final_obs"][0], infos["final_info"][0]
    assert final_obs["screenshot"].shape == (240, 108, 3) and final_info["step"] == 1 and final_info["success"] is False
    venv.close()


def test_disabled_autoreset_waits_for_a_masked_reset() -> None:
    venv = make("disabled", n=2)
    venv.reset(seed=0)
    venv.step([FINISH, HOME])
    _, _, _, _, infos = venv.step([HOME, HOME])
    assert "over" in infos["action_error"][0] and infos["step"][1] == 2
    _, infos = venv.reset(seed=50, options={"reset_mask": np.array([True, False])})
    assert infos["step"][0] == 0 and infos["seed"][0] == 50 and infos["step"][1] == 2
    venv.close()


def test_send_recv_with_a_batch_smaller_than_num_envs() -> None:
    venv = make("next_step", n=4, batch_size=2)
    venv.reset(seed=0)
    venv.send([HOME] * 4)
    seen = []
    for _ in range(2):
        obs, rewards, term, trunc, infos = venv.recv()
        assert obs["screenshot"].shape[0] == 2 and len(infos["env_id"]) == 2
        seen += list(infos["env_id"])
    assert sorted(seen) == [0, 1, 2, 3]
    with pytest.raises(Exception, match="in flight"):
        venv.recv()
    venv.send([HOME], env_ids=[3])
    with pytest.raises(Exception, match="not received"):
        venv.step([HOME] * 4)
    venv.batch_size = 1
    _, _, _, _, infos = venv.recv()
    assert list(infos["env_id"]) == [3] and infos["step"][0] == 2
    venv.close()
    venv.close()


def test_make_vec_uses_the_native_vector_env() -> None:
    venv = gym.make_vec("phoneworld/ClockAddAlarm-v0", num_envs=2, vectorization_mode="vector_entry_point", obs_size=(108, 240))
    assert isinstance(venv.unwrapped, VectorEnv)
    obs, _ = venv.reset(seed=1)
    assert obs["screenshot"].shape == (2, 240, 108, 3)
    venv.close()
