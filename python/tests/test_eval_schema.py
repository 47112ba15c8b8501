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
