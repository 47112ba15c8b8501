"""`make bench-ray`: PhoneWorld on a two-node Ray cluster on this machine (one CPU per node)
against the same work in one process, measured side by side in one run.

1. Suite eval (oracle, every template, one seed): one process vs the cluster; the ratio, and
   the overhead per episode (the cluster's CPU-seconds beyond the one process's, per episode).
2. The env pool: steps/s of `RayVectorEnv` vs a local `VectorEnv` with as many phones, with
   screenshots (540x1200) and without (UI tree only), and the bytes per env step that cross
   the wire.
"""

from __future__ import annotations

import os
import time
from typing import Any

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import phoneworld  # noqa: E402
from phoneworld import _core  # noqa: E402
from phoneworld.ray import RayVectorEnv, run_eval  # noqa: E402

NODES = 2
STEPS = 60
PHONES = 8


def timed(f: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = f()
    return value, time.perf_counter() - start


def best_of(repeats: int, f: Any) -> float:
    return min(timed(f)[1] for _ in range(repeats))


def eval_side_by_side() -> None:
    jobs = _core.run_jobs(1)
    _core.eval_episodes(jobs[:4])  # warm: apps and suite loaded
    run_eval(seeds=1, chunk_size=8, progress=False)  # warm: workers started, apps loaded there
    local = best_of(3, lambda: _core.eval_episodes(jobs))
    on_ray = best_of(3, lambda: run_eval(seeds=1, chunk_size=8, progress=False))
    n = len(jobs)
    overhead_ms = (on_ray * NODES - local) / n * 1000
    print(f"suite eval, {n} episodes: one process {local:.2f} s, {NODES}-node cluster {on_ray:.2f} s")
    print(f"  speed-up {local / on_ray:.2f}x on {NODES} one-CPU nodes; overhead {overhead_ms:.2f} ms per episode (CPU time beyond one process; best of 3)")


def pool_side_by_side(observe: tuple[str, ...]) -> None:
    config = {"obs_size": (540, 1200), "observe": observe}
    actions = [{"type": "tap", "x": 200 + 80 * (i % 8), "y": 700 + 150 * (i % 5)} for i in range(PHONES)]
    local = phoneworld.VectorEnv(num_envs=PHONES, config=config, num_threads=NODES)
    pool = RayVectorEnv(num_envs=PHONES, envs_per_actor=PHONES // NODES, config=config)
    rates = {}
    wire = 0.0
    for name, envs in (("local VectorEnv", local), ("RayVectorEnv", pool)):
        envs.reset(seed=0)
        envs.step(actions)
        last: dict[str, Any] = {}

        def run() -> None:
            for _ in range(STEPS):
                last["obs"], *_ = envs.step(actions)

        seconds = best_of(3, run)
        obs = last["obs"]
        rates[name] = STEPS * PHONES / seconds
        pixels = obs["screenshot"].nbytes if "screenshot" in obs else 0
        trees = sum(len(t.encode()) for t in obs.get("ui_tree", ()))
        wire = (pixels + trees) / PHONES
        envs.close()
    what = "screenshots 540x1200 + UI tree" if "screenshot" in observe else "UI tree only"
    ratio = rates["RayVectorEnv"] / rates["local VectorEnv"]
    print(
        f"env pool, {PHONES} phones, {what}: local {rates['local VectorEnv']:.0f} steps/s, "
        f"Ray {rates['RayVectorEnv']:.0f} steps/s ({ratio:.2f}x); {wire / 1024:.1f} KiB per env step on the wire"
    )


def main() -> None:
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        for _ in range(NODES - 1):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        eval_side_by_side()
        pool_side_by_side(("screenshot", "ui_tree"))
        pool_side_by_side(("ui_tree",))
    finally:
        ray.shutdown()
        cluster.shutdown()


if __name__ == "__main__":
    main()
