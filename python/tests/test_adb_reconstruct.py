"""The loop with real phones: a phone driven through `AdbPhone` (a served mock standing in for a
real device) is recorded with `AdbRecorder`, reconstructed into a new mock app, and the rebuilt
app replays the recordings, with no hand edits on the way."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from phoneworld import AdbPhone, AdbRecorder, Phone, PhoneEnv, PrivateAdbServer

TASKS = ("clock_add_alarm", "clock_world_city_time")


def run_json(cli: Path, *args: str) -> Any:
    done = subprocess.run([str(cli), *args, "--json"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def record(adb: PrivateAdbServer, task: str, directory: Path) -> int:
    """Plays a task's reference solution on a served phone through ADB, recording it."""
    phone = Phone.for_task(task, seed=0)
    direct = PhoneEnv(task=task, obs_size=(108, 240))
    direct.reset(seed=0)
    server = phone.serve_adb()
    try:
        device = AdbPhone(adb.connect(server.address), port=adb.port)
        with AdbRecorder(device, directory, instruction=(phone.task() or {}).get("instruction")) as recorder:
            steps = 0
            while (action := direct.expert_action()) is not None:
                direct.step(action)
                recorder.step(action)
                steps += 1
        return steps
    finally:
        server.close()


def test_rollouts_on_a_device_become_a_mock_app_that_replays_them(adb: PrivateAdbServer, cli: Path, tmp_path: Path) -> None:
    trajectories = []
    for task in TASKS:
        directory = tmp_path / task
        assert record(adb, task, directory) > 2
        lines = (directory / "steps.jsonl").read_text().splitlines()
        assert json.loads(lines[0])["image"] == "step_0000.png" and (directory / "step_0000.xml").exists()
        trajectories.append(str(directory))

    app = tmp_path / "clock-rebuilt"
    summary = run_json(cli, "reconstruct", *trajectories, "--out", str(app))
    assert summary["app"] == "com.phoneworld.clock"
    fidelity = summary["fidelity"]
    # Two recordings only: a tap that stayed elsewhere and Enter submitting a form are not learnt.
    assert fidelity["transition_accuracy"] >= 0.8 and fidelity["transition_accuracy"] > fidelity["baseline"]["transition_accuracy"] + 0.3, fidelity
    # A recording with an instruction is a demonstration: the person's task, on the rebuilt app.
    instructions = {json.loads((Path(t) / "episode.json").read_text())["instruction"] for t in trajectories}
    demos = [t for t in summary["tasks"] if t["kind"] == "demonstration"]
    assert demos, summary["tasks_left_out"]
    for task in demos:
        assert any(instruction in Path(task["file"]).read_text() for instruction in instructions), task
    check = subprocess.run([str(cli), "check", str(app)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr

    replayed = run_json(cli, "replay", *trajectories, "--app", str(app))
    assert replayed["aggregate"]["judged"] >= 6
    assert replayed["aggregate"]["transition_accuracy"] == fidelity["transition_accuracy"], "replay agrees with the report"


def test_a_finished_recording_takes_no_more_steps(adb: PrivateAdbServer, tmp_path: Path) -> None:
    phone = Phone(seed=0)
    server = phone.serve_adb()
    try:
        device = AdbPhone(adb.connect(server.address), port=adb.port)
        recorder = AdbRecorder(device, tmp_path / "run")
        recorder.step({"type": "open_app", "app": "Clock"})
        recorder.close()
        episode = json.loads((tmp_path / "run" / "episode.json").read_text())
        assert episode["steps"] == 2 and episode["device"]["width"] == device.size[0]
        with pytest.raises(ValueError, match="finished"):
            recorder.step({"type": "key", "key": "home"})
        with pytest.raises(FileExistsError, match="already holds a trajectory"):
            AdbRecorder(device, tmp_path / "run")
    finally:
        server.close()
