"""Hostile input to `phoneworld.actions`, one test per class of bug the fuzz harness found
(python/fuzz/fuzz_actions.py): numbers that overflow once combined or scaled, outputs that made the
tag scanning quadratic, closing tags inside rendered texts, 'Action:' inside UI-TARS values, and
extreme screen sizes. Each checks generated variants, not only the corpus seed."""

from __future__ import annotations

import json
import random
import time
from typing import Any, Dict, List

import pytest

import phoneworld
from phoneworld import actions
from phoneworld._core import ActionError

HUGE = [1e308, 1.7976931348623157e308, -1e308, 5e307, 1e300]

# --- numbers: finite, but overflowing once added or scaled -----------------------------------------


def _element(x_min: float, y_min: float, x_max: float, y_max: float) -> Dict[str, Any]:
    return {"bbox_pixels": {"x_min": x_min, "y_min": y_min, "x_max": x_max, "y_max": y_max}}


def test_index_whose_bbox_adds_up_to_infinity_is_an_action_error() -> None:
    rng = random.Random(1)
    for _ in range(50):
        # One axis with both edges huge and of one sign (their sum overflows, or the center is far off).
        sign = rng.choice([1, -1])
        far = [sign * abs(rng.choice(HUGE)), sign * abs(rng.choice(HUGE))]
        near = sorted(rng.uniform(0, 1000) for _ in range(2))
        x_min, x_max, y_min, y_max = far + near if rng.random() < 0.5 else near + far
        edges = (x_min, y_min, x_max, y_max)
        for kind in ("click", "long_press", "input_text"):
            value = {"action_type": kind, "index": 0, "text": "hi"}
            with pytest.raises(ActionError, match="UI element 0: the center .* of its bbox_pixels is outside the 1080x2400 screen"):
                actions.parse_steps(value, "androidworld", ui_elements=[_element(*edges)])


def test_index_center_on_the_screen_still_taps_it() -> None:
    ui = [_element(10, 10, 21, 31), _element(1000, 2300, 1080, 2400)]
    assert actions.parse({"action_type": "click", "index": "0"}, ui_elements=ui) == {"type": "tap", "x": 15, "y": 20}
    assert actions.parse({"action_type": "click", "index": 1}, ui_elements=ui) == {"type": "tap", "x": 1040, "y": 2350}


@pytest.mark.parametrize(
    "index", ["--5", "\u00b2", "9" * 5000, "1" * 19, 10**5000], ids=["dashes", "superscript", "digits", "19-digits", "huge-int"]
)
def test_odd_indexes_are_action_errors(index: object) -> None:
    with pytest.raises(ActionError, match="androidworld: click: index"):
        actions.parse({"action_type": "click", "index": index}, ui_elements=[_element(0, 0, 9, 9)])


def _durations(value: Any) -> Dict[str, Any]:
    """One output per reader with a duration field, holding `value` there (format -> output)."""
    qwen = {"name": "mobile_use", "arguments": {"action": "long_press", "coordinate": [10, 10], "time": value}}
    qwen_wait = {"name": "mobile_use", "arguments": {"action": "wait", "time": value}}
    return {
        "canonical: wait: ms": ({"type": "wait", "ms": value}, "canonical"),
        "canonical: swipe: ms": ({"type": "swipe", "x1": 1, "y1": 1, "x2": 2, "y2": 2, "ms": value}, "canonical"),
        "androidworld: swipe: duration": ({"action_type": "swipe", "x": 1, "y": 1, "x2": 2, "y2": 2, "duration": value}, "androidworld"),
        "phonebuddy: long_press: duration": ({"name": "long_press", "arguments": {"points": [[1, 1]], "duration": value}}, "phonebuddy"),
        "phonebuddy: wait: time": ({"name": "wait", "arguments": {"time": value}}, "phonebuddy"),
        "phonebuddy: wait: seconds": ({"name": "wait", "arguments": {"seconds": value}}, "phonebuddy"),
        "qwen25vl: long_press: time": ("<tool_call>" + json.dumps(qwen) + "</tool_call>", "qwen25vl"),
        "qwen25vl: wait: time": ("<tool_call>" + json.dumps(qwen_wait) + "</tool_call>", "qwen25vl"),
        "uitars: wait: seconds": (f"Action: wait(seconds={value!r})", "uitars"),
    }


@pytest.mark.parametrize("value", HUGE + [86_400_001, 3_600_001, 1e10])
def test_huge_durations_are_action_errors_naming_the_field(value: float) -> None:
    for field, (output, fmt) in _durations(value).items():
        if fmt == "canonical" and isinstance(value, float) and value < 0:
            continue  # covered by the positive ones; the message is the same
        with pytest.raises(ActionError, match=field):
            actions.parse_steps(output, fmt)


def test_durations_within_the_limit_still_parse() -> None:
    assert actions.parse({"type": "wait", "ms": actions.MAX_MS}) == {"type": "wait", "ms": actions.MAX_MS}
    assert actions.parse("Action: wait(seconds=3600)") == {"type": "wait", "ms": 3_600_000}
    assert actions.MAX_MS <= 86_400_000  # the engine's MAX_ACTION_MS


def test_huge_python_ints_are_action_errors() -> None:
    for value in (10**5000, -(10**5000), 10**400):
        with pytest.raises(ActionError, match="canonical: tap: x"):
            actions.parse({"type": "tap", "x": value, "y": 1})


def _texts(text: str) -> List[Any]:
    """Outputs of every reader that carry `text` in a text field."""
    qwen = {"name": "mobile_use", "arguments": {"action": "type", "text": text}}
    return [
        ({"type": "type_text", "text": text}, "canonical"),
        ({"type": "answer", "text": text}, "canonical"),
        ({"type": "finish", "status": "success", "text": text}, "canonical"),
        ({"type": "open_app", "app": text}, "canonical"),
        ({"action_type": "input_text", "text": text}, "androidworld"),
        ({"action_type": "answer", "text": text}, "androidworld"),
        ({"name": "type", "arguments": {"text": text}}, "phonebuddy"),
        ({"name": "finish", "arguments": {"text": text}}, "phonebuddy"),
        ("<tool_call>" + json.dumps(qwen) + "</tool_call>", "qwen25vl"),
        (f"Action: type(content='{text}')", "uitars"),
        (f"Action: type(content='{text}\\n')", "uitars"),
        (f"Action: finished(content='{text}')", "uitars"),
        (f"Action: call_user(content='{text}')", "uitars"),
    ]


@pytest.mark.parametrize("chars", [10_001, 10_500, 60_000])
def test_texts_over_the_engine_limit_are_action_errors(chars: int) -> None:
    for output, fmt in _texts("x" * chars):
        with pytest.raises(ActionError, match=f"a text of {chars} characters is longer than the limit of 10000"):
            actions.parse_steps(output, fmt)


def test_texts_at_the_limit_parse_and_the_phone_takes_them() -> None:
    text = "\u00e9" * actions.MAX_TEXT_CHARS
    phone = phoneworld.Phone(seed=0)
    for output, fmt in _texts(text):
        for step in actions.parse_steps(output, fmt):
            if step["type"] in ("answer", "type_text"):
                assert isinstance(phone.step(step), dict)
    # The same limit as the engine's: one character more, and the phone refuses it too.
    with pytest.raises(ActionError, match="longer than the limit of 10000"):
        phone.step({"type": "answer", "text": text + "x"})


# --- long outputs and linear scanning ------------------------------------------------------------


@pytest.mark.parametrize("fmt", ("auto",) + actions.FORMATS)
def test_outputs_over_the_limit_are_action_errors(fmt: str) -> None:
    for text in ("a" * (actions.MAX_OUTPUT_CHARS + 1), "<tool_call>" * 20_000, "Action: press_back()" * 6000):
        with pytest.raises(ActionError, match="longer than the limit of 100000"):
            actions.parse_steps(text, fmt)


def _repeated_tags(n: int) -> Dict[str, str]:
    return {
        "tool_call": "<tool_call>" * (n // 11),
        "think": "<think>" * (n // 7) + "<tool_call>{",
        "think-closed": "<think>" * (n // 15) + "</think>" * (n // 15),
        "both": "<think><tool_call>" * (n // 18),
        "close-only": "</tool_call>" * (n // 12),
        "actions": "Action: " * (n // 8),
        "action-lines": "\n Action:" * (n // 9),
    }


def test_repeated_tags_up_to_the_limit_take_linear_time() -> None:
    n = actions.MAX_OUTPUT_CHARS - 20
    for label, text in _repeated_tags(n).items():
        assert len(text) <= actions.MAX_OUTPUT_CHARS
        for fmt in ("auto", "phonebuddy", "qwen25vl", "uitars", "androidworld"):
            start = time.perf_counter()
            try:
                actions.parse_steps(text, fmt)
            except ActionError:
                pass
            # Linear scanning takes milliseconds here; the old backtracking regexes took about 18 s.
            assert time.perf_counter() - start < 10.0, f"{label} in {fmt}"


def test_tag_scanning_keeps_the_regex_semantics() -> None:
    text = "<think>a <tool_call>{}</tool_call></think> <tool_call> 1 </tool_call><tool_call>2</tool_call><tool_call>3"
    assert actions._tool_call_texts(text) == ["1", "2"]
    assert actions._tool_call_texts("<think>x<tool_call> 4") == ["4"]  # an unclosed think stays
    assert actions._without_thinking("a<think>b</think>c<think>d") == "ac<think>d"


# --- closing tags inside rendered texts ----------------------------------------------------------

TAGGED = [
    "done </tool_call> next",
    "</tool_call>",
    "<tool_call>{}</tool_call>",
    "<think>",
    "</think> and <think>",
    "a\\</tool_call>",
    "<\\/tool_call> as written",
    "</",
    "<</tool_call>/",
]


@pytest.mark.parametrize("fmt", ["phonebuddy", "qwen25vl"])
def test_tags_inside_texts_round_trip(fmt: str) -> None:
    rng = random.Random(fmt)
    texts = TAGGED + ["".join(rng.choice(TAGGED + ["x", " ", "\n", "'"]) for _ in range(6)) for _ in range(20)]
    for text in texts:
        steps = [{"type": "answer", "text": text}, {"type": "type_text", "text": text, "clear": False}]
        if fmt == "phonebuddy":
            steps.append({"type": "finish", "status": "success", "text": text})
        for step in steps:
            rendered = actions.render(step, fmt, coords="pixel")
            assert isinstance(rendered, str) and rendered.count("</tool_call>") == 1
            assert actions.parse_steps(rendered, fmt, coords="pixel") == [step], rendered
            assert actions.parse_steps(rendered, coords="pixel") == [step], rendered
        rendered = actions.render_steps(steps, fmt, coords="pixel")
        assert actions.parse_steps(rendered, fmt, coords="pixel") == steps


def test_renders_longer_than_the_readers_take_are_action_errors() -> None:
    steps = [{"type": "key", "key": "back"}] * 2000
    with pytest.raises(ActionError, match="longer than the readers' limit"):
        actions.render_steps(steps, "phonebuddy")
    assert len(actions.parse_steps(actions.render_steps(steps[:500], "phonebuddy"))) == 500


# --- 'Action:' inside UI-TARS values --------------------------------------------------------------

ACTION_TEXTS = [
    "Action: go",
    "see Action: click(start_box='(1,2)')",
    "line\nAction: press_back()",
    "Thought: x\nAction: wait()",
    "'Action:'",
    "Action:",
]


def test_action_inside_uitars_values_round_trips() -> None:
    rng = random.Random(4)
    texts = ACTION_TEXTS + ["".join(rng.choice(ACTION_TEXTS + ["\n", "'", ")", "\\"]) for _ in range(4)) for _ in range(20)]
    for text in texts:
        if text.endswith("\n"):
            continue  # a trailing newline in type means Enter
        for step in ({"type": "type_text", "text": text, "clear": False}, {"type": "finish", "status": "infeasible", "text": text}):
            rendered = actions.render(step, "uitars", coords="pixel")
            assert isinstance(rendered, str)
            assert actions.parse_steps(rendered, "uitars", coords="pixel") == [step], rendered
            # ...also after a thought, as UI-TARS writes it
            assert actions.parse_steps("Thought: I type it.\n" + rendered, "uitars", coords="pixel") == [step]
            assert actions.parse_steps("Thought: I type it.\n" + rendered, coords="pixel") == [step]


def test_the_action_line_is_the_first_at_a_line_start() -> None:
    text = "Thought: the Action: button\nAction: type(content='Action: go')"
    assert actions.parse(text) == {"type": "type_text", "text": "Action: go", "clear": False}
    # A model that labels each call: every call, in order.
    assert actions.parse_steps("Action: press_home()\nAction: press_back()") == [actions._key("home"), actions._key("back")]
    # AndroidWorld's M3A 'Reason: ... Action: {...}' reads its first label too.
    m3a = 'Reason: type it\nAction: {"action_type": "answer", "text": "Action: {}"}'
    assert actions.parse(m3a) == {"type": "answer", "text": "Action: {}"}


# --- extreme screen sizes -------------------------------------------------------------------------


def test_smart_resize_on_extreme_sizes() -> None:
    rng = random.Random(7)
    sizes = [(1, 1), (1, 200), (200, 1), (actions.MAX_SIDE, actions.MAX_SIDE), (actions.MAX_SIDE, 500), (28, 28), (27, 29)]
    while len(sizes) < 200:
        h, w = rng.randint(1, actions.MAX_SIDE), rng.randint(1, actions.MAX_SIDE)
        if max(h, w) <= 200 * min(h, w):
            sizes.append((h, w))
    for h, w in sizes:
        for factor in (1, 28, 1000):
            rh, rw = actions.smart_resize(h, w, factor)
            assert rh > 0 and rw > 0 and rh % factor == 0 and rw % factor == 0, (h, w, factor)


@pytest.mark.parametrize(
    "args, message",
    [
        ((10**400, 10**400), "height must be a positive integer up to 100000"),
        ((100, actions.MAX_SIDE + 1), "width must be a positive integer up to 100000"),
        ((0, 5), "height must be a positive integer"),
        ((100, 100, 10**400), "factor must be a positive integer"),
        ((100, 100, 28, 10**400, 10**401), "min_pixels must be a positive integer"),
        ((100, 100, 28, 5000, 4000), "min_pixels 5000 is above max_pixels 4000"),
        ((1, 201), "aspect ratio"),
    ],
    ids=["huge", "over-max-side", "zero", "huge-factor", "huge-pixels", "min-above-max", "ratio"],
)
def test_smart_resize_refuses_bad_sizes(args: Any, message: str) -> None:
    with pytest.raises(ActionError, match=message):
        actions.smart_resize(*args)


@pytest.mark.parametrize("screen", [(1, 1), (3, 5000), (5000, 3), (1, actions.MAX_SIDE), (actions.MAX_SIDE, actions.MAX_SIDE)])
def test_frames_on_extreme_screens(screen: Any) -> None:
    width, height = screen
    corner = {"type": "tap", "x": width - 1, "y": height - 1}
    for fmt in actions.FORMATS:
        rendered = actions.render(corner, fmt, screen=screen, coords="pixel")
        assert actions.parse_steps(rendered, fmt, screen=screen, coords="pixel") == [corner]
        for coords in ("norm1000", "norm1"):
            assert actions.parse_steps(actions.render(corner, fmt, screen=screen, coords=coords), fmt, screen=screen, coords=coords)
    if max(screen) > 200 * min(screen):
        with pytest.raises(ActionError, match=f"the {width}x{height} screen has no resized frame .*give image_size"):
            actions.parse(corner, screen=screen, coords="resized")
    else:
        assert actions.parse({"type": "tap", "x": 0, "y": 0}, screen=screen, coords="resized") == {"type": "tap", "x": 0, "y": 0}


@pytest.mark.parametrize("screen", [(0, 10), (10**400, 10), (actions.MAX_SIDE + 1, 10), (10, -1)], ids=["zero", "huge", "over", "negative"])
def test_bad_screens_are_action_errors(screen: Any) -> None:
    with pytest.raises(ActionError, match="screen must be \\(width, height\\) in positive integers up to 100000"):
        actions.parse({"type": "tap", "x": 0, "y": 0}, screen=screen)
    with pytest.raises(ActionError, match="image_size must be"):
        actions.parse({"type": "tap", "x": 0, "y": 0}, coords="resized", image_size=screen)
