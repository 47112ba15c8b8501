"""Everything pickles: an env unpickled mid-episode, even in another process, continues from the
same state."""

from __future__ import annotations

import pickle
import subprocess
import sys

from phoneworld import PhoneEnv, VectorEnv

CHILD = """
import pickle, sys
import phoneworld
env = pickle.loads(sys.stdin.buffer.read())
env.step({"type": "key", "key": "back"})
print(env.state_hash(), env.unwrapped._core.result()["steps"])
"""


def test_env_continues_in_a_subprocess_from_the_same_state() -> None:
    env = PhoneEnv(task="clock_add_alarm", obs_size=(108, 240))
    env.reset(seed=9)
    env.step({"type": "tap", "x": 540, "y": 1200})
    data = pickle.dumps(env)
    child = subprocess.run([sys.executable, "-c", CHILD], input=data, capture_output=True, check=True)
    env.step({"type": "key", "key": "back"})
    child_hash, child_steps = child.stdout.decode().split()
    assert child_hash == env.state_hash() and int(child_steps) == 2


def test_vector_env_pickles_mid_episode() -> None:
    venv = VectorEnv(num_envs=2, num_threads=1, obs_size=(108, 240))
    venv.reset(seed=4)
    venv.step([{"type": "key", "key": "home"}, {"type": "finish", "status": "success"}])
    copy = pickle.loads(pickle.dumps(venv))
    for v in (venv, copy):
        v.step([{"type": "key", "key": "back"}] * 2)
    assert [copy.state_hash(i) for i in range(2)] == [venv.state_hash(i) for i in range(2)]
    venv.close()
    copy.close()
