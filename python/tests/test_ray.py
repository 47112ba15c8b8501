"""PhoneWorld on a real Ray cluster: a head and a second node on this machine (Ray's own
multi-node test utility, one CPU each, no dashboard), shared by every test here and shut down
whatever happens. Results on the cluster are compared byte for byte with the same run in one
process, with a worker killed mid-run, with a node joining mid-run and across a Ctrl-C.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

import phoneworld  # noqa: E402
from phoneworld.ray import RayVectorEnv, RemoteEnv, env_creator, mixed_pool, phone_resource, run_eval, run_rollouts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL_SUITE = ["clock_add_alarm", "clock_world_city_time", "contacts_add_contact", "messages_send_new", "notes_check_items", "calendar_add_event"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        phone_host = c.add_node(num_cpus=1, resources={phone_resource("mock0"): 1})
        c.wait_for_nodes()
        c.phone_host_id = phone_host.node_id  # type: ignore[attr-defined]
        ray.init(address=c.address, log_to_driver=False)
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory: pytest.TempPathFactory, make_suite: Any) -> Path:
    """A suite of a few templates of the bundled one (`small`), for runs that write files."""
    return make_suite(tmp_path_factory.mktemp("suites"), "small", SMALL_SUITE)


def local_eval(cli: Path, *args: str) -> str:
    done = subprocess.run([str(cli), "eval", "--json", *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_cli_eval_on_the_cluster_prints_the_same_bytes_as_one_process(cluster: Cluster, cli: Path) -> None:
    env = {**os.environ, "PHONEWORLD_PYTHON": sys.executable}
    on_ray = subprocess.run(
        [str(cli), "eval", "--json", "--seeds", "1", "--ray", cluster.address], capture_output=True, text=True, env=env, timeout=300
    )
    assert on_ray.returncode == 0, on_ray.stderr[-2000:]
    assert on_ray.stdout.strip() == local_eval(cli, "--seeds", "1")


def test_cli_without_the_ray_extra_says_how_to_install_it(cli: Path, tmp_path: Path) -> None:
    bare = tmp_path / "python3"
    bare.write_text("#!/bin/sh\nexec /usr/bin/env python3 -S -c 'import phoneworld.ray' \"$@\"\n")
    bare.chmod(0o755)
    done = subprocess.run([str(cli), "eval", "--ray", "auto"], capture_output=True, text=True, env={**os.environ, "PHONEWORLD_PYTHON": str(bare)})
    assert done.returncode != 0
    assert "pip install 'phoneworld[ray]'" in done.stderr


def test_rollouts_on_the_cluster_write_the_same_files_as_one_process(cluster: Cluster, cli: Path, small_suite: Path, tmp_path: Path) -> None:
    options = ["--suite", "small", "--suite-dir", str(small_suite), "--seeds", "2", "--image-size", "108x240", "--detours", "0.3"]
    local = tmp_path / "local"
    subprocess.run([str(cli), "rollouts", "--out-dir", str(local), *options], check=True, capture_output=True)
    text = run_rollouts(
        out_dir=tmp_path / "ray", suite="small", suite_dirs=[str(small_suite)], seeds=2, image_size=(108, 240), detours=0.3, chunk_size=3, progress=False
    )
    assert json.loads(text) == json.loads((local / "manifest.json").read_text())
    ours, theirs = files_of(tmp_path / "ray"), files_of(local)
    assert sorted(ours) == sorted(theirs)
    assert all(ours[name] == theirs[name] for name in theirs), [n for n in theirs if ours[n] != theirs[n]][:5]


def test_eval_on_the_cluster_writes_the_same_run_folder_and_page_as_one_process(cluster: Cluster, cli: Path, small_suite: Path, tmp_path: Path) -> None:
    options = ["eval", "--json", "--suite", "small", "--suite-dir", str(small_suite), "--agent", "random"]
    for where, extra in (("local", []), ("ray", ["--ray", cluster.address])):
        run = [*options, "--out-dir", str(tmp_path / where), "--report", str(tmp_path / f"{where}.html"), *extra]
        done = subprocess.run([str(cli), *run], capture_output=True, text=True, env={**os.environ, "PHONEWORLD_PYTHON": sys.executable}, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    ours, theirs = files_of(tmp_path / "ray"), files_of(tmp_path / "local")
    assert sorted(ours) == sorted(theirs) and "report.json" in theirs
    assert all(ours[name] == theirs[name] for name in theirs), [n for n in theirs if ours[n] != theirs[n]][:5]
    assert (tmp_path / "ray.html").read_bytes() == (tmp_path / "local.html").read_bytes()


def _worker_pids(function: str) -> list[int]:
    done = subprocess.run(["pgrep", "-f", f"ray::{function}"], capture_output=True, text=True)
    return [int(p) for p in done.stdout.split()]


def test_a_worker_killed_mid_run_changes_nothing_in_the_report(cluster: Cluster, cli: Path) -> None:
    result: dict[str, Any] = {}
    run = threading.Thread(target=lambda: result.setdefault("text", run_eval(seeds=1, chunk_size=4, progress=False)))
    run.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and run.is_alive() and time.monotonic() < deadline:
        pids = _worker_pids("_eval_chunk")
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            killed = pids[0]
        time.sleep(0.02)
    run.join(timeout=300)
    assert killed is not None, "no worker was seen playing a chunk"
    assert result["text"] == local_eval(cli, "--seeds", "1")


@ray.remote(num_cpus=1)
class _Blocker:
    """Holds a node's one CPU, so queued chunks can only run on a node that joins."""

    def ready(self) -> bool:
        return True


def test_a_node_joining_mid_run_takes_the_waiting_chunks(cluster: Cluster, cli: Path, small_suite: Path) -> None:
    blockers = [_Blocker.remote() for _ in range(2)]  # type: ignore[attr-defined]
    ray.get([b.ready.remote() for b in blockers])
    stats: dict[str, Any] = {}
    result: dict[str, Any] = {}
    options = {"suite": "small", "suite_dirs": [str(small_suite)], "seeds": 2, "chunk_size": 2, "progress": False, "stats": stats}
    run = threading.Thread(target=lambda: result.setdefault("text", run_eval(**options)))
    run.start()
    time.sleep(1.0)
    assert run.is_alive(), "every CPU is held: nothing can have run yet"
    joined = cluster.add_node(num_cpus=1)
    try:
        run.join(timeout=300)
        assert set(stats["chunks_by_node"]) == {joined.node_id}
        assert result["text"] == local_eval(cli, "--suite", "small", "--suite-dir", str(small_suite), "--seeds", "2")
    finally:
        for b in blockers:
            ray.kill(b)
        cluster.remove_node(joined)


def test_ctrl_c_stops_the_run_and_the_same_command_resumes_it(cluster: Cluster, cli: Path, tmp_path: Path) -> None:
    checkpoint = tmp_path / "progress.jsonl"
    command = [sys.executable, "-m", "phoneworld.ray", "eval", "--address", cluster.address, "--json", "--seeds", "2", "--chunk-size", "2"]
    command += ["--checkpoint", str(checkpoint)]
    # As a terminal's foreground job: SIGINT not ignored, even when these tests run in the
    # background of a shell (which starts them with SIGINT ignored).
    first = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not checkpoint.exists() or len(checkpoint.read_text().splitlines()) < 4):
        time.sleep(0.05)
    first.send_signal(signal.SIGINT)
    out, err = first.communicate(timeout=60)
    assert first.returncode == 130, (err[-2000:], out[-300:])
    assert "run the same command again to resume" in err
    finished = len(checkpoint.read_text().splitlines()) - 1
    assert 3 <= finished < 199, finished
    second = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert second.stdout.strip() == local_eval(cli, "--seeds", "2")
    assert not checkpoint.exists(), "a finished run leaves no checkpoint"


def test_python_agents_evaluate_on_the_cluster_as_they_do_locally(cluster: Cluster) -> None:
    taps = iter(range(10**6))

    def agent(obs: dict[str, Any], info: dict[str, Any]) -> Any:
        return None if info.get("step", 0) >= 3 else {"type": "tap", "x": 540, "y": 400 + 100 * (info.get("step", 0) % 5)}

    assert next(taps) == 0  # the agent is a closure: it must pickle to reach the workers
    kwargs: dict[str, Any] = {"seeds": 2, "tasks": SMALL_SUITE[:3], "config": {"observe": ("ui_tree",)}}
    local = phoneworld.evaluate(agent, **kwargs)
    on_ray = phoneworld.evaluate(agent, backend="ray", chunk_size=2, **kwargs)
    assert on_ray == local and local["episodes"] == 6


def test_the_env_pool_steps_like_a_local_vector_env(cluster: Cluster) -> None:
    config = {"obs_size": (108, 240)}
    pool = RayVectorEnv(num_envs=4, envs_per_actor=2, task="clock_add_alarm", config=config)
    local = phoneworld.VectorEnv(num_envs=4, task="clock_add_alarm", config=config)
    try:
        assert pool.num_actors == 2
        obs, _ = pool.reset(seed=7)
        expected, _ = local.reset(seed=7)
        assert np.array_equal(obs["screenshot"], expected["screenshot"])
        actions = [{"type": "tap", "x": 300 + 100 * i, "y": 600} for i in range(4)]
        for _ in range(3):
            obs, rewards, terminated, truncated, infos = pool.step(actions)
            expected, *_ = local.step(actions)
        assert np.array_equal(obs["screenshot"], expected["screenshot"])
        assert [pool.state_hash(i) for i in range(4)] == [local.state_hash(i) for i in range(4)]
        pool.send(actions[2:], actor_ids=[1])
        obs, *_, infos = pool.recv()
        assert infos["env_id"].tolist() == [2, 3] and obs["screenshot"].shape == (2, 240, 108, 3)
    finally:
        pool.close()
        local.close()


def test_envs_are_made_on_workers_from_plain_config(cluster: Cluster) -> None:
    @ray.remote
    def made(config: dict[str, Any]) -> str:
        env = env_creator(config)
        obs, info = env.reset(seed=0)
        env.close()
        return str(obs["instruction"])

    plain = ray.get(made.remote({"task": "clock_add_alarm", "observe": ["ui_tree"]}))
    by_id = ray.get(made.remote({"id": "phoneworld/ClockAddAlarm-v0", "observe": ("ui_tree",)}))
    assert plain == by_id and "alarm" in plain.lower()


def test_a_phone_behind_adb_is_driven_from_its_host_and_the_mixed_pool_keeps_its_draw(cluster: Cluster, adb: Any) -> None:
    """A mock served over ADB stands in for the phone plugged into the host with its resource:
    its `AdbEnv` actor is placed there, and a mixed pool draws the same sources as locally."""
    config = {"observe": ("ui_tree",)}
    served = phoneworld.Phone.for_task("clock_add_alarm", seed=0).serve_adb()
    serial, port = adb.connect(served.address), adb.port

    def plugged_in() -> Any:
        return phoneworld.AdbEnv(serial, port=port, config=config)

    phone = RemoteEnv(plugged_in, actor_options={"resources": {phone_resource("mock0"): 1}})
    try:
        assert phone.node() == cluster.phone_host_id  # type: ignore[attr-defined]
        obs, _ = phone.reset(seed=0)
        assert "Clock" in obs["ui_tree"] or "Alarm" in obs["ui_tree"], obs["ui_tree"][:300]
        obs, *_ = phone.step({"type": "key", "key": "home"})
        assert obs["ui_tree"]
    finally:
        phone.close()

    def agent(obs: dict[str, Any], info: dict[str, Any]) -> Any:
        return {"type": "finish", "status": "success"}

    real = {"mock0": plugged_in}
    on_ray = mixed_pool("phoneworld/ClockAddAlarm-v0", real, ratio=0.5, seed=3, mock_kwargs=config)
    local = phoneworld.MixedPool(lambda: phoneworld.PhoneEnv(task="clock_add_alarm", config=config), real, ratio=0.5, seed=3)
    try:
        ours = [(r.source, r.success, r.steps, r.infra_failure) for r in on_ray.episodes(agent, 6, tasks=["clock_add_alarm"])]
        theirs = [(r.source, r.success, r.steps, r.infra_failure) for r in local.episodes(agent, 6, tasks=["clock_add_alarm"])]
        assert ours == theirs and {s for s, *_ in ours} == {"mock", "mock0"}, ours
        assert {k: v["episodes"] for k, v in on_ray.stats().items()} == {k: v["episodes"] for k, v in local.stats().items()}
    finally:
        on_ray.close()
        local.close()
        served.close()
