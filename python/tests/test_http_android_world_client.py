"""AndroidWorld's own example client, `scripts/run_suite_on_docker.py` (vendored unmodified under
fixtures/android_world with the `JSONAction` it imports), run as a subprocess against
`phoneworld.serve_http`: only its server address is changed. It resets, takes a screenshot, clicks,
lists the suite, reinitializes it with its defaults, and for every task and both instances reads the
template and goal, initializes, scores, tears down and resets, then closes the environment."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import requests

import phoneworld
from phoneworld._core import suite_tasks

FIXTURES = Path(__file__).parent / "fixtures" / "android_world"
SCRIPT = FIXTURES / "scripts" / "run_suite_on_docker.py"
UPSTREAM_ADDRESS = "http://localhost:5000"
TIMEOUT_S = 180


def test_androidworlds_example_client_runs_the_whole_suite(tmp_path: Path) -> None:
    source = SCRIPT.read_text()
    assert source.count(UPSTREAM_ADDRESS) == 1, "the vendored script names its server once"
    templates = {t["id"]: t["instruction"] for t in suite_tasks()}
    with phoneworld.serve_http() as server:
        script = tmp_path / "run_suite_on_docker.py"
        script.write_text(source.replace(UPSTREAM_ADDRESS, server.url))
        env = {**os.environ, "PYTHONPATH": str(FIXTURES)}
        start = time.monotonic()
        run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        seconds = time.monotonic() - start
        assert run.returncode == 0, f"exit {run.returncode} after {seconds:.1f} s\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
        # The client closed the environment at the end.
        closed = requests.get(server.url + "/health", timeout=30)
        assert (closed.status_code, closed.json()) == (500, {"detail": "Environment not initialized"})
        assert server.log() == [], f"the server noted problems: {server.log()[-5:]}"
    lines = run.stdout.splitlines()
    reset = "reset response: status='success' message='Environment reset with go_home=True.'"
    assert lines[0] == reset, lines[:3]
    assert lines[1] == "Screen dimensions: (2400, 1080, 3)", lines[:3]
    assert lines[2] == 'Executing action: {"action_type":"click","x":100,"y":200}'
    assert lines[3] == "execute_action response: status='success' message=\"Action JSONAction(action_type='click', x=100, y=200) executed.\""
    assert ast.literal_eval(lines[4]) == list(templates), "the task list is the suite's"
    assert lines[5] == "reinitialize_suite response: status='success' message='Task suite re-initialized with n_task_combinations=2, seed=42.'"
    assert "Error initializing" not in run.stdout and "not healthy" not in run.stdout, run.stdout[-2000:]
    assert lines.count("num_tasks: 2") == len(templates)
    assert [line.removeprefix("task_template: ") for line in lines if line.startswith("task_template: ")] == [
        templates[name] for name in templates for _ in range(2)
    ]
    scores = [line for line in lines if line.startswith("task_score: ")]
    assert scores == ["task_score: 0.0"] * (2 * len(templates)), "every task, both instances, scored 0.0 with no agent"
    initialized = re.findall(r"initialize_task response: status='success' message='Task (\S+) (\d) initialized.'", run.stdout)
    assert initialized == [(name, str(i)) for name in templates for i in range(2)]
    assert lines.count(reset) == 1 + 2 * len(templates)
    assert len([line for line in lines if line.startswith("tear_down_task response: status='success'")]) == 2 * len(templates)
    print(f"\nthe example client ran {2 * len(templates)} task instances in {seconds:.1f} s")
