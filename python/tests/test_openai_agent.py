"""examples/python/openai_agent.py end to end: serve-http phones, a scripted chat-completions server
(fake_model_server.py) that acts out the reference solution in changing model formats, and the
harness run as its command line."""

from __future__ import annotations

import doctest
import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Tuple

import pytest
import requests

import phoneworld

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "examples" / "python" / "openai_agent.py"

# Taps, typing (with and without Enter), scrolls, long presses, back, a wait, answers, infeasible
# tasks and a cross-app task: every JSON action type the harness sends.
TASKS = [
    "settings_font_size",
    "phone_call_time",
    "clock_infeasible_city",
    "settings_forget_network",
    "browser_bookmark_page",
    "chat_send_message",
    "chat_like_moment",
    "contacts_phone_lookup",
    "notes_check_items",
    "messages_delete_conversation",
    "food_restaurant_address",
    "calendar_rsvp",
    "mini_coffee_infeasible_item",
    "clock_vacation_mode",
    "phone_call_contact",
    "cross_email_share_notes",
    "cross_gallery_pixel_save_note",
    "email_restore_trash",
    "settings_wifi_off",
    "weather_infeasible_radar",
]


def _load(name: str, path: Path) -> ModuleType:
    # The tests run with --import-mode=importlib: neither file is importable by name.
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


agent = _load("openai_agent", HARNESS)
fake_model_server = _load("fake_model_server", Path(__file__).with_name("fake_model_server.py"))
FakeModel = fake_model_server.FakeModel
render_reply = fake_model_server.render_reply


def run(server: Any, fake: Any, out: Path, *extra: str) -> Tuple["subprocess.CompletedProcess[str]", List[Dict[str, Any]]]:
    cmd = [sys.executable, str(HARNESS), "--server", server.url, "--model-url", fake.url, "--model", "fake", "--episode-header", "--out", str(out), *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    return done, lines


def test_twenty_tasks_on_two_devices_all_solved(tmp_path: Path) -> None:
    with phoneworld.serve_http(devices=2) as server, FakeModel() as fake:
        done, lines = run(server, fake, tmp_path / "results.jsonl", "--devices", "2", "--tasks", ",".join(TASKS), "--max-steps", "40")
        log = server.log()
    assert fake.errors == [] and log == []
    assert len(lines) == 20
    assert sorted(line["task"] for line in lines) == sorted(TASKS)
    for line in lines:
        assert line["score"] == 1.0, line
        assert line["errors"] == [], line
        assert line["goal"] and line["steps"] == len(line["actions"]) > 0
        assert set(line) >= {"task", "idx", "goal", "score", "steps", "actions", "errors"}
    # Both devices played, and the replies came in every format the fake writes.
    assert {line["device"].rsplit("/", 1)[1] for line in lines} == {"emu0", "emu1"}
    replies = [a["reply"] for line in lines for a in line["actions"]]
    assert any(r.startswith("Thought:") for r in replies)  # UI-TARS
    assert any('"mobile_use"' in r for r in replies)  # Qwen2.5-VL
    assert any("<tool_call>" in r and '"mobile_use"' not in r for r in replies)  # PhoneBuddy
    assert any('"action_type"' in r for r in replies)  # AndroidWorld
    assert any(r.startswith('{"type"') for r in replies)  # canonical
    sent = {a["action_type"] for line in lines for step in line["actions"] for a in step["sent"]}
    assert sent >= {"click", "long_press", "scroll", "input_text", "keyboard_enter", "navigate_back", "open_app", "answer", "wait", "status"}
    finished = sorted(line["finished"] for line in lines)
    assert finished.count("infeasible") == 3 and finished.count("success") == 17
    # Every request carried the goal and a PNG.
    assert all(r["image_prefix"][0].startswith("data:image/png;base64,") for r in fake.requests)
    assert all("Instruction: " in r["text"][0] for r in fake.requests)
    # The summary table, as `phoneworld eval` lays it out.
    assert "category" in done.stdout and "episodes" in done.stdout
    assert "all                 20    100.0%" in done.stdout
    assert "mean score 1.000" in done.stdout


def test_garbage_replies_score_zero_with_parse_errors(tmp_path: Path) -> None:
    with phoneworld.serve_http(devices=1) as server, FakeModel("garbage") as fake:
        done, lines = run(server, fake, tmp_path / "garbage.jsonl", "--tasks", "settings_wifi_off,phone_call_time", "--max-steps", "5")
    assert len(lines) == 2
    for line in lines:
        assert line["score"] == 0.0
        assert line["steps"] == 3  # --max-invalid 3 in a row end the episode
        assert all("parse error" in a["error"] for a in line["actions"])
        assert any(e.startswith("step 0: parse error") for e in line["errors"])
    assert "all                  2      0.0%" in done.stdout
    assert "failed settings_wifi_off instance 0" in done.stdout


def test_model_errors_end_only_their_episode(tmp_path: Path) -> None:
    with phoneworld.serve_http(devices=1) as server, FakeModel("error") as fake:
        done, lines = run(server, fake, tmp_path / "error.jsonl", "--tasks", "settings_wifi_off,phone_call_time", "--retries", "0")
        # Every episode was torn down: the same instances initialize again.
        for task in ("settings_wifi_off", "phone_call_time"):
            assert requests.post(server.url + "/task/initialize", params={"task_type": task, "task_idx": 0}).ok
    assert [line["score"] for line in lines] == [0.0, 0.0]
    for line in lines:
        assert line["steps"] == 0
        assert len(line["errors"]) == 1 and line["errors"][0].startswith("ModelError: no reply after 1 attempts: HTTP 500")
    assert "all                  2      0.0%" in done.stdout


def test_upstream_json_screenshots(tmp_path: Path) -> None:
    """--no-png: the 36 MB pixel JSON is turned into the PNG the model gets."""
    with phoneworld.serve_http(devices=1) as server, FakeModel() as fake:
        body = requests.get(server.url + "/screenshot", params={"wait_to_stabilize": "false"}).content
        png = requests.get(server.url + "/screenshot", params={"wait_to_stabilize": "false", "format": "png"}).content
        _, lines = run(server, fake, tmp_path / "json.jsonl", "--no-png", "--tasks", "phone_call_time")
    assert lines[0]["score"] == 1.0 and lines[0]["errors"] == []
    from PIL import Image

    ours = Image.open(io.BytesIO(agent.pixels_json_to_png(body)))
    theirs = Image.open(io.BytesIO(png))
    assert ours.size == theirs.size == (1080, 2400)
    assert ours.convert("RGB").tobytes() == theirs.convert("RGB").tobytes()


def test_pixels_json_small_and_odd_spacing() -> None:
    pixels = [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 255]], [[0, 0, 0], [9, 9, 9]]]
    for body in (json.dumps({"pixels": pixels}), json.dumps({"pixels": pixels}, indent=1)):
        png = agent.pixels_json_to_png(body.encode())
        assert agent.png_size(png) == (2, 3)
        from PIL import Image

        image = Image.open(io.BytesIO(png)).convert("RGB")
        assert image.tobytes() == bytes(c for row in pixels for p in row for c in p)


@pytest.mark.parametrize(
    "canonical, expected",
    [
        ({"type": "tap", "x": 5, "y": 6}, {"action_type": "click", "x": 5, "y": 6}),
        ({"type": "double_tap", "x": 5, "y": 6}, {"action_type": "double_tap", "x": 5, "y": 6}),
        ({"type": "long_press", "x": 5, "y": 6, "ms": 900}, {"action_type": "long_press", "x": 5, "y": 6, "duration": 900}),
        (
            {"type": "swipe", "x1": 1, "y1": 2, "x2": 3, "y2": 4, "ms": 300},
            {"action_type": "scroll", "x": 1, "y": 2, "x2": 3, "y2": 4, "duration": 300},
        ),
        (
            {"type": "drag", "x1": 1, "y1": 2, "x2": 3, "y2": 4, "ms": 800},
            {"action_type": "scroll", "x": 1, "y": 2, "x2": 3, "y2": 4, "duration": 800},
        ),
        ({"type": "type_text", "text": "hi", "clear": False}, {"action_type": "input_text", "text": "hi", "press_enter": False}),
        (
            {"type": "type_text", "text": "hi", "clear": True},
            {"action_type": "input_text", "text": "hi", "press_enter": False, "clear_text": True},
        ),
        ({"type": "key", "key": "back"}, {"action_type": "navigate_back"}),
        ({"type": "key", "key": "home"}, {"action_type": "navigate_home"}),
        ({"type": "key", "key": "enter"}, {"action_type": "keyboard_enter"}),
        ({"type": "open_app", "app": "Clock"}, {"action_type": "open_app", "app_name": "Clock"}),
        ({"type": "answer", "text": "42"}, {"action_type": "answer", "text": "42"}),
        ({"type": "wait", "ms": 5000}, {"action_type": "wait"}),
        ({"type": "finish", "status": "success", "text": ""}, {"action_type": "status", "goal_status": "complete"}),
        ({"type": "finish", "status": "infeasible", "text": ""}, {"action_type": "status", "goal_status": "infeasible"}),
    ],
)
def test_to_json_action(canonical: Dict[str, Any], expected: Dict[str, Any]) -> None:
    assert agent.to_json_action(canonical) == expected


@pytest.mark.parametrize("canonical", [{"type": "close_app", "app": "Clock"}, {"type": "key", "key": "recents"}, {"type": "key", "key": "menu"}])
def test_to_json_action_refuses_what_the_api_cannot_say(canonical: Dict[str, Any]) -> None:
    with pytest.raises(agent.Unsupported):
        agent.to_json_action(canonical)


def test_every_parsed_format_reaches_the_same_json_action() -> None:
    """A model's reply in any format -> phoneworld.actions -> the JSON action the server runs."""
    steps = [{"type": "tap", "x": 540, "y": 1200}]
    for turn in range(5):
        reply = render_reply(steps, turn)
        parsed = phoneworld.actions.parse_steps(reply)
        assert [agent.to_json_action(a) for a in parsed] == [{"action_type": "click", "x": 540, "y": 1200}], reply


def test_harness_docstring_examples() -> None:
    assert doctest.testmod(agent).failed == 0
