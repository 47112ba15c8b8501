"""The eval report page (`phoneworld eval --report`, `phoneworld report`), opened in headless
Chromium: it loads without console errors, its charts and frames are drawn, and the step viewer
moves through an episode."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.keys import Keys

import phoneworld
from browser import pixels_of

PASSED = (46, 139, 87)
FAILED = (205, 72, 60)
TAP_RING = (255, 59, 48)


@pytest.fixture(scope="module")
def run(cli: Path, make_suite: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A run where the tree-only agent passes the alarm task and fails the photo question."""
    root = tmp_path_factory.mktemp("report")
    suites = make_suite(root / "suites", "mix", ["clock_add_alarm", "gallery_pixel_colour_answer"])
    run_dir, page = root / "run", root / "page.html"
    command = [str(cli), "eval", "--json", "--suite", "mix", "--suite-dir", str(suites), "--agent", "tree-only", "--seeds", "2"]
    done = subprocess.run([*command, "--out-dir", str(run_dir), "--report", str(page)], capture_output=True, text=True, check=True)
    return {"dir": run_dir, "page": page, "report": json.loads(done.stdout), "stderr": done.stderr}


def test_eval_keeps_its_report_beside_the_trajectories_and_says_where_the_page_is(run: dict[str, Any]) -> None:
    report = run["report"]
    assert json.loads((run["dir"] / "report.json").read_text()) == report
    assert [(r["template"], r["seed"], r["success"]) for r in report["results"]] == [
        ("clock_add_alarm", 0, True), ("clock_add_alarm", 1, True),
        ("gallery_pixel_colour_answer", 0, False), ("gallery_pixel_colour_answer", 1, False),
    ]  # fmt: skip
    assert report["results"][0]["apps"] == ["com.phoneworld.clock"] and report["results"][0]["skills"]
    assert f"report: {run['page']} (4 episodes, 4 with frames" in run["stderr"]


def test_the_page_loads_without_console_errors_and_draws_its_charts_and_frames(browser: Any, run: dict[str, Any]) -> None:
    browser.open(run["page"])
    assert browser.console_errors() == []
    assert browser.text("#success-rate") == "50.0%"
    for chart in ("category", "difficulty", "app", "skill", "steps", "failures"):
        assert browser.js(f"return document.querySelectorAll('#chart-{chart} svg rect').length") > 1, chart
    # Drawn, not only present: the app chart shows Clock's bar in the passed colour, the steps
    # chart both colours.
    assert pixels_of(browser.screenshot("#chart-app"), PASSED) > 2000
    steps = browser.screenshot("#chart-steps")
    assert pixels_of(steps, PASSED) > 500 and pixels_of(steps, FAILED) > 500
    # The viewer opens on the first failure, its frame decoded and the tap drawn over it.
    assert browser.text("#v-title") == "gallery_pixel_colour_answer · seed 0"
    browser.wait(lambda: browser.js("return document.getElementById('v-frame').naturalWidth") == 240)
    stage = browser.screenshot(".stage")
    assert stage.std() > 20, "the frame is blank"
    assert pixels_of(stage, TAP_RING, tolerance=40) > 30, "no tap ring over the first frame"


def test_the_step_viewer_moves_through_an_episode(browser: Any, run: dict[str, Any]) -> None:
    browser.open(run["page"])
    browser.click('tr.episode[data-episode="1"]')
    assert browser.text("#v-title") == "clock_add_alarm · seed 1"
    assert browser.text("#v-verdict") == "passed in 9 steps"
    assert browser.text("#v-step") == "step 1 of 9"
    first_action, first_frame = browser.text("#v-action"), browser.js("return document.getElementById('v-frame').src")
    browser.click("#v-next")
    assert browser.text("#v-step") == "step 2 of 9"
    assert browser.text("#v-action") != first_action
    assert browser.js("return document.getElementById('v-frame').src") != first_frame
    browser.press(Keys.ARROW_RIGHT)
    assert browser.text("#v-step") == "step 3 of 9"
    assert browser.js("return location.hash") == "#episode=1&step=2"
    browser.js("const s = document.getElementById('v-slider'); s.value = 8; s.dispatchEvent(new Event('input'));")
    assert browser.text("#v-step") == "step 9 of 9"
    assert browser.js("return document.getElementById('v-next').disabled") is True
    # A failed episode names its failing check; an address with a step opens there.
    browser.open(f"{run['page'].resolve().as_uri()}#episode=3&step=1")
    assert browser.text("#v-step").startswith("step 2 of ")
    assert 'Answer("{t.color}")' in browser.text("#v-failing")
    assert browser.console_errors() == []


def test_python_writes_the_same_page_as_the_command_line(run: dict[str, Any], tmp_path: Path) -> None:
    summary = phoneworld.write_report(run["dir"], tmp_path / "page.html")
    assert summary["episodes"] == 4 and summary["recorded"] == 4
    assert (tmp_path / "page.html").read_bytes() == run["page"].read_bytes()


def test_a_folder_without_a_report_is_refused_with_what_to_run(cli: Path, tmp_path: Path) -> None:
    done = subprocess.run([str(cli), "report", str(tmp_path), "--out", str(tmp_path / "x.html")], capture_output=True, text=True)
    assert done.returncode != 0
    assert "report.json" in done.stderr and "phoneworld eval --out-dir" in done.stderr
    with pytest.raises(phoneworld.ConfigError, match="report.json"):
        phoneworld.write_report(tmp_path, tmp_path / "x.html")


def test_evaluate_writes_the_page_of_a_python_agents_run(tmp_path: Path) -> None:
    def agent(obs: dict[str, Any], info: dict[str, Any]) -> Any:
        return None if info.get("step", 0) >= 2 else {"type": "tap", "x": 540, "y": 1200}

    page = tmp_path / "page.html"
    report = phoneworld.evaluate(agent, seeds=1, tasks=["clock_add_alarm"], config={"observe": ("ui_tree",)}, report=page, agent_name="tapper")
    assert report["results"][0]["steps"] == 2 and not report["results"][0]["success"]
    text = page.read_text()
    assert "with tapper" in text and "clock_add_alarm" in text
    assert '"frames":[{"action":{"type":"tap"' in text, "the page has no step frames"
