"""Action formats: golden strings both ways, detection, coordinate frames, error messages, and garbage
that must raise ActionError and nothing else."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any, Dict, List

import pytest

from phoneworld import actions
from phoneworld._core import ActionError, PhoneWorldError

GOLDEN = Path(__file__).parent / "golden"


def _cases() -> List[Any]:
    params = []
    for fmt in actions.FORMATS:
        data = json.loads((GOLDEN / f"{fmt}.json").read_text(encoding="utf-8"))
        assert data["format"] == fmt
        for case in data["cases"]:
            params.append(pytest.param(fmt, case, id=f"{fmt}: {case['name']}"))
    return params


CASES = _cases()


def _options(case: Dict[str, Any]) -> Dict[str, Any]:
    options = dict(case.get("options", {}))
    for key in ("screen", "image_size"):
        if key in options:
            options[key] = tuple(options[key])
    return options


@pytest.mark.parametrize("fmt, case", CASES)
def test_golden_parses_to_canonical(fmt: str, case: Dict[str, Any]) -> None:
    steps = actions.parse_steps(case["model"], fmt, **_options(case))
    assert steps == case["canonical"]
    for step in steps:
        assert all(not isinstance(v, float) for v in step.values()), step


@pytest.mark.parametrize("fmt, case", CASES)
def test_golden_is_detected(fmt: str, case: Dict[str, Any]) -> None:
    assert actions.detect(case["model"]) == fmt
    assert actions.parse_steps(case["model"], **_options(case)) == case["canonical"]


@pytest.mark.parametrize("fmt, case", [p for p in CASES if p.values[1]["both"]])
def test_golden_renders_back(fmt: str, case: Dict[str, Any]) -> None:
    options = _options(case)
    options.pop("ui_elements", None)
    options.update(case.get("render_options", {}))
    assert actions.render_steps(case["canonical"], fmt, **options) == case["model"]
    if len(case["canonical"]) == 1:
        assert actions.render(case["canonical"][0], fmt, **options) == case["model"]


def test_every_format_has_goldens_for_every_action_it_expresses() -> None:
    expressible = {
        "canonical": set(actions._CANONICAL_FIELDS),
        "androidworld": {"tap", "double_tap", "long_press", "swipe", "type_text", "key", "open_app", "wait", "answer", "finish"},
        "phonebuddy": set(actions._CANONICAL_FIELDS),
        "qwen25vl": {"tap", "long_press", "swipe", "type_text", "key", "open_app", "wait", "answer", "finish"},
        "uitars": {"tap", "double_tap", "long_press", "swipe", "drag", "type_text", "key", "open_app", "wait", "finish"},
    }
    for fmt in actions.FORMATS:
        data = json.loads((GOLDEN / f"{fmt}.json").read_text(encoding="utf-8"))
        covered = {a["type"] for c in data["cases"] if c["both"] for a in c["canonical"]}
        assert covered == expressible[fmt], fmt
        keys = {a["key"] for c in data["cases"] if c["both"] for a in c["canonical"] if a["type"] == "key"}
        assert keys == {"androidworld": {"back", "home", "enter"}, "canonical": {"recents"}}.get(fmt, set(actions.KEYS)), fmt


# --- round trips over generated actions ----------------------------------------------------------

#: What each format has no counterpart for, whatever the details.
NOT_EXPRESSIBLE = {
    "canonical": set(),
    "androidworld": {"drag", "close_app", "key:recents", "key:delete", "key:menu"},
    "phonebuddy": set(),
    "qwen25vl": {"double_tap", "drag", "close_app"},
    "uitars": {"answer", "close_app"},
}


def _random_action(rng: random.Random, screen: tuple[int, int]) -> Dict[str, Any]:
    w, h = screen

    def xy() -> tuple[int, int]:
        return rng.randrange(w), rng.randrange(h)

    kind = rng.choice(list(actions._CANONICAL_FIELDS))
    if kind in ("tap", "double_tap"):
        x, y = xy()
        return {"type": kind, "x": x, "y": y}
    if kind == "long_press":
        x, y = xy()
        return {"type": kind, "x": x, "y": y, "ms": rng.choice([800, 1500])}
    if kind in ("swipe", "drag"):
        (x1, y1), (x2, y2) = xy(), xy()
        return {"type": kind, "x1": x1, "y1": y1, "x2": x2, "y2": y2, "ms": actions._MS_DEFAULTS[kind]}
    if kind == "type_text":
        return {"type": kind, "text": rng.choice(["milk", 'it\'s "7"', "a\\b", "line\nbreak", "名前"]), "clear": False}
    if kind == "key":
        return {"type": kind, "key": rng.choice(actions.KEYS)}
    if kind in ("open_app", "close_app"):
        return {"type": kind, "app": rng.choice(["Clock", "com.phoneworld.chat"])}
    if kind == "wait":
        return {"type": kind, "ms": rng.choice([1000, 2000, 5000])}
    if kind == "answer":
        return {"type": kind, "text": "3 o'clock"}
    return {"type": kind, "status": rng.choice(actions.FINISH_STATUSES), "text": ""}


def _label(action: Dict[str, Any]) -> str:
    return f"key:{action['key']}" if action["type"] == "key" else action["type"]


@pytest.mark.parametrize("fmt", actions.FORMATS)
def test_pixel_frame_round_trip_is_exact(fmt: str) -> None:
    """With a pixel frame every expressible action comes back exactly; the rest raise ActionError."""
    rng = random.Random(7)
    screen = (1080, 2400)
    seen = 0
    for _ in range(400):
        action = _random_action(rng, screen)
        try:
            rendered = actions.render(action, fmt, screen=screen, coords="pixel", strict=True)
        except ActionError as err:
            lossy = "exactly" in str(err)
            assert lossy or _label(action) in NOT_EXPRESSIBLE[fmt], (action, err)
            continue
        assert _label(action) not in NOT_EXPRESSIBLE[fmt]
        assert actions.parse(rendered, fmt, screen=screen, coords="pixel") == action
        seen += 1
    assert seen > 150


@pytest.mark.parametrize("fmt", actions.FORMATS)
@pytest.mark.parametrize("coords", ["norm1000", "norm1", "resized"])
def test_other_frames_round_trip_within_one_frame_unit(fmt: str, coords: str) -> None:
    """Coarser frames lose at most half a frame unit (rounded to a pixel) per coordinate, and a
    second round trip changes nothing (rendering is a fixed point)."""
    rng = random.Random(11)
    screen = (1080, 2400)
    image = (532, 1204)
    for _ in range(300):
        action = _random_action(rng, screen)
        try:
            rendered = actions.render(action, fmt, screen=screen, coords=coords, image_size=image)
        except ActionError:
            continue
        back = actions.parse(rendered, fmt, screen=screen, coords=coords, image_size=image)
        for key in ("x", "y", "x1", "y1", "x2", "y2"):
            if key in action:
                axis = 0 if key.startswith("x") else 1
                unit = {"norm1000": screen[axis] / 1000, "norm1": screen[axis] / 10000, "resized": screen[axis] / image[axis]}[coords]
                assert abs(back[key] - action[key]) <= unit / 2 + 0.5, (action, back)
        assert actions.render(back, fmt, screen=screen, coords=coords, image_size=image) == rendered


def test_parse_render_steps_round_trip() -> None:
    for fmt in ("androidworld", "phonebuddy", "uitars", "qwen25vl"):
        clear = fmt in ("androidworld", "phonebuddy")  # UI-TARS and mobile_use cannot clear a field
        steps = [{"type": "tap", "x": 540, "y": 1200}, {"type": "type_text", "text": "hi", "clear": clear}, {"type": "key", "key": "enter"}]
        rendered = actions.render_steps(steps, fmt, coords="pixel")
        assert actions.parse_steps(rendered, fmt, coords="pixel") == steps, fmt
    with pytest.raises(ActionError, match="canonical writes one action per output"):
        actions.render_steps(steps, "canonical")


# --- frames and sizes ----------------------------------------------------------------------------


def test_smart_resize_matches_qwen_rules() -> None:
    assert actions.smart_resize(2400, 1080) == (2408, 1092)
    assert actions.smart_resize(1200, 540) == (1204, 532)
    # Below min_pixels the image grows, above max_pixels it shrinks; both keep multiples of 28.
    assert actions.smart_resize(10, 10) == (56, 56)
    h, w = actions.smart_resize(20000, 9000)
    assert h * w <= actions.QWEN_MAX_PIXELS and h % 28 == 0 and w % 28 == 0
    with pytest.raises(ActionError, match="aspect ratio"):
        actions.smart_resize(10000, 10)


def test_default_resized_frame_is_smart_resize_of_the_screen() -> None:
    text = '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1092, 2408]}}</tool_call>'
    assert actions.parse(text) == {"type": "tap", "x": 1079, "y": 2399}


def test_coordinate_frames_scale_the_same_point() -> None:
    point = {"type": "tap", "x": 540, "y": 1200}
    assert actions.parse({"type": "tap", "x": 0.5, "y": 0.5}, coords="norm1") == point
    assert actions.parse({"type": "tap", "x": 500, "y": 500}, coords="norm1000") == point
    assert actions.parse({"type": "tap", "x": 273, "y": 602}, coords="resized", image_size=(546, 1204)) == point
    assert actions.render(point, "canonical", coords="norm1") == {"type": "tap", "x": 0.5, "y": 0.5}


# --- errors --------------------------------------------------------------------------------------

ERRORS = [
    ("uitars", "Thought: I should open the app", {}, "uitars: no action call in 'Thought: I should open the app'"),
    ("uitars", "Action: click(start_box='(1,2,3)')", {}, "uitars: click: start_box must be a point (x,y) or a box"),
    ("uitars", "Action: click(start_box='(500,500)'", {}, "uitars: click( has no closing ')'"),
    ("uitars", "Action: fly()", {}, "uitars: unknown action 'fly'"),
    ("uitars", "Action: scroll(start_box='(1,2)')", {}, "uitars: scroll: needs an end_box or a direction"),
    ("uitars", "Action: click(start_box='(500,1200)')", {}, "coordinate 1200 outside 0..1000"),
    (
        "phonebuddy",
        '<tool_call>{"name": "click", "arguments": {"points": [[1, 2], [3, 4], [5, 6]]}}</tool_call>',
        {},
        "phonebuddy: click: arguments.points must be [[x, y]]",
    ),
    (
        "phonebuddy",
        '<tool_call>{"name": "click", "arguments": {"points": [[1, 2], [3, 4]]}}</tool_call>',
        {},
        "phonebuddy: click: arguments.points must be [[x, y]]",
    ),
    (
        "phonebuddy",
        '<tool_call>{"name": "click", "arguments": {"points": [[500, 1200]]}}</tool_call>',
        {},
        "phonebuddy: click: y coordinate 1200 outside 0..1000",
    ),
    ("phonebuddy", '<tool_call>{"name": "fly", "arguments": {}}</tool_call>', {}, "phonebuddy: unknown function 'fly'"),
    ("phonebuddy", "<tool_call>{not json</tool_call>", {}, "phonebuddy: tool call 1 is not JSON"),
    ("phonebuddy", "I think I am done.", {}, "phonebuddy: no <tool_call>"),
    (
        "phonebuddy",
        '<tool_call>{"name": "button_press", "arguments": {"type": "volume_up"}}</tool_call>',
        {},
        "phonebuddy: button_press: arguments.type must name one of back",
    ),
    (
        "phonebuddy",
        '<tool_call>{"name": "drag", "arguments": {"points": [[1, 2]]}}</tool_call>',
        {},
        "phonebuddy: drag: arguments.points must be [[x1, y1], [x2, y2]]",
    ),
    (
        "qwen25vl",
        '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1]}}</tool_call>',
        {},
        "qwen25vl: click: arguments.coordinate must be [x, y]",
    ),
    (
        "qwen25vl",
        '<tool_call>{"name": "mobile_use", "arguments": {"action": "terminate", "status": "done"}}</tool_call>',
        {},
        "qwen25vl: terminate: status must be success or failure",
    ),
    (
        "qwen25vl",
        '<tool_call>{"name": "mobile_use", "arguments": {"action": "key", "text": "volume_up"}}</tool_call>',
        {},
        "qwen25vl: key: text must name one of back",
    ),
    ("qwen25vl", '<tool_call>{"name": "click", "arguments": {}}</tool_call>', {}, "qwen25vl: function 'click' is not mobile_use"),
    ("androidworld", {"action_type": "click", "index": 4}, {}, "androidworld: click: index 4 needs the screen's ui_elements"),
    (
        "androidworld",
        {"action_type": "click", "index": 4},
        {"ui_elements": [{"bbox_pixels": {"x_min": 0, "x_max": 1, "y_min": 0, "y_max": 1}}]},
        "androidworld: click: index 4 outside 0..0",
    ),
    ("androidworld", {"action_type": "click", "index": 0, "x": 1, "y": 2}, {}, "give either an index or x and y"),
    (
        "androidworld",
        {"action_type": "scroll", "direction": "sideways"},
        {},
        "androidworld: scroll: direction must be one of up, down, left, right",
    ),
    ("androidworld", {"action_type": "status", "goal_status": "done"}, {}, "goal_status must be complete or infeasible"),
    ("androidworld", {"action_type": "unknown"}, {}, "action_type 'unknown' is no action"),
    ("androidworld", {"action_type": "input_text", "text": ""}, {}, "androidworld: input_text: text must not be empty"),
    ("canonical", {"type": "tap", "x": 1}, {}, "canonical: tap: missing field 'y'"),
    ("canonical", {"type": "fly"}, {}, "canonical: type must be one of tap"),
    ("canonical", {"type": "key", "key": "volume"}, {}, "canonical: key: key must be one of back"),
    ("canonical", {"type": "tap", "x": "1", "y": 2}, {}, "canonical: tap: x must be a number"),
    ("canonical", {"type": "tap", "x": 1, "y": 2, "ms": 5}, {}, "canonical: tap has no field 'ms'"),
    ("canonical", {"type": "wait", "ms": -5}, {}, "canonical: wait: ms: -5 ms outside 0..3600000"),
    ("canonical", {"type": "tap", "x": 1080.6, "y": 1}, {}, "canonical: tap: x coordinate 1080.6 outside 0..1080"),
    ("canonical", {"type": "tap", "x": float("nan"), "y": 1}, {}, "must be a finite number"),
    ("auto", "order me a pizza", {}, "cannot tell the format of 'order me a pizza'"),
    ("auto", "<think>tap it</think><tool_call>{not json</tool_call>", {}, "phonebuddy: tool call 1 is not JSON"),
    ("auto", 17, {}, "an action must be a str or dict, not int"),
    ("auto", {"action_type": "input_text", "text": "x"}, {"fmt_parse": True}, "is 2 canonical actions (type_text, key); use parse_steps"),
    ("yaml", "{}", {}, "format must be one of auto, canonical"),
    ("auto", {"type": "tap", "x": 1, "y": 1}, {"coords": "inches"}, "coords must be one of pixel, norm1000, norm1, resized"),
    ("auto", {"type": "tap", "x": 1, "y": 1}, {"screen": (0, 10)}, "screen must be (width, height) in positive integers"),
]


@pytest.mark.parametrize("fmt, action, options, message", ERRORS, ids=[e[3][:50] for e in ERRORS])
def test_errors_say_what_and_where(fmt: str, action: Any, options: Dict[str, Any], message: str) -> None:
    options = dict(options)
    use_parse = options.pop("fmt_parse", False)
    with pytest.raises(ActionError) as raised:
        if use_parse:
            actions.parse(action, fmt, **options)
        else:
            actions.parse_steps(action, fmt, **options)
    assert message in str(raised.value)
    assert isinstance(raised.value, PhoneWorldError)


RENDER_ERRORS = [
    ({"type": "drag", "x1": 1, "y1": 1, "x2": 5, "y2": 5, "ms": 800}, "androidworld", "androidworld cannot express drag"),
    ({"type": "key", "key": "recents"}, "androidworld", "AndroidWorld has no recents key"),
    ({"type": "type_text", "text": "hi", "clear": False}, "androidworld", "input_text always presses Enter"),
    ({"type": "close_app", "app": "Clock"}, "qwen25vl", "qwen25vl cannot express close_app"),
    ({"type": "double_tap", "x": 1, "y": 1}, "qwen25vl", "mobile_use has no double tap"),
    ({"type": "swipe", "x1": 1, "y1": 1, "x2": 5, "y2": 5, "ms": 900}, "qwen25vl", "swipe lasts 300 ms"),
    ({"type": "answer", "text": "42"}, "uitars", "uitars cannot express answer"),
    ({"type": "finish", "status": "success", "text": "done"}, "qwen25vl", "terminate has no text"),
]


@pytest.mark.parametrize("action, fmt, message", RENDER_ERRORS, ids=[e[2] for e in RENDER_ERRORS])
def test_render_refuses_what_a_format_cannot_express(action: Dict[str, Any], fmt: str, message: str) -> None:
    with pytest.raises(ActionError, match=message):
        actions.render(action, fmt)


def test_render_without_strict_drops_detail_but_not_whole_actions() -> None:
    swipe = {"type": "swipe", "x1": 540, "y1": 1800, "x2": 540, "y2": 600, "ms": 900}
    loose = actions.render(swipe, "qwen25vl", strict=False)
    assert actions.parse(loose, "qwen25vl") == dict(swipe, ms=300)
    assert actions.render({"type": "type_text", "text": "hi", "clear": True}, "androidworld", strict=False) == {
        "action_type": "input_text",
        "text": "hi",
        "clear_text": True,
    }
    with pytest.raises(ActionError, match="cannot express close_app"):
        actions.render({"type": "close_app", "app": "Clock"}, "qwen25vl", strict=False)


def test_variant_applies_to_uitars_only() -> None:
    with pytest.raises(ActionError, match="does not apply to phonebuddy"):
        actions.render({"type": "key", "key": "back"}, "phonebuddy", variant="point")


# --- garbage -------------------------------------------------------------------------------------

PIECES = [
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "Action:",
    "Thought:",
    "click(",
    "scroll(",
    "type(content=",
    "start_box=",
    "point=",
    "direction=",
    "'(",
    ")'",
    "<|box_start|>",
    "<|box_end|>",
    "<point>",
    "</point>",
    '{"name": ',
    '"arguments": ',
    '"points": ',
    '"action_type": ',
    '"type": ',
    '"action": ',
    '"mobile_use"',
    '"click"',
    '"scroll"',
    '"index": ',
    "[[",
    "]]",
    "1e999",
    "-1",
    "null",
    "true",
    "1000",
    "0.5",
    "99999999999999999999",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    '"',
    "'",
    "\n",
    "\\n",
    "\\",
    ")",
    "(",
]


def test_random_strings_raise_only_action_error() -> None:
    rng = random.Random(2024)
    alphabet = string.printable + "\u00e9\u201c\u201d\u4e2d"
    failures = 0
    for _ in range(4000):
        text = "".join(rng.choice(PIECES) if rng.random() < 0.6 else rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        for fmt in ("auto",) + actions.FORMATS:
            try:
                steps = actions.parse_steps(text, fmt, ui_elements=[{"bbox_pixels": {"x_min": 0, "x_max": 9, "y_min": 0, "y_max": 9}}])
            except ActionError:
                failures += 1
                continue
            for step in steps:  # whatever parses is a valid canonical action
                assert actions.canonical(step) == step
    assert failures > 0


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return rng.choice([None, True, False])
    if choice == 1:
        return rng.choice([0, -1, 500, 1000, 2400, 10**30, 0.5, 1e308, float("inf")])
    if choice == 2:
        return rng.choice(["", "x", "up", "down", "back", "click", "success", "complete", "(1,2)", "mobile_use", "tap"])
    if choice in (3, 4, 5):
        return rng.choice(["click", "scroll", "input_text", "tap", "swipe", "type", "mobile_use", "status", "finish", "key"])
    if choice in (6, 7):
        keys = [
            "type",
            "action_type",
            "name",
            "arguments",
            "action",
            "x",
            "y",
            "x1",
            "y2",
            "index",
            "points",
            "coordinate",
            "coordinate2",
            "text",
            "direction",
            "goal_status",
            "status",
            "key",
            "ms",
            "time",
            "duration",
            "app",
            "clear",
        ]
        return {rng.choice(keys): _random_json(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]


BAD_ELEMENTS: Any = [{"bbox_pixels": None}, "not a dict", {"bbox_pixels": {"x_min": "a"}}]


def test_random_structures_raise_only_action_error() -> None:
    rng = random.Random(99)
    for _ in range(4000):
        value = _random_json(rng)
        for fmt in ("auto",) + actions.FORMATS:
            for candidate in (value, json.dumps(value) if not isinstance(value, float) else "1"):
                try:
                    actions.parse_steps(candidate, fmt, ui_elements=BAD_ELEMENTS)
                except ActionError:
                    pass


def test_garbage_canonical_actions_do_not_render() -> None:
    rng = random.Random(5)
    for _ in range(2000):
        value = _random_json(rng)
        for fmt in actions.FORMATS:
            try:
                actions.render(value, fmt)
            except ActionError:
                pass


# --- schemas and prompts -------------------------------------------------------------------------


def test_tool_schemas_are_openai_functions() -> None:
    for fmt in ("phonebuddy", "qwen25vl"):
        tools = actions.tool_schema(fmt)
        assert tools and all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in tools)
        json.dumps(tools)
    names = [t["function"]["name"] for t in actions.tool_schema("phonebuddy")]
    assert names == [
        "click",
        "double_click",
        "long_press",
        "type",
        "scroll",
        "drag",
        "button_press",
        "open_app",
        "close_app",
        "wait",
        "output",
        "finish",
    ]
    assert "1092x2408" in actions.tool_schema("qwen25vl")[0]["function"]["description"]
    with pytest.raises(ActionError, match="not a tool-call format"):
        actions.tool_schema("uitars")


def test_every_phonebuddy_function_in_the_schema_parses() -> None:
    examples: Dict[str, Dict[str, Any]] = {
        "click": {"points": [[1, 2]]},
        "double_click": {"points": [[1, 2]]},
        "long_press": {"points": [[1, 2]]},
        "type": {"text": "a"},
        "scroll": {"points": [[1, 2], [3, 4]]},
        "drag": {"points": [[1, 2], [3, 4]]},
        "button_press": {"type": "back"},
        "open_app": {"package": "p"},
        "close_app": {"package": "p"},
        "wait": {"time": 5},
        "output": {"text": "a"},
        "finish": {"text": "a"},
    }
    for tool in actions.tool_schema("phonebuddy"):
        name = tool["function"]["name"]
        for required in tool["function"]["parameters"]["required"]:
            assert required in examples[name], (name, required)
        actions.parse({"name": name, "arguments": examples[name]}, "phonebuddy")


@pytest.mark.parametrize("fmt", actions.FORMATS)
def test_system_prompts_state_the_frame(fmt: str) -> None:
    prompt = actions.system_prompt(fmt)
    assert {
        "canonical": "screen pixels",
        "androidworld": "screen pixels",
        "phonebuddy": "0-1000",
        "qwen25vl": "1092x2408",
        "uitars": "0-1000",
    }[fmt] in prompt
