"""Every producer of the eval report (the command line, `phoneworld.evaluate`) gives an object
the documented schema (`docs/eval-report.schema.json`) accepts, and the schema rejects what a
report must not be."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import phoneworld

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "eval-report.schema.json").read_text())


@pytest.mark.parametrize("options", [["--agent", "oracle"], ["--agent", "noop", "--appearance", "default,dark"]])
def test_the_command_lines_report_follows_the_schema(cli: Path, two_tasks: Path, options: list[str]) -> None:
    base = [str(cli), "eval", "--json", "--suite", "two", "--suite-dir", str(two_tasks), "--seeds", "2"]
    report = json.loads(subprocess.run([*base, *options], capture_output=True, text=True, check=True).stdout)
    jsonschema.validate(report, SCHEMA)
    assert ("by_appearance" in report) == ("--appearance" in options)


def test_a_python_agents_report_follows_the_schema() -> None:
    def agent(obs: dict[str, Any]) -> Any:
        return None

    report = phoneworld.evaluate(agent, seeds=1, tasks=["clock_add_alarm"], config={"observe": ()})
    jsonschema.validate(report, SCHEMA)
    assert report["failures"][0]["template"] == "clock_add_alarm"


def test_the_schema_rejects_a_report_with_a_rate_out_of_range_or_a_field_it_does_not_know(cli: Path, two_tasks: Path) -> None:
    base = [str(cli), "eval", "--json", "--suite", "two", "--suite-dir", str(two_tasks), "--seeds", "1"]
    report = json.loads(subprocess.run(base, capture_output=True, text=True, check=True).stdout)
    for broken in ({**report, "success_rate": 1.5}, {**report, "seconds": 3.2}, {k: v for k, v in report.items() if k != "failures"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, SCHEMA)


def test_the_http_servers_report_of_scored_tasks_follows_the_schema() -> None:
    import requests

    with phoneworld.serve_http(width=540, height=1200) as server:
        url = server.url
        names = requests.get(f"{url}/suite/task_list", params={"max_index": 2}).json()["task_list"]
        solved, untouched = names
        # One phone: each initialize builds the task's phone, so the tasks are played in turn.
        assert requests.post(f"{url}/task/initialize", params={"task_type": solved, "task_idx": 0}).status_code == 200
        actions = 0
        while (action := requests.post(f"{url}/task/expert_action", params={"task_type": solved, "task_idx": 0}).json()["action"]) is not None:
            assert requests.post(f"{url}/execute_action", json=action).status_code == 200
            actions += 1
        assert requests.get(f"{url}/task/score", params={"task_type": solved, "task_idx": 0}).json() == {"score": 1.0}
        assert requests.post(f"{url}/task/initialize", params={"task_type": untouched, "task_idx": 0}).status_code == 200
        assert requests.get(f"{url}/task/score", params={"task_type": untouched, "task_idx": 0}).json() == {"score": 0.0}
        report = requests.get(f"{url}/eval_report").json()
    jsonschema.validate(report, SCHEMA)
    assert (report["agent"], report["episodes"], report["success_rate"]) == ("http", 2, 0.5)
    # In task order (the names the server lists are the templates' ids).
    by_task = {r["template"]: r for r in report["results"]}
    assert [r["template"] for r in report["results"]] == sorted(names)
    assert by_task[solved]["success"] and by_task[solved]["steps"] == actions
    assert not by_task[untouched]["success"] and by_task[untouched]["failure"]["reason"]
