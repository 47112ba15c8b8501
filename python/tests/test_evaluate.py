"""`phoneworld.evaluate` and Python-driven episodes report exactly what `phoneworld eval` does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import phoneworld
from phoneworld import PhoneEnv
from phoneworld._core import eval_report, suite_tasks


def cli_eval(cli: Path, agent: str) -> dict[str, Any]:
    out = subprocess.run([str(cli), "eval", "--suite", "phoneworld-v0", "--agent", agent, "--seeds", "1", "--json"], capture_output=True, check=True)
    report: dict[str, Any] = json.loads(out.stdout)
    return report


def test_evaluate_matches_the_cli_for_the_noop_agent(cli: Path) -> None:
    python = phoneworld.evaluate(lambda obs: None, seeds=1, num_envs=2, config={"observe": (), "ui_elements": False}, agent_name="noop")
    assert python == cli_eval(cli, "noop")


def test_the_expert_through_python_matches_the_cli_oracle(cli: Path) -> None:
    results = []
    for task in [t["id"] for t in suite_tasks()]:
        env = PhoneEnv(task=task, observe=(), ui_elements=False)
        env.reset(seed=0)
        done = False
        while not done:
            action = env.expert_action()
            if action is None:
                break
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        results.append(env.result())
    python = eval_report(results, "oracle", 1)
    cli = cli_eval(cli, "oracle")
    assert python["success_rate"] == cli["success_rate"] == 1.0
    assert python == cli


def test_evaluate_records_trajectories(tmp_path: Path) -> None:
    steps = iter([{"type": "key", "key": "home"}, {"type": "finish", "status": "infeasible"}])
    report = phoneworld.evaluate(lambda obs, info: next(steps, None), seeds=[4], tasks=["clock_add_alarm"], config={"obs_size": (108, 240)}, out_dir=tmp_path)
    assert report["episodes"] == 1
    episode = json.loads((tmp_path / "clock_add_alarm-4" / "episode.json").read_text())
    assert episode["task"] == "clock_add_alarm" and episode["outcome"]["steps"] == 2
    lines = (tmp_path / "clock_add_alarm-4" / "steps.jsonl").read_text().splitlines()
    assert [json.loads(line)["action"]["type"] for line in lines] == ["key", "finish"]
