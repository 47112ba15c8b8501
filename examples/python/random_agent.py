"""A random agent over the whole suite through the native VectorEnv; prints steps per second.

    .venv/bin/python examples/python/random_agent.py --num-envs 8 --threads 2 --steps 200
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import phoneworld


def random_action(rng: np.random.Generator, width: int, height: int) -> dict[str, object]:
    kind = rng.choice(["tap", "tap", "tap", "swipe", "back"])
    x, y = int(rng.integers(0, width)), int(rng.integers(0, height))
    if kind == "tap":
        return {"type": "tap", "x": x, "y": y}
    if kind == "swipe":
        return {"type": "swipe", "x1": x, "y1": y, "x2": x, "y2": int(rng.integers(0, height))}
    return {"type": "key", "key": "back"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200, help="vector steps")
    parser.add_argument("--obs-size", type=int, nargs=2, default=None, metavar=("W", "H"))
    args = parser.parse_args()

    envs = phoneworld.VectorEnv(num_envs=args.num_envs, num_threads=args.threads, obs_size=args.obs_size, copy=False)
    rng = np.random.default_rng(0)
    obs, infos = envs.reset(seed=0)
    episodes = successes = 0
    start = time.perf_counter()
    for _ in range(args.steps):
        actions = [random_action(rng, 1080, 2400) for _ in range(args.num_envs)]
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        done = terminated | truncated
        episodes += int(done.sum())
        successes += int((rewards[done] > 0).sum())
    elapsed = time.perf_counter() - start
    envs.close()
    total = args.steps * args.num_envs
    print(f"{total} steps in {elapsed:.2f} s: {total / elapsed:.0f} steps/s with screenshots {obs['screenshot'].shape[1:]}")
    print(f"{episodes} episodes ended, {successes} succeeded (a random agent rarely does)")


if __name__ == "__main__":
    main()
