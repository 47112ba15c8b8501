"""Action formats of phone-use models, read into PhoneWorld's canonical action and written back.

The canonical action is a dict in device pixels, the same JSON the Rust core and `steps.jsonl` use:
``{"type": "tap", "x": 540, "y": 1200}``, ``double_tap``, ``long_press`` (x, y, ms), ``swipe`` (a fling:
x1, y1, x2, y2, ms), ``drag`` (x1, y1, x2, y2, ms), ``type_text`` (text, clear), ``key`` (back, home, enter,
recents, delete, menu), ``open_app`` / ``close_app`` (app), ``wait`` (ms), ``answer`` (text) and ``finish``
(status success or infeasible, text).

`parse_steps` reads a model's output (a string or a dict) in one of `FORMATS`, detected or named, into
one or more canonical actions; `parse` is the same for outputs that are exactly one action. `render`
writes a canonical action the way a model of a format should have written it (for fine-tuning data), and
`render_steps` writes a list that one model output stands for (such as AndroidWorld's ``input_text``,
which taps, types and presses Enter). Every problem with the input raises `ActionError` naming the format,
the function and the field, also input beyond the limits: a model output (a string) of more than
`MAX_OUTPUT_CHARS` (100,000) characters, a text of more than `MAX_TEXT_CHARS` (10,000, the phone's own
limit), a duration over `MAX_MS` (an hour), a screen or image side over `MAX_SIDE` pixels. `render` raises
it for an output the readers would refuse, so what it writes always reads back.

The coordinate frame is explicit (`COORDS`): ``pixel`` (device pixels), ``norm1000`` (0-1000 on both
axes), ``norm1`` (0-1) or ``resized`` (pixels of the image the model saw, `image_size`, by default
`smart_resize` of the screen as Qwen2.5-VL's processor resizes it). Each format has its own default frame.

What each format covers (``render`` raises `ActionError` for what a format cannot express at all; with
``strict=True``, the default, also for detail it would lose, such as a duration it has no field for):

- ``canonical`` (pixel): every action, as a dict or its JSON.
- ``androidworld`` (pixel): AndroidWorld's JSONAction. click, double_tap and long_press at x, y or at an
  ``index`` into `ui_elements` (the element's bbox center, which must be on the screen); input_text taps its target when it has one,
  types (``clear_text``) and presses Enter, as AndroidWorld's actuation does, so it is two or three
  canonical actions; keyboard_enter, navigate_home, navigate_back; scroll moves the content toward
  ``direction`` ("down" shows what is below: the finger moves up from the center of the screen or of the
  element to its edge); swipe runs edge to edge through the middle in AndroidWorld's own geometry
  ("up" and "down" move the finger that way, "left" starts at the left edge and "right" at the right);
  scroll or swipe with x, y, x2, y2 (and duration) is a literal finger path, as PhoneBuddy's AndroidWorld
  server runs it; open_app, wait (one second), status (complete or infeasible) and answer. It has no
  drag, close_app, recents, delete or menu key, and no typing without Enter.
- ``phonebuddy`` (norm1000): ``<tool_call>`` blocks as in PhoneBuddy's public AndroidWorld evaluation
  script, with the argument names of its prompt: click, double_click, long_press (duration ms) with
  ``points`` [[x, y]]; type (text; with points it taps there first); scroll and drag with two points
  (scroll with one point or none and a ``direction`` moves the finger that way by half the screen, as
  the script reads a bare direction); button_press (``type``: back, home, menu, enter); open_app and
  close_app (``package``; ``app`` and ``app_name`` are read too); wait (``time`` ms); output (an answer);
  finish (text). Several blocks are several actions; text around them (thinking) is ignored. Every
  canonical action is expressible, with three extensions of the published prompt: type's ``clear``,
  button_press recents and delete, and finish's ``status`` infeasible.
- ``qwen25vl`` (resized): Qwen2.5-VL's ``mobile_use`` tool: click, long_press (time in seconds), swipe
  (coordinate to coordinate2), type, key (adb keyevent names: app_switch, del, ...), system_button
  (Back, Home, Menu, Enter), open, wait (seconds), terminate (success or failure), and answer (text), an
  extension AndroidWorld agents use. It has no double tap, drag or close_app.
- ``uitars`` (norm1000; ``coords="resized"`` for UI-TARS-1.5): ``Thought: ...\nAction: ...`` calls with
  points as ``'<|box_start|>(x,y)<|box_end|>'``, ``'(x,y)'``, boxes ``(x1,y1,x2,y2)`` (their center) or
  1.5's ``'<point>x y</point>'``: click, left_double, long_press, type (content ending in a newline also
  presses Enter), scroll (start_box with a direction that moves the view, "down" showing what is below,
  the finger moving half the screen; or an end_box), drag, open_app, press_home, press_back, hotkey,
  wait (five seconds; ``wait(seconds=...)`` otherwise), finished (finish success with its content) and
  call_user (finish infeasible). It has no answer (answers go in finished's content) and no close_app.
  The calls follow the first 'Action:' that starts a line (not one inside a typed text); a model may
  label each call with its own.

>>> from phoneworld import actions
>>> actions.parse('<think>...</think><tool_call>{"name": "click", "arguments": {"points": [[500, 250]]}}</tool_call>')
{'type': 'tap', 'x': 540, 'y': 600}
>>> actions.detect("Thought: open it\\nAction: click(start_box='(500,250)')")
'uitars'
>>> actions.render({"type": "tap", "x": 540, "y": 600}, "uitars")
"Action: click(start_box='<|box_start|>(500,250)<|box_end|>')"
>>> actions.parse_steps({"action_type": "input_text", "text": "hi", "x": 10, "y": 20})
[{'type': 'tap', 'x': 10, 'y': 20}, {'type': 'type_text', 'text': 'hi', 'clear': False}, {'type': 'key', 'key': 'enter'}]
>>> actions.render({"type": "swipe", "x1": 540, "y1": 1800, "x2": 540, "y2": 600, "ms": 300}, "qwen25vl")
'<tool_call>\\n{"name": "mobile_use", "arguments": {"action": "swipe", "coordinate": [546, 1806], "coordinate2": [546, 602]}}\\n</tool_call>'
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._core import ActionError

__all__ = [
    "COORDS",
    "FORMATS",
    "KEYS",
    "canonical",
    "default_coords",
    "detect",
    "parse",
    "parse_steps",
    "render",
    "render_steps",
    "smart_resize",
    "system_prompt",
    "tool_schema",
]

FORMATS = ("canonical", "androidworld", "phonebuddy", "qwen25vl", "uitars")
COORDS = ("pixel", "norm1000", "norm1", "resized")
KEYS = ("back", "home", "enter", "recents", "delete", "menu")
FINISH_STATUSES = ("success", "infeasible")

Action = Dict[str, Any]
Size = Tuple[int, int]

#: The frame each format's coordinates are in unless `coords` says otherwise.
_DEFAULT_COORDS = {
    "canonical": "pixel",
    "androidworld": "pixel",
    "phonebuddy": "norm1000",
    "qwen25vl": "resized",
    "uitars": "norm1000",
}

# Durations the canonical action defaults to (the same defaults as the Rust `Action`).
LONG_PRESS_MS = 800
SWIPE_MS = 300
DRAG_MS = 800
#: The longest duration any action may ask for; longer ones are surely a unit mistake. (Within the
#: engine's own limit, MAX_ACTION_MS, a day.)
MAX_MS = 3_600_000
#: The longest text an action may carry (type_text, answer, finish, app names), in characters: the
#: engine's MAX_ACTION_TEXT_CHARS, so what parses is also what the phone takes.
MAX_TEXT_CHARS = 10_000
#: The longest model output (a string) the readers take, in characters. It bounds their work on
#: hostile input; the rendering of any one action, escapes and all, stays well within it.
MAX_OUTPUT_CHARS = 100_000
#: The largest screen or image side, in pixels: no real one comes near, and below it every coordinate
#: and pixel count is exact in floats.
MAX_SIDE = 100_000

# Qwen2.5-VL's image processor limits (qwen_vl_utils): 4 and 16384 patches of 28x28.
QWEN_FACTOR = 28
QWEN_MIN_PIXELS = 4 * 28 * 28
QWEN_MAX_PIXELS = 16384 * 28 * 28
_MAX_RATIO = 200

# UI-TARS's `wait()` sleeps five seconds (its action-space comment); AndroidWorld's `wait` one second.
_UITARS_WAIT_MS = 5000
_ANDROIDWORLD_WAIT_MS = 1000
# AndroidWorld's direction swipe lasts 500 ms; its scroll uses adb's default (300 ms, the canonical default).
_ANDROIDWORLD_SWIPE_MS = 500

_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_DIRECTIONS = ("up", "down", "left", "right")

_CANONICAL_FIELDS: Dict[str, Tuple[str, ...]] = {
    "tap": ("x", "y"),
    "double_tap": ("x", "y"),
    "long_press": ("x", "y", "ms"),
    "swipe": ("x1", "y1", "x2", "y2", "ms"),
    "drag": ("x1", "y1", "x2", "y2", "ms"),
    "type_text": ("text", "clear"),
    "key": ("key",),
    "open_app": ("app",),
    "close_app": ("app",),
    "wait": ("ms",),
    "answer": ("text",),
    "finish": ("status", "text"),
}
_MS_DEFAULTS = {"long_press": LONG_PRESS_MS, "swipe": SWIPE_MS, "drag": DRAG_MS}


# --- small readers --------------------------------------------------------------------------------


def _show(value: object, limit: int = 60) -> str:
    """A short repr of bad input for messages."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        # An int over Python's 4300-digit conversion limit (or nested in the value), or a value too deep.
        return f"<an integer of {value.bit_length()} bits>" if isinstance(value, int) else f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _round(value: float) -> int:
    """Rounds half up, the same on every platform (Python's round() rounds half to even)."""
    return int(math.floor(value + 0.5))


def _number(value: object, where: str, *, lenient: bool = True) -> float:
    if isinstance(value, bool):
        raise ActionError(f"{where} must be a number, not {_show(value)}")
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            raise ActionError(f"{where}: {_show(value)} is too large") from None
    elif isinstance(value, str) and lenient:
        try:
            number = float(value.strip())
        except ValueError:
            raise ActionError(f"{where} must be a number, not {_show(value)}") from None
    else:
        raise ActionError(f"{where} must be a number, not {_show(value)}")
    if not math.isfinite(number):
        raise ActionError(f"{where} must be a finite number, not {_show(value)}")
    return number


def _ms(value: object, where: str, *, scale: float = 1.0, lenient: bool = True) -> int:
    """A duration in ms (`scale` 1000 reads seconds)."""
    scaled = _number(value, where, lenient=lenient) * scale
    # A finite number can still overflow once scaled (1e308 seconds); that is out of range, not a crash.
    if not math.isfinite(scaled):
        raise ActionError(f"{where}: {_show(value)} is not a duration within 0..{MAX_MS} ms")
    ms = _round(scaled)
    if not 0 <= ms <= MAX_MS:
        raise ActionError(f"{where}: {_show(ms)} ms outside 0..{MAX_MS}")
    return ms


def _text(value: object, where: str, *, empty: bool = True) -> str:
    if not isinstance(value, str):
        raise ActionError(f"{where} must be a string, not {_show(value)}")
    if not empty and not value.strip():
        raise ActionError(f"{where} must not be empty")
    if len(value) > MAX_TEXT_CHARS:
        raise ActionError(f"{where}: a text of {len(value)} characters is longer than the limit of {MAX_TEXT_CHARS}")
    return value


def _bounded(text: str, where: str) -> str:
    """A model output within MAX_OUTPUT_CHARS, before any reader looks at it."""
    if len(text) > MAX_OUTPUT_CHARS:
        raise ActionError(f"{where}: an output of {len(text)} characters is longer than the limit of {MAX_OUTPUT_CHARS}")
    return text


def _midpoint(a: float, b: float) -> float:
    """(a + b) / 2 without the sum overflowing to infinity (the same number otherwise)."""
    return a / 2 + b / 2


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise ActionError(f"{where} must be true or false, not {_show(value)}")
    return value


def _load_json(text: str, where: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        raise ActionError(f"{where} is not JSON ({err}): {_show(text)}") from None


def _load_json_lenient(text: str, where: str) -> object:
    """JSON as models write it: surrounding noise, smart quotes and trailing commas are forgiven."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        text = text[start : end + 1]
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'")
    text = re.sub(r",\s*([}\]])", r"\1", text)
    return _load_json(text, where)


def _mapping(value: object, where: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise ActionError(f"{where} must be a JSON object, not {_show(value)}")
    for key in value:
        if not isinstance(key, str):
            raise ActionError(f"{where} has a non-string key {_show(key)}")
    return value


def _size(value: object, name: str) -> Size:
    if (
        not isinstance(value, (tuple, list))
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_SIDE for v in value)
    ):
        raise ActionError(f"{name} must be (width, height) in positive integers up to {MAX_SIDE}, not {_show(value)}")
    return (int(value[0]), int(value[1]))


# --- coordinate frames ----------------------------------------------------------------------------


def smart_resize(
    height: int,
    width: int,
    factor: int = QWEN_FACTOR,
    min_pixels: int = QWEN_MIN_PIXELS,
    max_pixels: int = QWEN_MAX_PIXELS,
) -> Tuple[int, int]:
    """The (height, width) Qwen2.5-VL's processor resizes an image to: both multiples of `factor`,
    the pixel count within [min_pixels, max_pixels], the aspect ratio kept as closely as possible.

    >>> smart_resize(2400, 1080)
    (2408, 1092)
    >>> smart_resize(600, 270)
    (588, 280)
    """
    # Bounded so that every division below stays finite and exact enough (a side of 10**400 would
    # overflow a float); min_pixels above max_pixels has no answer.
    for name, value, high in (
        ("height", height, MAX_SIDE),
        ("width", width, MAX_SIDE),
        ("factor", factor, MAX_SIDE),
        ("min_pixels", min_pixels, MAX_SIDE**2),
        ("max_pixels", max_pixels, MAX_SIDE**2),
    ):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= high:
            raise ActionError(f"smart_resize: {name} must be a positive integer up to {high}, not {_show(value)}")
    if min_pixels > max_pixels:
        raise ActionError(f"smart_resize: min_pixels {min_pixels} is above max_pixels {max_pixels}")
    if max(height, width) / min(height, width) > _MAX_RATIO:
        raise ActionError(f"smart_resize: aspect ratio of {width}x{height} is above {_MAX_RATIO}")
    h_bar = max(factor, _round(height / factor) * factor)
    w_bar = max(factor, _round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def default_coords(fmt: str) -> str:
    """The coordinate frame a format uses unless told otherwise.

    >>> default_coords("phonebuddy"), default_coords("qwen25vl")
    ('norm1000', 'resized')
    """
    _check_format(fmt, auto=False)
    return _DEFAULT_COORDS[fmt]


@dataclass(frozen=True)
class _Frame:
    """Converts between one coordinate frame and device pixels."""

    fmt: str
    coords: str
    screen: Size
    image: Size

    def extent(self, axis: int) -> float:
        if self.coords == "pixel":
            return float(self.screen[axis])
        if self.coords == "norm1000":
            return 1000.0
        if self.coords == "norm1":
            return 1.0
        return float(self.image[axis])

    def to_px(self, value: object, axis: int, where: str, *, lenient: bool = True) -> int:
        name = "xy"[axis]
        number = _number(value, f"{where}: {name}", lenient=lenient)
        high = self.extent(axis)
        if not 0 <= number <= high:
            raise ActionError(f"{where}: {name} coordinate {_plain(number)} outside 0..{_plain(high)} ({self.coords} frame)")
        pixels = number if self.coords == "pixel" else number * self.screen[axis] / high
        return min(max(_round(pixels), 0), self.screen[axis] - 1)

    def point(self, x: object, y: object, where: str, *, lenient: bool = True) -> Tuple[int, int]:
        return self.to_px(x, 0, where, lenient=lenient), self.to_px(y, 1, where, lenient=lenient)

    def from_px(self, pixels: int, axis: int) -> Union[int, float]:
        if self.coords == "pixel":
            return pixels
        if self.coords == "norm1":
            return round(pixels / self.screen[axis], 4)
        high = self.extent(axis)
        return min(_round(pixels * high / self.screen[axis]), int(high))

    def out(self, x: int, y: int) -> List[Union[int, float]]:
        return [self.from_px(x, 0), self.from_px(y, 1)]


def _plain(number: float) -> str:
    # Whole numbers in full up to 15 digits (exact in a float); 1e308 stays short.
    return str(int(number)) if abs(number) < 1e15 and number == int(number) else f"{number:g}"


def _frame(fmt: str, screen: object, coords: Optional[str], image_size: object) -> _Frame:
    size = _size(screen, "screen")
    if coords is None:
        coords = _DEFAULT_COORDS[fmt]
    if coords not in COORDS:
        raise ActionError(f"coords must be one of {', '.join(COORDS)}, not {_show(coords)}")
    if image_size is not None:
        image = _size(image_size, "image_size")
    elif coords == "resized":
        image = _resized(size)
    else:
        image = size  # only the resized frame uses the image size (a 3x5000 screen has none)
    return _Frame(fmt, coords, size, image)


def _resized(screen: Size) -> Size:
    """The (width, height) Qwen2.5-VL's processor resizes a screenshot of the screen to."""
    try:
        height, width = smart_resize(screen[1], screen[0])
    except ActionError as err:
        raise ActionError(f"the {screen[0]}x{screen[1]} screen has no resized frame ({err}); give image_size") from None
    return (width, height)


def _check_format(fmt: object, *, auto: bool) -> str:
    allowed = (("auto",) if auto else ()) + FORMATS
    if fmt not in allowed:
        raise ActionError(f"format must be one of {', '.join(allowed)}, not {_show(fmt)}")
    return str(fmt)


# --- canonical actions ----------------------------------------------------------------------------


def _make(kind: str, **fields: Any) -> Action:
    """A canonical action with every field, in the Rust field order."""
    action: Action = {"type": kind}
    for name in _CANONICAL_FIELDS[kind]:
        action[name] = fields[name]
    return action


def _tap(kind: str, point: Tuple[int, int], ms: Optional[int] = None) -> Action:
    if kind == "long_press":
        return _make(kind, x=point[0], y=point[1], ms=LONG_PRESS_MS if ms is None else ms)
    return _make(kind, x=point[0], y=point[1])


def _gesture(kind: str, start: Tuple[int, int], end: Tuple[int, int], ms: Optional[int] = None) -> Action:
    return _make(kind, x1=start[0], y1=start[1], x2=end[0], y2=end[1], ms=_MS_DEFAULTS[kind] if ms is None else ms)


def _key(key: str) -> Action:
    return _make("key", key=key)


def _read_canonical(value: Dict[str, Any], frame: _Frame, where: str) -> Action:
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _CANONICAL_FIELDS:
        raise ActionError(f"{where}: type must be one of {', '.join(_CANONICAL_FIELDS)}, not {_show(kind)}")
    fields = _CANONICAL_FIELDS[kind]
    unknown = sorted(k for k in value if k != "type" and k not in fields)
    if unknown:
        raise ActionError(f"{where}: {kind} has no field {', '.join(map(repr, unknown))} (fields: {', '.join(fields)})")
    here = f"{where}: {kind}"

    def need(name: str) -> Any:
        if name not in value:
            raise ActionError(f"{here}: missing field {name!r}")
        return value[name]

    if kind in ("tap", "double_tap", "long_press"):
        point = frame.point(need("x"), need("y"), here, lenient=False)
        ms = _ms(value["ms"], f"{here}: ms", lenient=False) if "ms" in value else None
        return _tap(kind, point, ms)
    if kind in ("swipe", "drag"):
        start = frame.point(need("x1"), need("y1"), here, lenient=False)
        end = frame.point(need("x2"), need("y2"), here, lenient=False)
        ms = _ms(value["ms"], f"{here}: ms", lenient=False) if "ms" in value else None
        return _gesture(kind, start, end, ms)
    if kind == "type_text":
        clear = _bool(value["clear"], f"{here}: clear") if "clear" in value else False
        return _make(kind, text=_text(need("text"), f"{here}: text"), clear=clear)
    if kind == "key":
        key = need("key")
        if key not in KEYS:
            raise ActionError(f"{here}: key must be one of {', '.join(KEYS)}, not {_show(key)}")
        return _key(key)
    if kind in ("open_app", "close_app"):
        return _make(kind, app=_text(need("app"), f"{here}: app", empty=False))
    if kind == "wait":
        return _make(kind, ms=_ms(need("ms"), f"{here}: ms", lenient=False))
    if kind == "answer":
        return _make(kind, text=_text(need("text"), f"{here}: text"))
    status = need("status")
    if status not in FINISH_STATUSES:
        raise ActionError(f"{here}: status must be success or infeasible, not {_show(status)}")
    text = _text(value["text"], f"{here}: text") if "text" in value else ""
    return _make(kind, status=status, text=text)


def canonical(action: object, *, screen: Size = (1080, 2400)) -> Action:
    """Checks a canonical action (a dict or its JSON) and returns it complete: every field present,
    defaults filled in, coordinates rounded to whole device pixels within the screen.

    >>> canonical({"type": "long_press", "x": 94.5, "y": 714.5})
    {'type': 'long_press', 'x': 95, 'y': 715, 'ms': 800}
    """
    return parse(action, "canonical", screen=screen)


# --- detection ------------------------------------------------------------------------------------

# The 'Action:' label at the start of a line (a regex that cannot backtrack more than a line's indent).
_ACTION_LINE = re.compile(r"^[^\S\n]*Action:", re.MULTILINE)
_CALL_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _detect_dict(value: Dict[Any, Any]) -> str:
    if "type" in value:
        return "canonical"
    if "action_type" in value:
        return "androidworld"
    if "name" in value and "arguments" in value:
        return "qwen25vl" if value.get("name") == "mobile_use" else "phonebuddy"
    if "action" in value:
        return "qwen25vl"
    raise ActionError(
        f"cannot tell the format of {_show(value)}: expected a canonical 'type', an AndroidWorld 'action_type', "
        "a tool call with 'name' and 'arguments', or mobile_use arguments with 'action'"
    )


def _tag_spans(text: str, opening: str, closing: str) -> List[Tuple[int, int]]:
    """(start, end) of each opening...closing block, the shortest from the left, as a lazy regex finds
    them. str.find makes it one pass: the first opening tag without a closing one ends the search, so
    many unclosed tags cost no more than one (a backtracking regex retries from each)."""
    spans: List[Tuple[int, int]] = []
    pos = 0
    while True:
        start = text.find(opening, pos)
        if start == -1:
            return spans
        end = text.find(closing, start + len(opening))
        if end == -1:
            return spans
        pos = end + len(closing)
        spans.append((start, pos))


def _without_thinking(text: str) -> str:
    """The text less its <think>...</think> blocks (an unclosed one stays)."""
    parts, pos = [], 0
    for start, end in _tag_spans(text, "<think>", "</think>"):
        parts.append(text[pos:start])
        pos = end
    return "".join(parts) + text[pos:]


def _tool_call_texts(text: str) -> List[str]:
    """The JSON of each <tool_call> block; thinking is dropped first so its examples do not count."""
    for source in (_without_thinking(text), text):
        spans = _tag_spans(source, "<tool_call>", "</tool_call>")
        if spans:
            return [source[start + len("<tool_call>") : end - len("</tool_call>")].strip() for start, end in spans]
        opening = source.find("<tool_call>")
        if opening != -1:
            # Models sometimes stop before the closing tag.
            return [source[opening + len("<tool_call>") :].strip()]
    return []


def _after_action_label(text: str) -> Optional[str]:
    """What follows the output's 'Action:' label: the first that starts a line, else the first at all.
    Not the last: a typed text or a finish content may hold 'Action:' too, and it comes after the
    label (quoted values cannot start a line before it: the label is the first)."""
    match = _ACTION_LINE.search(text)
    if match:
        return text[match.end() :]
    index = text.find("Action:")
    return None if index == -1 else text[index + len("Action:") :]


def _json_after_action(text: str) -> Optional[str]:
    """The JSON object of an 'Action: {...}' line (how AndroidWorld's M3A and T3A agents answer)."""
    after = _after_action_label(text)
    if after is None:
        return None
    rest = after.strip()
    return rest if rest.startswith("{") else None


def detect(action: object) -> str:
    """Which of `FORMATS` a model output is in.

    >>> detect({"action_type": "click", "x": 1, "y": 2})
    'androidworld'
    >>> detect('<tool_call>{"name": "mobile_use", "arguments": {"action": "wait", "time": 1}}</tool_call>')
    'qwen25vl'
    """
    if isinstance(action, dict):
        return _detect_dict(action)
    if not isinstance(action, str):
        raise ActionError(f"an action must be a str or dict, not {type(action).__name__}")
    text = _bounded(action, "action").strip()
    if not text:
        raise ActionError("empty action")
    if "<tool_call>" in text:
        blocks = _tool_call_texts(text)
        try:
            value = _load_json_lenient(blocks[0], "tool call 1") if blocks else None
        except ActionError:
            value = None  # the PhoneBuddy reader reports what is wrong with it
        if isinstance(value, dict) and value.get("name") == "mobile_use":
            return "qwen25vl"
        return "phonebuddy"
    if text.startswith("{"):
        return _detect_dict(_mapping(_load_json(text, "action"), "action"))
    after = _json_after_action(text)
    if after is not None:
        return _detect_dict(_mapping(_load_json_lenient(after, "action"), "action"))
    if "Action:" in text or _CALL_NAME.match(text):
        return "uitars"
    raise ActionError(
        f"cannot tell the format of {_show(text)}: expected canonical or AndroidWorld JSON, "
        "<tool_call> blocks, or UI-TARS 'Action: name(...)'"
    )


# --- parsing --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Context:
    fmt: str
    frame: _Frame
    ui_elements: Optional[Sequence[Dict[str, Any]]]


def parse_steps(
    action: object,
    fmt: str = "auto",
    *,
    screen: Size = (1080, 2400),
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    ui_elements: Optional[Sequence[Dict[str, Any]]] = None,
) -> List[Action]:
    """A model's output as the canonical actions it stands for, in order (one, or more for outputs such
    as AndroidWorld's ``input_text`` at a target or several ``<tool_call>`` blocks).

    >>> parse_steps("Action: type(content='milk\\\\n')")
    [{'type': 'type_text', 'text': 'milk', 'clear': False}, {'type': 'key', 'key': 'enter'}]
    """
    fmt = _check_format(fmt, auto=True)
    if isinstance(action, str) and fmt != "auto":
        _bounded(action, fmt)  # detect bounds it for auto
    if fmt == "auto":
        fmt = detect(action)
    frame = _frame(fmt, screen, coords, image_size)
    if ui_elements is not None and not isinstance(ui_elements, (list, tuple)):
        raise ActionError(f"ui_elements must be a list of UI element dicts, not {type(ui_elements).__name__}")
    context = _Context(fmt, frame, ui_elements)
    steps = _PARSERS[fmt](action, context)
    if not steps:
        raise ActionError(f"{fmt}: no action in {_show(action)}")
    return steps


def parse(
    action: object,
    fmt: str = "auto",
    *,
    screen: Size = (1080, 2400),
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    ui_elements: Optional[Sequence[Dict[str, Any]]] = None,
) -> Action:
    """A model's output as one canonical action in device pixels (integers).

    >>> parse({"action_type": "scroll", "direction": "down"})
    {'type': 'swipe', 'x1': 540, 'y1': 1200, 'x2': 540, 'y2': 0, 'ms': 300}
    """
    steps = parse_steps(action, fmt, screen=screen, coords=coords, image_size=image_size, ui_elements=ui_elements)
    if len(steps) != 1:
        kinds = ", ".join(s["type"] for s in steps)
        raise ActionError(f"{_show(action)} is {len(steps)} canonical actions ({kinds}); use parse_steps for outputs of several actions")
    return steps[0]


def _as_object(action: object, fmt: str) -> Dict[str, Any]:
    """A dict, a JSON object string, or an 'Action: {...}' line."""
    if isinstance(action, dict):
        return _mapping(action, fmt)
    if not isinstance(action, str):
        raise ActionError(f"{fmt}: an action must be a str or dict, not {type(action).__name__}")
    text = action.strip()
    if text.startswith("{"):
        return _mapping(_load_json(text, fmt), fmt)
    after = _json_after_action(text)
    if after is not None:
        return _mapping(_load_json_lenient(after, fmt), fmt)
    raise ActionError(f"{fmt}: expected a JSON object, got {_show(text)}")


def _parse_canonical(action: object, context: _Context) -> List[Action]:
    return [_read_canonical(_as_object(action, "canonical"), context.frame, "canonical")]


# AndroidWorld JSONAction ---------------------------------------------------------------------------

_ANDROIDWORLD_TYPES = (
    "click",
    "double_tap",
    "long_press",
    "input_text",
    "keyboard_enter",
    "navigate_home",
    "navigate_back",
    "scroll",
    "swipe",
    "open_app",
    "wait",
    "status",
    "answer",
)


# An index as text: ASCII digits only (int() refuses '--5' and '²', which isdigit() lets through) and
# few enough for int() (Python refuses over 4300 digits; no screen has 10**18 elements).
_INDEX = re.compile(r"-?[0-9]{1,18}")


def _index(value: object, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INDEX.fullmatch(value.strip()):
        return int(value.strip())
    raise ActionError(f"{where}: index must be an integer, not {_show(value)}")


def _element_box(context: _Context, index: int, where: str) -> Tuple[float, float, float, float]:
    elements = context.ui_elements
    if elements is None:
        raise ActionError(f"{where}: index {_show(index)} needs the screen's ui_elements")
    if not 0 <= index < len(elements):
        raise ActionError(f"{where}: index {_show(index)} outside 0..{len(elements) - 1} (the screen has {len(elements)} UI elements)")
    element = elements[index]
    box = element.get("bbox_pixels") if isinstance(element, dict) else None
    if not isinstance(box, dict):
        raise ActionError(f"{where}: UI element {index} has no bbox_pixels")
    edges = tuple(
        _number(box.get(k), f"{where}: UI element {index} bbox_pixels.{k}", lenient=False) for k in ("x_min", "y_min", "x_max", "y_max")
    )
    return edges[0], edges[1], edges[2], edges[3]


def _androidworld_target(value: Dict[str, Any], context: _Context, where: str, *, required: bool) -> Optional[Tuple[int, int]]:
    has_index = value.get("index") is not None
    has_xy = value.get("x") is not None or value.get("y") is not None
    if has_index and has_xy:
        raise ActionError(f"{where}: give either an index or x and y, not both")
    if has_index:
        index = _index(value["index"], where)
        return _box_center(_element_box(context, index, where), context.frame.screen, f"{where}: UI element {index}")
    if has_xy:
        if value.get("x") is None or value.get("y") is None:
            raise ActionError(f"{where}: needs both x and y")
        return context.frame.point(value["x"], value["y"], where)
    if required:
        raise ActionError(f"{where}: needs an index or x and y")
    return None


def _box_center(box: Tuple[float, float, float, float], screen: Size, where: str) -> Tuple[int, int]:
    """Where AndroidWorld taps an element: int() of its bbox center, which must be on the screen like
    any other coordinate (edges of 1e308 are finite, but their sum is not)."""
    x, y = _midpoint(box[0], box[2]), _midpoint(box[1], box[3])
    width, height = screen
    if not (0 <= x <= width and 0 <= y <= height):
        raise ActionError(f"{where}: the center ({_plain(x)}, {_plain(y)}) of its bbox_pixels is outside the {width}x{height} screen")
    return min(int(math.floor(x)), width - 1), min(int(math.floor(y)), height - 1)


def _androidworld_direction(value: Dict[str, Any], where: str) -> str:
    direction = value.get("direction")
    if direction not in _DIRECTIONS:
        raise ActionError(f"{where}: direction must be one of up, down, left, right, not {_show(direction)}")
    return str(direction)


def _androidworld_scroll(box: Tuple[float, float, float, float], direction: str, screen: Size) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    """AndroidWorld's scroll: from the box center to its edge, moving the content toward `direction`
    (scrolling "down" reveals what is below, so the finger moves up)."""
    width, height = screen
    x_min, y_min = max(box[0], 0.0), max(box[1], 0.0)
    x_max, y_max = min(box[2], float(width)), min(box[3], float(height))
    cx, cy = math.floor((x_min + x_max) / 2), math.floor((y_min + y_max) / 2)
    end = {"down": (cx, y_min), "up": (cx, y_max), "right": (x_min, cy), "left": (x_max, cy)}[direction]
    return _clamp((cx, cy), screen), _clamp(end, screen)


def _androidworld_swipe(direction: str, screen: Size) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    """AndroidWorld's direction swipe, edge to edge through the middle. Its horizontal cases are the
    mirror of the vertical ones: "left" starts at the left edge and ends at the right one."""
    width, height = screen
    mid_x, mid_y = 0.5 * width, 0.5 * height
    start, end = {
        "down": ((mid_x, 0.0), (mid_x, float(height))),
        "up": ((mid_x, float(height)), (mid_x, 0.0)),
        "left": ((0.0, mid_y), (float(width), mid_y)),
        "right": ((float(width), mid_y), (0.0, mid_y)),
    }[direction]
    return _clamp(start, screen), _clamp(end, screen)


def _clamp(point: Tuple[float, float], screen: Size) -> Tuple[int, int]:
    return (min(max(int(point[0]), 0), screen[0] - 1), min(max(int(point[1]), 0), screen[1] - 1))


def _parse_androidworld(action: object, context: _Context) -> List[Action]:
    value = _as_object(action, "androidworld")
    kind = value.get("action_type")
    if kind == "unknown":
        raise ActionError("androidworld: action_type 'unknown' is no action")
    if kind not in _ANDROIDWORLD_TYPES:
        raise ActionError(f"androidworld: action_type must be one of {', '.join(_ANDROIDWORLD_TYPES)}, not {_show(kind)}")
    where = f"androidworld: {kind}"
    frame = context.frame
    if kind in ("click", "double_tap", "long_press"):
        point = _androidworld_target(value, context, where, required=True)
        assert point is not None
        return [_tap({"click": "tap"}.get(kind, kind), point)]
    if kind == "input_text":
        text = _text(value.get("text"), f"{where}: text", empty=False)
        clear = value.get("clear_text")
        clear = False if clear is None else _bool(clear, f"{where}: clear_text")
        target = _androidworld_target(value, context, where, required=False)
        # AndroidWorld taps the field first when given one, and presses Enter after typing.
        steps = [_tap("tap", target)] if target is not None else []
        return steps + [_make("type_text", text=text, clear=clear), _key("enter")]
    if kind in ("keyboard_enter", "navigate_home", "navigate_back"):
        return [_key({"keyboard_enter": "enter", "navigate_home": "home", "navigate_back": "back"}[kind])]
    if kind in ("scroll", "swipe"):
        literal = [value.get(k) for k in ("x", "y", "x2", "y2")]
        if all(v is not None for v in literal):
            # PhoneBuddy's AndroidWorld server: a literal finger path from (x, y) to (x2, y2).
            start = frame.point(literal[0], literal[1], where)
            end = frame.point(literal[2], literal[3], where)
            default = SWIPE_MS if kind == "scroll" else _ANDROIDWORLD_SWIPE_MS
            duration = value.get("duration")
            ms = default if duration is None else _ms(duration, f"{where}: duration")
            return [_gesture("swipe", start, end, ms)]
        direction = _androidworld_direction(value, where)
        if kind == "swipe":
            start, end = _androidworld_swipe(direction, frame.screen)
            return [_gesture("swipe", start, end, _ANDROIDWORLD_SWIPE_MS)]
        if value.get("index") is not None:
            box = _element_box(context, _index(value["index"], where), where)
        else:
            box = (0.0, 0.0, float(frame.screen[0]), float(frame.screen[1]))
        start, end = _androidworld_scroll(box, direction, frame.screen)
        return [_gesture("swipe", start, end, SWIPE_MS)]
    if kind == "open_app":
        return [_make("open_app", app=_text(value.get("app_name"), f"{where}: app_name", empty=False))]
    if kind == "wait":
        return [_make("wait", ms=_ANDROIDWORLD_WAIT_MS)]
    if kind == "status":
        status = value.get("goal_status")
        statuses = {"complete": "success", "infeasible": "infeasible"}
        if not isinstance(status, str) or status not in statuses:
            raise ActionError(f"{where}: goal_status must be complete or infeasible, not {_show(status)}")
        return [_make("finish", status=statuses[str(status)], text="")]
    return [_make("answer", text=_text(value.get("text"), f"{where}: text"))]


# Tool calls (PhoneBuddy and Qwen2.5-VL) -----------------------------------------------------------


def _tool_calls(action: object, fmt: str) -> List[Tuple[str, Dict[str, Any]]]:
    """(name, arguments) of each tool call in a model output, a tool-call dict or a list of them."""
    if isinstance(action, dict):
        objects: List[Tuple[object, str]] = [(action, "tool call")]
    elif isinstance(action, list):
        objects = [(item, f"tool call {i + 1}") for i, item in enumerate(action)]
    elif isinstance(action, str):
        blocks = _tool_call_texts(action)
        if not blocks:
            text = action.strip()
            if text.startswith("{"):
                blocks = [text]
            else:
                raise ActionError(f"{fmt}: no <tool_call> in {_show(action)}")
        objects = [(_load_json_lenient(b, f"{fmt}: tool call {i + 1}"), f"tool call {i + 1}") for i, b in enumerate(blocks)]
    else:
        raise ActionError(f"{fmt}: an action must be a str or dict, not {type(action).__name__}")
    calls = []
    for value, where in objects:
        call = _mapping(value, f"{fmt}: {where}")
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise ActionError(f"{fmt}: {where} has no function name")
        arguments = call.get("arguments", {})
        if isinstance(arguments, str):  # OpenAI-style calls carry the arguments as JSON text
            arguments = _load_json_lenient(_bounded(arguments, f"{fmt}: {name}: arguments"), f"{fmt}: {name}: arguments")
        if arguments is None:
            arguments = {}
        calls.append((name, _mapping(arguments, f"{fmt}: {name}: arguments")))
    return calls


def _points(args: Dict[str, Any], where: str) -> List[Tuple[object, object]]:
    """PhoneBuddy's `points` ([[x, y]] or [[x1, y1], [x2, y2]]; a flat [x, y] is one point). Like
    PhoneBuddy's script, `point`, `coordinate` and `coordinates` are read when `points` is absent."""
    key = next((k for k in ("points", "point", "coordinate", "coordinates") if args.get(k) is not None), None)
    if key is None:
        return []
    value = args[key]
    shape = f"{where}: arguments.{key} must be [[x, y]] or [[x1, y1], [x2, y2]], not {_show(value)}"
    if not isinstance(value, list) or not value:
        raise ActionError(shape)
    if all(isinstance(v, list) for v in value):
        if not all(len(v) == 2 for v in value) or len(value) > 2:
            raise ActionError(shape)
        return [(v[0], v[1]) for v in value]
    if len(value) == 2:
        return [(value[0], value[1])]
    raise ActionError(shape)


def _finger_fling(start: Tuple[int, int], finger: str, screen: Size) -> Tuple[int, int]:
    """Where a finger moving half the screen toward `finger` from `start` lifts (clamped to the screen)."""
    width, height = screen
    dx = {"left": -(width // 2), "right": width // 2}.get(finger, 0)
    dy = {"up": -(height // 2), "down": height // 2}.get(finger, 0)
    return (min(max(start[0] + dx, 0), width - 1), min(max(start[1] + dy, 0), height - 1))


def _center(screen: Size) -> Tuple[int, int]:
    return screen[0] // 2, screen[1] // 2


_PHONEBUDDY_FUNCTIONS = (
    "click",
    "double_click",
    "long_press",
    "type",
    "scroll",
    "swipe",
    "drag",
    "button_press",
    "open_app",
    "close_app",
    "wait",
    "output",
    "answer",
    "finish",
)
_KEY_NAMES = {
    "back": "back",
    "home": "home",
    "enter": "enter",
    "menu": "menu",
    "recents": "recents",
    "recent": "recents",
    "app_switch": "recents",
    "delete": "delete",
    "del": "delete",
    "backspace": "delete",
}


def _key_name(value: object, where: str) -> str:
    if isinstance(value, str):
        name = value.strip().lower()
        if name.startswith("keycode_"):
            name = name[len("keycode_") :]
        if name in _KEY_NAMES:
            return _KEY_NAMES[name]
    raise ActionError(f"{where} must name one of {', '.join(KEYS)}, not {_show(value)}")


def _parse_phonebuddy_call(name: str, args: Dict[str, Any], context: _Context) -> List[Action]:
    where = f"phonebuddy: {name}"
    frame = context.frame
    if name not in _PHONEBUDDY_FUNCTIONS:
        raise ActionError(f"phonebuddy: unknown function {_show(name)} (expected {', '.join(_PHONEBUDDY_FUNCTIONS)})")

    def one_point() -> Tuple[int, int]:
        points = _points(args, where)
        if len(points) != 1:
            raise ActionError(f"{where}: arguments.points must be [[x, y]]")
        return frame.point(points[0][0], points[0][1], where)

    def duration(default: int) -> int:
        value = args.get("duration")
        return default if value is None else _ms(value, f"{where}: duration")

    if name == "click":
        return [_tap("tap", one_point())]
    if name == "double_click":
        return [_tap("double_tap", one_point())]
    if name == "long_press":
        return [_tap("long_press", one_point(), duration(LONG_PRESS_MS))]
    if name == "type":
        text = _text(args.get("text"), f"{where}: text")
        clear = args.get("clear")
        clear = False if clear is None else _bool(clear, f"{where}: clear")
        steps = [_tap("tap", one_point())] if _points(args, where) else []
        return steps + [_make("type_text", text=text, clear=clear)]
    if name in ("scroll", "swipe", "drag"):
        points = _points(args, where)
        kind = "drag" if name == "drag" else "swipe"
        if len(points) == 2:
            start = frame.point(points[0][0], points[0][1], where)
            end = frame.point(points[1][0], points[1][1], where)
            return [_gesture(kind, start, end, duration(_MS_DEFAULTS[kind]))]
        if kind == "drag":
            raise ActionError(f"{where}: arguments.points must be [[x1, y1], [x2, y2]]")
        direction = args.get("direction")
        if direction not in _DIRECTIONS:
            raise ActionError(f"{where}: needs arguments.points [[x1, y1], [x2, y2]] or a direction (up, down, left, right)")
        # PhoneBuddy's direction is the finger's.
        start = frame.point(points[0][0], points[0][1], where) if points else _center(frame.screen)
        return [_gesture("swipe", start, _finger_fling(start, str(direction), frame.screen), duration(SWIPE_MS))]
    if name == "button_press":
        button = args.get("type", args.get("button"))
        return [_key(_key_name(button, f"{where}: arguments.type"))]
    if name in ("open_app", "close_app"):
        app = next((args[k] for k in ("package", "app", "app_name") if args.get(k) is not None), None)
        return [_make(name, app=_text(app, f"{where}: arguments.package", empty=False))]
    if name == "wait":
        if args.get("time") is not None:
            return [_make("wait", ms=_ms(args["time"], f"{where}: time"))]
        if args.get("ms") is not None:
            return [_make("wait", ms=_ms(args["ms"], f"{where}: ms"))]
        if args.get("seconds") is not None:
            return [_make("wait", ms=_ms(args["seconds"], f"{where}: seconds", scale=1000.0))]
        return [_make("wait", ms=_ANDROIDWORLD_WAIT_MS)]
    if name in ("output", "answer"):
        return [_make("answer", text=_text(args.get("text", ""), f"{where}: text"))]
    text = _text(args.get("text", ""), f"{where}: text")
    return [_make("finish", status=_finish_status(args, where), text=text)]


def _finish_status(args: Dict[str, Any], where: str) -> str:
    if "success" in args:
        return "success" if _bool(args["success"], f"{where}: success") else "infeasible"
    status = args.get("status", "success")
    statuses = {"success": "success", "complete": "success", "infeasible": "infeasible", "failure": "infeasible", "fail": "infeasible"}
    if not isinstance(status, str) or status not in statuses:
        raise ActionError(f"{where}: status must be success or infeasible, not {_show(status)}")
    return statuses[str(status)]


def _parse_phonebuddy(action: object, context: _Context) -> List[Action]:
    steps: List[Action] = []
    for name, args in _tool_calls(action, "phonebuddy"):
        steps.extend(_parse_phonebuddy_call(name, args, context))
    return steps


_QWEN_ACTIONS = ("key", "click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate", "answer")


def _parse_qwen_call(name: str, args: Dict[str, Any], context: _Context) -> List[Action]:
    if name != "mobile_use":
        raise ActionError(f"qwen25vl: function {_show(name)} is not mobile_use")
    kind = args.get("action")
    if kind not in _QWEN_ACTIONS:
        raise ActionError(f"qwen25vl: action must be one of {', '.join(_QWEN_ACTIONS)}, not {_show(kind)}")
    where = f"qwen25vl: {kind}"
    frame = context.frame

    def coordinate(key: str) -> Tuple[int, int]:
        value = args.get(key)
        if not isinstance(value, list) or len(value) != 2:
            raise ActionError(f"{where}: arguments.{key} must be [x, y], not {_show(value)}")
        return frame.point(value[0], value[1], where)

    if kind == "click":
        return [_tap("tap", coordinate("coordinate"))]
    if kind == "long_press":
        seconds = args.get("time")
        ms = LONG_PRESS_MS if seconds is None else _ms(seconds, f"{where}: time", scale=1000.0)
        return [_tap("long_press", coordinate("coordinate"), ms)]
    if kind == "swipe":
        return [_gesture("swipe", coordinate("coordinate"), coordinate("coordinate2"))]
    if kind == "type":
        return [_make("type_text", text=_text(args.get("text"), f"{where}: text"), clear=False)]
    if kind == "key":
        return [_key(_key_name(args.get("text"), f"{where}: text"))]
    if kind == "system_button":
        button = args.get("button")
        if not isinstance(button, str) or button.strip().lower() not in ("back", "home", "menu", "enter"):
            raise ActionError(f"{where}: button must be Back, Home, Menu or Enter, not {_show(button)}")
        return [_key(button.strip().lower())]
    if kind == "open":
        return [_make("open_app", app=_text(args.get("text"), f"{where}: text", empty=False))]
    if kind == "wait":
        seconds = args.get("time")
        ms = _ANDROIDWORLD_WAIT_MS if seconds is None else _ms(seconds, f"{where}: time", scale=1000.0)
        return [_make("wait", ms=ms)]
    if kind == "answer":
        return [_make("answer", text=_text(args.get("text"), f"{where}: text"))]
    status = args.get("status")
    if status not in ("success", "failure"):
        raise ActionError(f"{where}: status must be success or failure, not {_show(status)}")
    return [_make("finish", status="success" if status == "success" else "infeasible", text="")]


def _parse_qwen25vl(action: object, context: _Context) -> List[Action]:
    if isinstance(action, dict) and "action" in action and "name" not in action:
        return _parse_qwen_call("mobile_use", _mapping(action, "qwen25vl: arguments"), context)
    steps: List[Action] = []
    for name, args in _tool_calls(action, "qwen25vl"):
        steps.extend(_parse_qwen_call(name, args, context))
    return steps


# UI-TARS ------------------------------------------------------------------------------------------

_KEYWORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*")
_ESCAPES = {"n": "\n", "t": "\t", "'": "'", '"': '"', "\\": "\\"}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_BOX_TAGS = re.compile(r"<\|box_start\|>|<\|box_end\|>|</?point>|</?bbox>")


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _uitars_value(text: str, pos: int, where: str) -> Tuple[str, int]:
    """One argument value: quoted (with backslash escapes) or bare. A quote ends the value only when a
    ',' or ')' follows it, so contents such as "it's" survive the way UI-TARS's own parser lets them."""
    if pos < len(text) and text[pos] in "'\"":
        quote = text[pos]
        out: List[str] = []
        i = pos + 1
        while i < len(text):
            char = text[i]
            if char == "\\" and i + 1 < len(text):
                out.append(_ESCAPES.get(text[i + 1], "\\" + text[i + 1]))
                i += 2
                continue
            if char == quote:
                after = _skip_space(text, i + 1)
                if after >= len(text) or text[after] in ",)":
                    return "".join(out), i + 1
            out.append(char)
            i += 1
        raise ActionError(f"{where}: value has no closing quote")
    end = pos
    while end < len(text) and text[end] not in ",)":
        end += 1
    return text[pos:end].strip(), end


def _uitars_calls(text: str) -> List[Tuple[str, Dict[str, str]]]:
    after = _after_action_label(text)
    if after is not None:
        body = after
    else:
        body = text.strip()
        if not _CALL_NAME.match(body):
            raise ActionError(f"uitars: no action call in {_show(text)}")
    calls: List[Tuple[str, Dict[str, str]]] = []
    pos = 0
    while True:
        pos = _skip_space(body, pos)
        if pos >= len(body):
            break
        if body.startswith("Action:", pos):  # a model that labels each call
            pos += len("Action:")
            continue
        match = _CALL_NAME.match(body, pos)
        if not match:
            raise ActionError(f"uitars: expected an action call at {_show(body[pos:])}")
        name, pos = match.group(1), match.end()
        args: Dict[str, str] = {}
        while True:
            pos = _skip_space(body, pos)
            if pos >= len(body):
                raise ActionError(f"uitars: {name}( has no closing ')'")
            if body[pos] == ")":
                pos += 1
                break
            keyword = _KEYWORD.match(body, pos)
            if not keyword:
                raise ActionError(f"uitars: {name}: expected key='value' at {_show(body[pos:])}")
            key = keyword.group(1)
            args[key], pos = _uitars_value(body, keyword.end(), f"uitars: {name}: {key}")
            pos = _skip_space(body, pos)
            if pos < len(body) and body[pos] == ",":
                pos += 1
        calls.append((name, args))
    if not calls:
        raise ActionError(f"uitars: no action call in {_show(text)}")
    return calls


def _uitars_point(value: str, frame: _Frame, where: str) -> Tuple[int, int]:
    """A point '(x,y)', '<point>x y</point>', '<|box_start|>(x,y)<|box_end|>' or a box of four numbers
    (its center), in the frame's units."""
    stripped = _BOX_TAGS.sub(" ", value)
    numbers = _NUMBER.findall(stripped)
    rest = _NUMBER.sub(" ", stripped)
    if re.search(r"[^\s(),\[\]]", rest) or len(numbers) not in (2, 4):
        raise ActionError(f"{where} must be a point (x,y) or a box (x1,y1,x2,y2), not {_show(value)}")
    values = [float(n) for n in numbers]
    if len(values) == 4:
        x, y = _midpoint(values[0], values[2]), _midpoint(values[1], values[3])
    else:
        x, y = values
    return frame.point(x, y, where)


_UITARS_FUNCTIONS = (
    "click",
    "left_single",
    "left_double",
    "double_click",
    "long_press",
    "type",
    "scroll",
    "swipe",
    "drag",
    "open_app",
    "press_home",
    "press_back",
    "hotkey",
    "wait",
    "finished",
    "call_user",
)


def _parse_uitars_call(name: str, args: Dict[str, str], context: _Context) -> List[Action]:
    where = f"uitars: {name}"
    frame = context.frame

    def point(*keys: str, required: bool = True) -> Optional[Tuple[int, int]]:
        for key in keys:
            if args.get(key):
                return _uitars_point(args[key], frame, f"{where}: {key}")
        if required:
            raise ActionError(f"{where}: needs {keys[0]}")
        return None

    start_keys = ("start_box", "point", "start_point")
    end_keys = ("end_box", "end_point")
    if name in ("click", "left_single"):
        return [_tap("tap", _must(point(*start_keys)))]
    if name in ("left_double", "double_click"):
        return [_tap("double_tap", _must(point(*start_keys)))]
    if name == "long_press":
        return [_tap("long_press", _must(point(*start_keys)))]
    if name == "type":
        content = args.get("content", "")
        text = _text(content.rstrip("\n"), f"{where}: content")
        steps = [_make("type_text", text=text, clear=False)]
        # UI-TARS submits typed text when the content ends with a newline.
        return steps + [_key("enter")] if text != content else steps
    if name in ("scroll", "swipe"):
        start = point(*start_keys, required=False)
        end = point(*end_keys, required=False)
        if end is not None:
            return [_gesture("swipe", start if start is not None else _center(frame.screen), end)]
        direction = args.get("direction", "").strip().lower()
        if direction not in _DIRECTIONS:
            raise ActionError(f"{where}: needs an end_box or a direction (up, down, left, right), not {_show(args.get('direction'))}")
        origin = start if start is not None else _center(frame.screen)
        # scroll's direction moves the view (scrolling "down" shows what is below: the finger moves
        # up); swipe's is the finger's.
        finger = _OPPOSITE[direction] if name == "scroll" else direction
        return [_gesture("swipe", origin, _finger_fling(origin, finger, frame.screen))]
    if name == "drag":
        return [_gesture("drag", _must(point(*start_keys)), _must(point(*end_keys)))]
    if name == "open_app":
        return [_make("open_app", app=_text(args.get("app_name"), f"{where}: app_name", empty=False))]
    if name == "press_home":
        return [_key("home")]
    if name == "press_back":
        return [_key("back")]
    if name == "hotkey":
        return [_key(_key_name(args.get("key"), f"{where}: key"))]
    if name == "wait":
        seconds = next((args[k] for k in ("seconds", "time", "t") if args.get(k)), None)
        ms = _UITARS_WAIT_MS if seconds is None else _ms(seconds, f"{where}: seconds", scale=1000.0)
        return [_make("wait", ms=ms)]
    if name in ("finished", "call_user"):
        status = "success" if name == "finished" else "infeasible"
        return [_make("finish", status=status, text=_text(args.get("content", ""), f"{where}: content"))]
    raise ActionError(f"uitars: unknown action {_show(name)} (expected {', '.join(_UITARS_FUNCTIONS)})")


def _must(point: Optional[Tuple[int, int]]) -> Tuple[int, int]:
    assert point is not None  # point(required=True) raised otherwise
    return point


def _parse_uitars(action: object, context: _Context) -> List[Action]:
    if not isinstance(action, str):
        raise ActionError(f"uitars: an action must be a string, not {type(action).__name__}")
    steps: List[Action] = []
    for name, args in _uitars_calls(action):
        steps.extend(_parse_uitars_call(name, args, context))
    return steps


_PARSERS: Dict[str, Callable[[object, _Context], List[Action]]] = {
    "canonical": _parse_canonical,
    "androidworld": _parse_androidworld,
    "phonebuddy": _parse_phonebuddy,
    "qwen25vl": _parse_qwen25vl,
    "uitars": _parse_uitars,
}


# --- rendering ------------------------------------------------------------------------------------


class _Renderer:
    """Writes canonical actions in one format; `lossy` reports detail the format cannot carry."""

    def __init__(self, fmt: str, frame: _Frame, strict: bool, variant: Optional[str]) -> None:
        self.fmt = fmt
        self.frame = frame
        self.strict = strict
        self.variant = variant

    def cannot(self, action: Action, why: str) -> ActionError:
        return ActionError(f"{self.fmt} cannot express {action['type']}: {why}")

    def lossy(self, action: Action, lost: bool, what: str) -> None:
        if lost and self.strict:
            raise ActionError(f"{self.fmt} cannot express {action['type']} exactly: {what} (render with strict=False to drop it)")

    def xy(self, x: int, y: int) -> List[Union[int, float]]:
        return self.frame.out(x, y)


def _tool_call(name: str, arguments: Dict[str, Any]) -> str:
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    # '</' can only be inside a JSON string here; JSON's '\/' escape keeps a text's '</tool_call>' (or
    # '</think>') from ending the block early, and json.loads reads it back as '/'.
    return "<tool_call>\n" + body.replace("</", "<\\/") + "\n</tool_call>"


def _render_canonical(action: Action, r: _Renderer) -> Union[str, Dict[str, Any]]:
    out: Dict[str, Any] = dict(action)
    for x_key, y_key in (("x", "y"), ("x1", "y1"), ("x2", "y2")):
        if x_key in out:
            out[x_key], out[y_key] = r.xy(out[x_key], out[y_key])
    return out


def _render_androidworld(action: Action, r: _Renderer) -> Union[str, Dict[str, Any]]:
    kind = action["type"]
    screen = r.frame.screen
    if kind in ("tap", "double_tap", "long_press"):
        r.lossy(action, kind == "long_press" and action["ms"] != LONG_PRESS_MS, f"long_press lasts {LONG_PRESS_MS} ms")
        x, y = r.xy(action["x"], action["y"])
        return {"action_type": {"tap": "click"}.get(kind, kind), "x": x, "y": y}
    if kind == "swipe":
        start, end = (action["x1"], action["y1"]), (action["x2"], action["y2"])
        full = (0.0, 0.0, float(screen[0]), float(screen[1]))
        for direction in _DIRECTIONS:
            if action["ms"] == SWIPE_MS and _androidworld_scroll(full, direction, screen) == (start, end):
                return {"action_type": "scroll", "direction": direction}
            if action["ms"] == _ANDROIDWORLD_SWIPE_MS and _androidworld_swipe(direction, screen) == (start, end):
                return {"action_type": "swipe", "direction": direction}
        x, y = r.xy(*start)
        x2, y2 = r.xy(*end)
        return {"action_type": "swipe", "x": x, "y": y, "x2": x2, "y2": y2, "duration": action["ms"]}
    if kind == "type_text":
        r.lossy(action, True, "input_text always presses Enter after typing (render [type_text, key enter] with render_steps)")
        return _androidworld_input(action, None)
    if kind == "key":
        names = {"enter": "keyboard_enter", "home": "navigate_home", "back": "navigate_back"}
        if action["key"] not in names:
            raise r.cannot(action, f"AndroidWorld has no {action['key']} key")
        return {"action_type": names[action["key"]]}
    if kind == "open_app":
        return {"action_type": "open_app", "app_name": action["app"]}
    if kind == "wait":
        r.lossy(action, action["ms"] != _ANDROIDWORLD_WAIT_MS, f"wait lasts {_ANDROIDWORLD_WAIT_MS} ms")
        return {"action_type": "wait"}
    if kind == "answer":
        return {"action_type": "answer", "text": action["text"]}
    if kind == "finish":
        r.lossy(action, action["text"] != "", "status has no text")
        return {"action_type": "status", "goal_status": "complete" if action["status"] == "success" else "infeasible"}
    raise r.cannot(action, "AndroidWorld has no drag or close_app action")


def _androidworld_input(action: Action, target: Optional[List[Union[int, float]]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {"action_type": "input_text", "text": action["text"]}
    if target is not None:
        out["x"], out["y"] = target
    if action["clear"]:
        out["clear_text"] = True
    return out


def _render_phonebuddy(action: Action, r: _Renderer) -> Union[str, Dict[str, Any]]:
    kind = action["type"]
    if kind in ("tap", "double_tap", "long_press"):
        args: Dict[str, Any] = {"points": [r.xy(action["x"], action["y"])]}
        if kind == "long_press" and action["ms"] != LONG_PRESS_MS:
            args["duration"] = action["ms"]
        return _tool_call("click" if kind == "tap" else "double_click" if kind == "double_tap" else "long_press", args)
    if kind in ("swipe", "drag"):
        args = {"points": [r.xy(action["x1"], action["y1"]), r.xy(action["x2"], action["y2"])]}
        if action["ms"] != _MS_DEFAULTS[kind]:
            args["duration"] = action["ms"]
        return _tool_call("scroll" if kind == "swipe" else "drag", args)
    if kind == "type_text":
        args = {"text": action["text"]}
        if action["clear"]:
            args["clear"] = True
        return _tool_call("type", args)
    if kind == "key":
        return _tool_call("button_press", {"type": action["key"]})
    if kind in ("open_app", "close_app"):
        return _tool_call(kind, {"package": action["app"]})
    if kind == "wait":
        return _tool_call("wait", {"time": action["ms"]})
    if kind == "answer":
        return _tool_call("output", {"text": action["text"]})
    args = {"text": action["text"]}
    if action["status"] != "success":
        args["status"] = action["status"]
    return _tool_call("finish", args)


def _seconds(ms: int) -> Union[int, float]:
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


def _render_qwen25vl(action: Action, r: _Renderer) -> Union[str, Dict[str, Any]]:
    kind = action["type"]
    args: Dict[str, Any]
    if kind == "tap":
        args = {"action": "click", "coordinate": r.xy(action["x"], action["y"])}
    elif kind == "long_press":
        args = {"action": "long_press", "coordinate": r.xy(action["x"], action["y"]), "time": _seconds(action["ms"])}
    elif kind == "swipe":
        r.lossy(action, action["ms"] != SWIPE_MS, f"swipe lasts {SWIPE_MS} ms")
        args = {"action": "swipe", "coordinate": r.xy(action["x1"], action["y1"]), "coordinate2": r.xy(action["x2"], action["y2"])}
    elif kind == "type_text":
        r.lossy(action, action["clear"], "type cannot clear the field first")
        args = {"action": "type", "text": action["text"]}
    elif kind == "key":
        if action["key"] in ("back", "home", "menu", "enter"):
            args = {"action": "system_button", "button": action["key"].capitalize()}
        else:
            args = {"action": "key", "text": {"recents": "app_switch", "delete": "del"}[action["key"]]}
    elif kind == "open_app":
        args = {"action": "open", "text": action["app"]}
    elif kind == "wait":
        args = {"action": "wait", "time": _seconds(action["ms"])}
    elif kind == "answer":
        args = {"action": "answer", "text": action["text"]}
    elif kind == "finish":
        r.lossy(action, action["text"] != "", "terminate has no text")
        args = {"action": "terminate", "status": "success" if action["status"] == "success" else "failure"}
    else:
        raise r.cannot(action, "mobile_use has no double tap, drag or close_app")
    return _tool_call("mobile_use", args)


def _uitars_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def _render_uitars(action: Action, r: _Renderer) -> Union[str, Dict[str, Any]]:
    return "Action: " + _uitars_call(action, r)


def _uitars_call(action: Action, r: _Renderer) -> str:
    kind = action["type"]

    def at(x: int, y: int, role: str = "point") -> str:
        px, py = r.xy(x, y)
        if r.variant == "point":
            name = {"point": "point", "start": "start_point", "end": "end_point"}[role]
            return f"{name}='<point>{px} {py}</point>'"
        name = "end_box" if role == "end" else "start_box"
        return f"{name}='<|box_start|>({px},{py})<|box_end|>'"

    if kind == "tap":
        return f"click({at(action['x'], action['y'])})"
    if kind == "double_tap":
        return f"left_double({at(action['x'], action['y'])})"
    if kind == "long_press":
        r.lossy(action, action["ms"] != LONG_PRESS_MS, f"long_press lasts {LONG_PRESS_MS} ms")
        return f"long_press({at(action['x'], action['y'])})"
    if kind == "swipe":
        r.lossy(action, action["ms"] != SWIPE_MS, f"scroll lasts {SWIPE_MS} ms")
        start, end = (action["x1"], action["y1"]), (action["x2"], action["y2"])
        for direction in _DIRECTIONS:
            if start != end and _finger_fling(start, _OPPOSITE[direction], r.frame.screen) == end:
                return f"scroll({at(*start)}, direction='{direction}')"
        return f"scroll({at(*start)}, {at(*end, role='end')})"
    if kind == "drag":
        r.lossy(action, action["ms"] != DRAG_MS, f"drag lasts {DRAG_MS} ms")
        return f"drag({at(action['x1'], action['y1'], role='start')}, {at(action['x2'], action['y2'], role='end')})"
    if kind == "type_text":
        r.lossy(action, action["clear"], "type cannot clear the field first")
        r.lossy(action, action["text"].endswith("\n"), "a trailing newline in type means pressing Enter")
        return f"type(content={_uitars_quote(action['text'])})"
    if kind == "key":
        if action["key"] in ("home", "back"):
            return f"press_{action['key']}()"
        return f"hotkey(key='{action['key']}')"
    if kind == "open_app":
        return f"open_app(app_name={_uitars_quote(action['app'])})"
    if kind == "wait":
        return "wait()" if action["ms"] == _UITARS_WAIT_MS else f"wait(seconds={_seconds(action['ms'])})"
    if kind == "finish":
        name = "finished" if action["status"] == "success" else "call_user"
        return f"{name}(content={_uitars_quote(action['text'])})"
    raise r.cannot(action, "UI-TARS has no answer or close_app action (answers go in finished(content=...))")


_RENDERERS: Dict[str, Callable[[Action, _Renderer], Union[str, Dict[str, Any]]]] = {
    "canonical": _render_canonical,
    "androidworld": _render_androidworld,
    "phonebuddy": _render_phonebuddy,
    "qwen25vl": _render_qwen25vl,
    "uitars": _render_uitars,
}


def _renderer(fmt: str, screen: object, coords: Optional[str], image_size: object, strict: bool, variant: Optional[str]) -> _Renderer:
    fmt = _check_format(fmt, auto=False)
    if variant is not None and not (fmt == "uitars" and variant in ("box", "point")):
        raise ActionError(f"variant {_show(variant)} does not apply to {fmt} (uitars takes 'box' or 'point')")
    return _Renderer(fmt, _frame(fmt, screen, coords, image_size), strict, variant)


def render(
    action: object,
    fmt: str,
    *,
    screen: Size = (1080, 2400),
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    strict: bool = True,
    variant: Optional[str] = None,
) -> Union[str, Dict[str, Any]]:
    """A canonical action written the way a model of `fmt` should have written it: a dict for
    canonical and androidworld, a string for the others. ``parse(render(a, f), f) == a``.

    Actions a format has no counterpart for raise `ActionError` (see the module docs for the list);
    with ``strict=False`` detail a format cannot carry (a duration, the clear flag, a finish text) is
    dropped instead of raising. `variant` picks UI-TARS's syntax: ``"box"`` (``start_box=
    '<|box_start|>(x,y)<|box_end|>'``, the default) or ``"point"`` (``point='<point>x y</point>'``).

    >>> render({"type": "key", "key": "back"}, "phonebuddy")
    '<tool_call>\\n{"name": "button_press", "arguments": {"type": "back"}}\\n</tool_call>'
    >>> render({"type": "tap", "x": 540, "y": 1200}, "uitars", coords="resized", variant="point")
    "Action: click(point='<point>546 1204</point>')"
    """
    r = _renderer(fmt, screen, coords, image_size, strict, variant)
    return _readable(_RENDERERS[r.fmt](canonical(action, screen=r.frame.screen), r), r.fmt)


def _readable(output: Union[str, Dict[str, Any]], fmt: str) -> Union[str, Dict[str, Any]]:
    """A rendered output the readers take back (MAX_OUTPUT_CHARS), so render stays parse's inverse."""
    if isinstance(output, str) and len(output) > MAX_OUTPUT_CHARS:
        raise ActionError(f"{fmt}: the output would be {len(output)} characters, longer than the readers' limit of {MAX_OUTPUT_CHARS}")
    return output


def render_steps(
    actions: Sequence[object],
    fmt: str,
    *,
    screen: Size = (1080, 2400),
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    strict: bool = True,
    variant: Optional[str] = None,
) -> Union[str, Dict[str, Any]]:
    """Canonical actions that one model output of `fmt` stands for, written as that output (the
    inverse of `parse_steps`): AndroidWorld's ``input_text`` for [tap, type_text, key enter], UI-TARS's
    ``type(content='...\\n')`` for [type_text, key enter], PhoneBuddy's ``type`` with points for
    [tap, type_text], several ``<tool_call>`` blocks or UI-TARS calls for the rest.

    >>> render_steps([{"type": "type_text", "text": "hi"}, {"type": "key", "key": "enter"}], "androidworld")
    {'action_type': 'input_text', 'text': 'hi'}
    """
    r = _renderer(fmt, screen, coords, image_size, strict, variant)
    if not isinstance(actions, (list, tuple)) or not actions:
        raise ActionError(f"render_steps needs a non-empty list of canonical actions, not {_show(actions)}")
    steps = [canonical(a, screen=r.frame.screen) for a in actions]
    kinds = [s["type"] for s in steps]
    typed_enter = kinds[-2:] == ["type_text", "key"] and steps[-1]["key"] == "enter"
    if r.fmt == "androidworld" and typed_enter and len(steps) in (2, 3):
        if len(steps) == 2:
            return _androidworld_input(steps[0], None)
        if kinds[0] == "tap":
            return _androidworld_input(steps[1], r.xy(steps[0]["x"], steps[0]["y"]))
    if r.fmt == "uitars":
        calls = []
        i = 0
        while i < len(steps):
            step = steps[i]
            if step["type"] == "type_text" and i + 1 < len(steps) and steps[i + 1] == _key("enter") and not step["text"].endswith("\n"):
                r.lossy(step, step["clear"], "type cannot clear the field first")
                calls.append(f"type(content={_uitars_quote(step['text'] + chr(10))})")
                i += 2
                continue
            calls.append(_uitars_call(step, r))
            i += 1
        return _readable("Action: " + "\n\n".join(calls), r.fmt)
    if r.fmt in ("phonebuddy", "qwen25vl"):
        blocks = []
        i = 0
        while i < len(steps):
            step = steps[i]
            if r.fmt == "phonebuddy" and step["type"] == "tap" and i + 1 < len(steps) and steps[i + 1]["type"] == "type_text":
                typed = steps[i + 1]
                args: Dict[str, Any] = {"text": typed["text"], "points": [r.xy(step["x"], step["y"])]}
                if typed["clear"]:
                    args["clear"] = True
                blocks.append(_tool_call("type", args))
                i += 2
                continue
            rendered = _RENDERERS[r.fmt](step, r)
            assert isinstance(rendered, str)
            blocks.append(rendered)
            i += 1
        return _readable("\n".join(blocks), r.fmt)
    if len(steps) == 1:
        return _readable(_RENDERERS[r.fmt](steps[0], r), r.fmt)
    raise ActionError(f"{r.fmt} writes one action per output; cannot write {', '.join(kinds)} as one")


# --- prompts --------------------------------------------------------------------------------------


def _frame_words(frame: _Frame) -> str:
    if frame.coords == "norm1000":
        return "Coordinates are scaled to 0-1000 on both axes (0,0 is the top left corner)."
    if frame.coords == "norm1":
        return "Coordinates are fractions from 0 to 1 of the screen width and height."
    if frame.coords == "pixel":
        return f"Coordinates are screen pixels; the screen is {frame.screen[0]}x{frame.screen[1]}."
    return f"Coordinates are pixels of the {frame.image[0]}x{frame.image[1]} screenshot."


def _function(name: str, description: str, properties: Dict[str, Any], required: Sequence[str]) -> Dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": list(required)},
        },
    }


def tool_schema(
    fmt: str,
    *,
    screen: Size = (1080, 2400),
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
) -> List[Dict[str, Any]]:
    """OpenAI function schemas of a tool-call format (phonebuddy or qwen25vl), for system prompts and
    trainers that pass tools. PhoneBuddy's follow its published AndroidWorld prompt; optional
    arguments beyond it (type's ``clear``, finish's ``status``, recents and delete buttons) are marked.

    >>> [t["function"]["name"] for t in tool_schema("phonebuddy")][:4]
    ['click', 'double_click', 'long_press', 'type']
    """
    fmt = _check_format(fmt, auto=False)
    frame = _frame(fmt, screen, coords, image_size)
    words = _frame_words(frame)
    points1 = {"type": "array", "description": "The point as [[x, y]]. " + words}
    points2 = {"type": "array", "description": "Start and end points as [[x1, y1], [x2, y2]]. " + words}
    ms = {"type": "integer", "description": "Duration in milliseconds"}
    package = {"type": "string", "description": "The app's package name or label"}
    if fmt == "phonebuddy":
        return [
            _function("click", "Tap a point on the screen", {"points": points1}, ["points"]),
            _function("double_click", "Double-tap a point on the screen", {"points": points1, "interval": ms}, ["points"]),
            _function("long_press", "Long-press a point on the screen", {"points": points1, "duration": ms}, ["points"]),
            _function(
                "type",
                "Type text into the focused field (with points: tap that field first)",
                {
                    "text": {"type": "string", "description": "The text to type"},
                    "points": points1,
                    "clear": {"type": "boolean", "description": "PhoneWorld extension: clear the field before typing"},
                },
                ["text"],
            ),
            _function(
                "scroll", "Swipe the finger from the first point to the second (to scroll)", {"points": points2, "duration": ms}, ["points"]
            ),
            _function("drag", "Drag from the first point to the second", {"points": points2, "duration": ms}, ["points"]),
            _function(
                "button_press",
                "Press a phone button",
                {
                    "type": {
                        "type": "string",
                        "enum": ["back", "home", "menu", "enter", "recents", "delete"],
                        "description": "back, home, menu or enter (recents and delete are PhoneWorld extensions)",
                    }
                },
                ["type"],
            ),
            _function("open_app", "Open an app", {"package": package}, ["package"]),
            _function("close_app", "Close an app", {"package": package}, ["package"]),
            _function("wait", "Wait", {"time": ms}, ["time"]),
            _function(
                "output",
                "Tell the user something (an answer to their question)",
                {"text": {"type": "string", "description": "The text"}},
                ["text"],
            ),
            _function(
                "finish",
                "End the task",
                {
                    "text": {"type": "string", "description": "What was done, or why it cannot be done"},
                    "status": {
                        "type": "string",
                        "enum": list(FINISH_STATUSES),
                        "description": "PhoneWorld extension: infeasible when the task cannot be done",
                    },
                },
                ["text"],
            ),
        ]
    if fmt == "qwen25vl":
        resolution = f"The screen's resolution is {frame.image[0]}x{frame.image[1]}." if frame.coords == "resized" else words
        description = "Use a touchscreen to interact with a mobile device. " + resolution
        return [
            _function(
                "mobile_use",
                description,
                {
                    "action": {
                        "type": "string",
                        "enum": list(_QWEN_ACTIONS),
                        "description": "The action (answer is an extension used by AndroidWorld agents)",
                    },
                    "coordinate": {"type": "array", "description": "(x, y) for click, long_press and swipe"},
                    "coordinate2": {"type": "array", "description": "(x, y) where swipe ends"},
                    "text": {"type": "string", "description": "For key (adb keyevent name), type, open and answer"},
                    "time": {"type": "number", "description": "Seconds, for long_press and wait"},
                    "button": {"type": "string", "enum": ["Back", "Home", "Menu", "Enter"], "description": "For system_button"},
                    "status": {"type": "string", "enum": ["success", "failure"], "description": "For terminate"},
                },
                ["action"],
            )
        ]
    raise ActionError(f"{fmt} is not a tool-call format (tool schemas exist for phonebuddy and qwen25vl)")


def system_prompt(
    fmt: str,
    *,
    screen: Size = (1080, 2400),
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    variant: Optional[str] = None,
) -> str:
    """A system prompt that describes `fmt`'s action space in its frame (for fine-tuning data and for
    prompting a model the env then parses).

    >>> "<tool_call>" in system_prompt("phonebuddy")
    True
    """
    r = _renderer(fmt, screen, coords, image_size, True, variant)
    fmt, frame = r.fmt, r.frame
    words = _frame_words(frame)
    lead = (
        "You operate an Android phone to carry out the user's instruction. Each turn you get the instruction, "
        "the current screenshot and the actions taken so far; reply with the next action."
    )
    if fmt in ("phonebuddy", "qwen25vl"):
        tools = "\n".join(json.dumps(t, ensure_ascii=False) for t in tool_schema(fmt, screen=screen, coords=coords, image_size=image_size))
        return (
            f"{lead} {words}\n\n# Tools\n\nYou may call one or more of these functions:\n<tools>\n{tools}\n</tools>\n\n"
            "Write each call as a JSON object with the function name and arguments inside <tool_call></tool_call> tags:\n"
            '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
        )
    if fmt == "uitars":
        if variant == "point":
            at, start, end = "point='<point>x1 y1</point>'", "start_point='<point>x1 y1</point>'", "end_point='<point>x2 y2</point>'"
        else:
            at, start, end = (
                "start_box='<|box_start|>(x1,y1)<|box_end|>'",
                "start_box='<|box_start|>(x1,y1)<|box_end|>'",
                "end_box='<|box_start|>(x2,y2)<|box_end|>'",
            )
        return (
            f"{lead} {words}\n\n## Output Format\nThought: ...\nAction: ...\n\n## Action Space\n"
            f"click({at})\nleft_double({at})\nlong_press({at})\n"
            "type(content='') # end the content with \\n to submit it\n"
            f"scroll({at}, direction='down or up or right or left') # down shows what is below\n"
            f"drag({start}, {end})\n"
            "open_app(app_name='')\npress_home()\npress_back()\nhotkey(key='enter or recents or delete or menu')\n"
            "wait() # five seconds\nfinished(content='') # the task is done\ncall_user(content='') # the task cannot be done"
        )
    if fmt == "androidworld":
        return (
            f"{lead} {words}\n\nReply with one JSON action: "
            '{"action_type": "click", "x": <x>, "y": <y>} (or "index": <UI element index>), double_tap, long_press, '
            '{"action_type": "input_text", "text": "...", "x": <x>, "y": <y>} (taps the field, types, presses Enter), '
            'keyboard_enter, navigate_home, navigate_back, {"action_type": "scroll", "direction": "up|down|left|right"} '
            '(down shows what is below), {"action_type": "open_app", "app_name": "..."}, wait, '
            '{"action_type": "answer", "text": "..."}, {"action_type": "status", "goal_status": "complete|infeasible"}.'
        )
    return (
        f"{lead} {words}\n\nReply with one JSON action: tap, double_tap, long_press (x, y[, ms]); swipe, drag "
        "(x1, y1, x2, y2[, ms]); type_text (text[, clear]); key (back, home, enter, recents, delete, menu); "
        "open_app, close_app (app); wait (ms); answer (text); finish (status success or infeasible, text). "
        'For example {"type": "tap", "x": 540, "y": 1200}.'
    )
