"""Writes the seed corpus of the Python action fuzzers, `python/fuzz/corpus/seeds/`, which every
Python target starts from (what a target finds goes to `python/fuzz/corpus/<target>/`).

The seeds are every model output of the golden cases (`python/tests/golden/*.json`, one example per
action of each format), the docstring examples of `phoneworld.actions`, and hostile inputs small
enough to keep (huge numbers, nested brackets, unicode, tags inside texts, broken JSON). The larger
hostile inputs (megabyte strings) are made on the fly by `fuzz_actions.hostile_inputs()`.

    python3 python/fuzz/make_seeds.py     # standard library only; rewrites seeds/seed-*
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Iterator, Tuple

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent / "tests" / "golden"
SEEDS = HERE / "corpus" / "seeds"


def _golden() -> Iterator[Tuple[str, str]]:
    for path in sorted(GOLDEN.glob("*.json")):
        cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
        for case in cases:
            model = case["model"]
            text = model if isinstance(model, str) else json.dumps(model, ensure_ascii=False)
            yield f"{path.stem}-{case['name']}", text


def _docs() -> Iterator[Tuple[str, str]]:
    yield "doc-phonebuddy-think", '<think>...</think><tool_call>{"name": "click", "arguments": {"points": [[500, 250]]}}</tool_call>'
    yield "doc-uitars-thought", "Thought: open it\nAction: click(start_box='(500,250)')"
    yield "doc-uitars-point", "Action: click(point='<point>546 1204</point>')"
    yield "doc-uitars-box4", "Action: click(start_box='(100,200,300,400)')"
    yield "doc-androidworld-input", '{"action_type": "input_text", "text": "hi", "x": 10, "y": 20}'
    yield "doc-androidworld-index", '{"action_type": "click", "index": 1}'
    yield "doc-androidworld-scroll-index", '{"action_type": "scroll", "direction": "down", "index": 2}'
    yield "doc-androidworld-m3a", 'Reason: the button is there.\nAction: {"action_type": "navigate_back"}'
    yield "doc-qwen-wait", '<tool_call>{"name": "mobile_use", "arguments": {"action": "wait", "time": 1}}</tool_call>'
    yield "doc-qwen-bare", '{"action": "key", "text": "app_switch"}'
    yield "doc-openai-args", '{"name": "click", "arguments": "{\\"points\\": [[1, 2]]}"}'
    yield "doc-tool-list", '[{"name": "click", "arguments": {"points": [[1, 2]]}}, {"name": "wait", "arguments": {"time": 5}}]'
    yield "doc-two-blocks", (
        '<tool_call>{"name": "type", "arguments": {"text": "milk", "points": [[500, 100]]}}</tool_call>\n'
        '<tool_call>{"name": "button_press", "arguments": {"type": "enter"}}</tool_call>'
    )
    yield "doc-unclosed-block", '<tool_call>\n{"name": "click", "arguments": {"points": [[10, 20]]}}'
    yield "doc-lenient-json", 'Action: {\u201caction_type\u201d: \u201cnavigate_home\u201d,}'
    yield "doc-smart-resize", "[2400, 1080]"
    yield "doc-smart-resize-all", "[600, 270, 28, 3136, 12845056]"


def _hostile() -> Iterator[Tuple[str, str]]:
    yield "empty", ""
    yield "blank", " \n\t "
    for i, text in enumerate(["{", "}", "[", "Action:", "<tool_call>", "</tool_call>", "<think>", "click(", "Action: click(", "()"]):
        yield f"fragment-{i}", text
    yield "huge-float", '{"type": "tap", "x": 1e309, "y": 1}'
    yield "huge-int", '{"type": "tap", "x": ' + "9" * 400 + ', "y": 1}'
    yield "nan", '{"type": "tap", "x": NaN, "y": Infinity}'
    yield "negative-zero", '{"type": "long_press", "x": -0.0, "y": 0.49999999999999994, "ms": -0.0}'
    yield "huge-ms", '{"type": "wait", "ms": 1e300}'
    yield "bool-coords", '{"type": "swipe", "x1": true, "y1": false, "x2": 1, "y2": 2}'
    yield "index-huge", '{"action_type": "click", "index": "' + "9" * 400 + '"}'
    yield "index-negative", '{"action_type": "click", "index": -1}'
    yield "index-broken", '{"action_type": "scroll", "direction": "up", "index": 7}'
    yield "index-overflow", '{"action_type": "click", "index": 7}'
    yield "index-bigint-box", '{"action_type": "click", "index": 8}'
    yield "qwen-huge", (
        '<tool_call>{"name": "mobile_use", "arguments": {"action": "long_press", "coordinate": [1e308, 1e308], "time": 1e308}}</tool_call>'
    )
    yield "phonebuddy-time", '<tool_call>{"name": "wait", "arguments": {"time": "1e400"}}</tool_call>'
    yield "phonebuddy-points-deep", '<tool_call>{"name": "click", "arguments": {"points": ' + "[" * 200 + "]" * 200 + "}}</tool_call>"
    yield "uitars-huge-box", "Action: click(start_box='(" + "9" * 400 + "," + "9" * 400 + ")')"
    yield "uitars-fullwidth", "Action: click(start_box='(\uff15\uff10\uff10,\uff15\uff10\uff10)')"
    yield "uitars-action-in-text", "Action: type(content='Action: click(start_box=\\'(1,1)\\')')"
    yield "uitars-unclosed-quote", "Action: type(content='it is"
    yield "uitars-escapes", "Action: finished(content='a\\\\b\\'c\\n\\x')"
    yield "uitars-many-args", "Action: click(" + ", ".join(f"a{i}='{i}'" for i in range(300)) + ")"
    yield "tool-call-in-answer", '<tool_call>{"name": "output", "arguments": {"text": "</tool_call><tool_call>"}}</tool_call>'
    yield "action-in-typed-text", '{"type": "type_text", "text": "Action: go"}'
    yield "closing-tag-in-answer", '{"type": "answer", "text": "done </tool_call> next"}'
    yield "think-in-text", '<tool_call>{"name": "type", "arguments": {"text": "<think>x"}}</tool_call></think>'
    yield "nested-brackets", "[" * 1500 + "]" * 1500
    yield "nested-objects", '{"a": ' * 1500 + "1" + "}" * 1500
    yield "nested-type", '{"type": ' + "[" * 1200 + "]" * 1200 + "}"
    yield "unicode", '{"type": "type_text", "text": "\u540d\u524d \U0001f600 \u202e\u200b\u0000 caf\u00e9", "clear": true}'
    yield "surrogate-escape", '{"type": "answer", "text": "\\ud800\\udfff\\ud800"}'
    # Just over the phone's 10,000 characters of text per action.
    yield "long-text", json.dumps({"type": "type_text", "text": "x" * 10001})
    yield "long-app", "Action: open_app(app_name='" + "\u00e9" * 10001 + "')"
    yield "smart-resize-huge", "[" + "1" + "0" * 60 + ", 1]"
    yield "smart-resize-zero", "[0, 0]"
    yield "smart-resize-ratio", "[1, 100000]"


def seeds() -> Iterator[Tuple[str, bytes]]:
    seen = set()
    for name, text in list(_golden()) + list(_docs()) + list(_hostile()):
        data = text.encode("utf-8", "surrogatepass")
        if data in seen:
            continue
        seen.add(data)
        slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
        yield f"seed-{slug}-{hashlib.sha1(data).hexdigest()[:8]}", data


def main() -> int:
    SEEDS.mkdir(parents=True, exist_ok=True)
    for old in SEEDS.glob("seed-*"):
        old.unlink()
    count = size = 0
    for name, data in seeds():
        (SEEDS / name).write_bytes(data)
        count += 1
        size += len(data)
    print(f"{SEEDS}: {count} seeds, {size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
