"""Coverage-guided fuzzing of `phoneworld.actions`, the readers of the action formats GUI models emit.

Two targets, each a check that takes arbitrary bytes (read as UTF-8 text, and also as JSON when they
parse as JSON) and raises `Finding` when the module breaks its promises:

- ``python_actions``: every public entry point of `phoneworld.actions` (`detect`, `parse_steps` and
  `parse` in every format and in auto-detection, in other coordinate frames and with `ui_elements`,
  `canonical`, `render` and `render_steps`, `smart_resize` with numbers from the input) raises nothing
  but `ActionError` ("Every problem with the input raises `ActionError`"); what parses is a complete
  canonical action (`canonical` returns it unchanged), and `Phone.step` applies it or raises
  `ActionError` (an action beyond the phone's limits) and nothing else.
- ``python_roundtrip``: the writers' documented inverse: every parsed action that a format can
  express in the pixel frame (`render(..., coords="pixel", strict=True)`) parses back exactly, and so
  do the `render_steps` of a parsed list.

Any other exception, or an input that runs longer than the fuzzer's timeout, is a finding.

    .venv/bin/python python/fuzz/fuzz_actions.py --list
    .venv/bin/python python/fuzz/fuzz_actions.py python_actions [libFuzzer flags] [corpus dirs]
    .venv/bin/python python/fuzz/fuzz_actions.py --replay [--timeout=S] python_actions FILE...
    .venv/bin/python python/fuzz/fuzz_actions.py --write-hostile DIR 1048576

Both start from the seeds in `python/fuzz/corpus/seeds/` (written by `make_seeds.py`) and what they
found before, `python/fuzz/corpus/<target>/` (`crash-*`, `hang-*`, and `cov-*` saved with
`fuzz/run.py --save-corpus`); the fuzzer's own inputs stay under 64 KiB. `fuzz/run.py` runs both
targets for `--seconds` each, and before that the megabyte-sized `hostile_inputs()` once each
(`--replay` with a timeout, in a process of their own); `python/tests/test_fuzz_corpus.py` replays
the seeds, each target's folder and smaller hostile inputs in pytest. atheris is needed only to
fuzz (`make fuzz` installs it); replaying needs only the package.
"""

from __future__ import annotations

import json
import os
import sys
import time
import zlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

#: Set by `_import_phoneworld`, instrumented when fuzzing.
actions: Any = None
ActionError: Any = None
_PHONE: Any = None
_SNAPSHOT: Optional[bytes] = None

SCREEN = (1080, 2400)
# Extra frames the `python_actions` target also reads each input in (one per input, chosen by a hash
# of the input, so a replay reads it the same way).
_SCREENS: Tuple[Tuple[int, int], ...] = ((1080, 2400), (720, 1600), (1, 1), (3, 5000), (100_000, 100_000))
_IMAGES: Tuple[Optional[Tuple[int, int]], ...] = (None, (532, 1204), (1, 1), (28, 28))
_COORDS: Tuple[Optional[str], ...] = (None, "pixel", "norm1000", "norm1", "resized")


class Finding(AssertionError):
    """The module broke a promise on this input."""


def _import_phoneworld(instrument: bool) -> None:
    global actions, ActionError
    if actions is not None:
        return
    if instrument:
        import atheris

        # Not the "RegEx" hook: its pattern proxy takes no `pos` (`pattern.match(text, pos)`), which
        # the UI-TARS reader uses, so every UI-TARS input would look like a finding.
        atheris.enabled_hooks.add("str")
        with atheris.instrument_imports(include=["phoneworld.actions"]):
            import phoneworld.actions
    import phoneworld
    import phoneworld.actions

    actions = phoneworld.actions
    ActionError = phoneworld.ActionError


def _phone() -> Any:
    """A phone at its home screen, the same one for every input (restored from a snapshot)."""
    global _PHONE, _SNAPSHOT
    import phoneworld

    if _SNAPSHOT is None:
        _SNAPSHOT = phoneworld.Phone(seed=0).snapshot()
    _PHONE = phoneworld.Phone.restore(_SNAPSHOT)
    return _PHONE


def _ui_elements() -> List[Any]:
    """What an agent passes as `ui_elements`: the home screen's elements, then broken ones (the
    parser must refuse them with ActionError too)."""
    real = [
        {"text": "Clock", "bbox_pixels": {"x_min": 60, "y_min": 300, "x_max": 240, "y_max": 480}},
        {"text": "Settings", "bbox_pixels": {"x_min": 300, "y_min": 300, "x_max": 480, "y_max": 480}},
        {"text": "list", "bbox_pixels": {"x_min": 0, "y_min": 600, "x_max": 1080, "y_max": 2200}},
    ]
    broken: List[Any] = [
        {},
        {"bbox_pixels": None},
        {"bbox_pixels": {"x_min": "1", "y_min": 2, "x_max": 3, "y_max": 4}},
        {"bbox_pixels": {"x_min": -5000, "y_min": -5000, "x_max": -10, "y_max": -10}},
        {"bbox_pixels": {"x_min": 1e308, "y_min": 1e308, "x_max": 1e308, "y_max": 1e308}},
        {"bbox_pixels": {"x_min": 10**400, "y_min": 0, "x_max": 1, "y_max": 1}},
        "not an element",
        None,
    ]
    return real + broken


_UI = _ui_elements()


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _values(data: bytes) -> List[Any]:
    """The input as a model's text, and as the JSON value it holds when it is JSON."""
    text = _text(data)
    values: List[Any] = [text]
    try:
        values.append(json.loads(text))
    except (ValueError, RecursionError):
        pass
    return values


def _expect(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Tuple[bool, Any]:
    """(True, result), or (False, the ActionError); any other exception is a finding."""
    try:
        return True, call(*args, **kwargs)
    except ActionError as err:
        return False, err
    except Finding:
        raise
    except BaseException as err:  # noqa: BLE001 - anything else is what we look for
        if isinstance(err, KeyboardInterrupt):
            raise
        raise Finding(f"{_name(call)}{_show_args(args, kwargs)} raised {type(err).__name__}: {err}") from err


def _name(call: Callable[..., Any]) -> str:
    return getattr(call, "__qualname__", repr(call))


def _show_args(args: Sequence[Any], kwargs: Dict[str, Any]) -> str:
    shown = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(shown) + ")"


def _short(value: Any, limit: int = 200) -> str:
    try:
        text = repr(value)
    except RecursionError:
        return f"<{type(value).__name__} too deep to show>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_steps(steps: Any, where: str, screen: Tuple[int, int]) -> List[Dict[str, Any]]:
    """A parse result: a non-empty list of complete canonical actions within the screen."""
    if not isinstance(steps, list) or not steps:
        raise Finding(f"{where} returned {_short(steps)}, not a non-empty list of actions")
    for step in steps:
        # canonical(step, screen=screen) less its Qwen image size (which a screen with an aspect
        # ratio over 200 does not have, and which pixel coordinates do not need).
        ok, again = _expect(actions.parse_steps, step, "canonical", screen=screen, coords="pixel", image_size=screen)
        if not ok:
            raise Finding(f"{where} returned {_short(step)}, which the canonical reader refuses: {again}")
        if again != [step]:
            raise Finding(f"{where} returned {_short(step)}, not complete: the canonical reader makes it {_short(again)}")
    return steps


def _options(data: bytes) -> Dict[str, Any]:
    """One more way to read the input: a frame, a screen, an image size and ui_elements."""
    h = zlib.crc32(data)
    return {
        "screen": _SCREENS[h % len(_SCREENS)],
        "coords": _COORDS[(h >> 4) % len(_COORDS)],
        "image_size": _IMAGES[(h >> 8) % len(_IMAGES)],
        "ui_elements": _UI if (h >> 12) % 4 else None,
    }


def parsed_actions(data: bytes) -> List[Dict[str, Any]]:
    """Every canonical action the input parses to with the default options, in any format."""
    found: List[Dict[str, Any]] = []
    for value in _values(data):
        for fmt in actions.FORMATS:
            ok, steps = _expect(actions.parse_steps, value, fmt, ui_elements=_UI)
            if ok:
                for step in _check_steps(steps, f"parse_steps({fmt})", SCREEN):
                    if step not in found:
                        found.append(step)
    return found


def check_actions(data: bytes) -> None:
    """The `python_actions` target."""
    options = _options(data)
    for value in _values(data):
        ok, fmt = _expect(actions.detect, value)
        if ok and fmt not in actions.FORMATS:
            raise Finding(f"detect returned {_short(fmt)}, not one of FORMATS")
        for name in ("auto",) + tuple(actions.FORMATS):
            ok, steps = _expect(actions.parse_steps, value, name, ui_elements=_UI)
            if ok:
                _check_steps(steps, f"parse_steps({name})", SCREEN)
            ok, one = _expect(actions.parse, value, name)
            if ok:
                _check_steps([one], f"parse({name})", SCREEN)
        name = actions.FORMATS[zlib.crc32(data) % len(actions.FORMATS)]
        ok, steps = _expect(actions.parse_steps, value, name, **options)
        if ok:
            _check_steps(steps, f"parse_steps({name}, {_short(options, 80)})", options["screen"])
        ok, one = _expect(actions.canonical, value)
        if ok:
            _check_steps([one], "canonical", SCREEN)
        for name in actions.FORMATS:
            _expect(actions.render, value, name, strict=False)
            _expect(actions.render_steps, value, name, strict=False)
        _smart_resize(value)
    phone = _phone()
    for step in parsed_actions(data):
        ok, result = _expect(phone.step, step)
        if ok and not isinstance(result, dict):
            raise Finding(f"Phone.step({_short(step)}) returned {_short(result)}")


def _smart_resize(value: Any) -> None:
    """smart_resize with the input's numbers (a list of up to five integers)."""
    if isinstance(value, list) and 2 <= len(value) <= 5:
        ok, size = _expect(actions.smart_resize, *value)
        if ok and not (isinstance(size, tuple) and len(size) == 2 and all(isinstance(v, int) and v > 0 for v in size)):
            raise Finding(f"smart_resize{_short(tuple(value))} returned {_short(size)}")


def check_roundtrip(data: bytes) -> None:
    """The `python_roundtrip` target."""
    steps = parsed_actions(data)
    for action in steps:
        for fmt in actions.FORMATS:
            ok, rendered = _expect(actions.render, action, fmt, coords="pixel", strict=True)
            if not ok:
                continue  # not expressible in this format, or only with a loss
            ok, back = _expect(actions.parse_steps, rendered, fmt, coords="pixel")
            if not ok:
                raise Finding(f"render({_short(action)}, {fmt}) wrote {_short(rendered)}, which does not parse: {back}")
            if back != [action]:
                raise Finding(f"render({_short(action)}, {fmt}) wrote {_short(rendered)}, which parses as {_short(back)}")
    if len(steps) > 1:
        for fmt in actions.FORMATS:
            ok, rendered = _expect(actions.render_steps, steps, fmt, coords="pixel", strict=True)
            if not ok:
                continue
            ok, back = _expect(actions.parse_steps, rendered, fmt, coords="pixel")
            if not ok:
                raise Finding(f"render_steps({_short(steps)}, {fmt}) wrote {_short(rendered)}, which does not parse: {back}")
            if back != steps:
                raise Finding(f"render_steps({_short(steps)}, {fmt}) wrote {_short(rendered)}, which parses as {_short(back)}")


TARGETS: Dict[str, Callable[[bytes], None]] = {
    "python_actions": check_actions,
    "python_roundtrip": check_roundtrip,
}


def hostile_inputs(size: int = 1 << 20) -> Iterator[Tuple[str, bytes]]:
    """Inputs too large to keep in the corpus: `size`-character strings (a megabyte by default),
    deep nesting, huge numbers, many calls, repeated tags."""
    n = size
    yield "text", b"a" * n
    yield "type-text", json.dumps({"type": "type_text", "text": "x" * n}).encode()
    yield "uitars-type", ("Action: type(content='" + "\u00e9" * (n // 2) + "')").encode()
    yield "tool-call-tags", ("<tool_call>" * (n // 11)).encode()
    yield "think-tags", ("<think>" * (n // 7) + "<tool_call>{").encode()
    yield "think-unclosed", ("<think>" + "x" * n + "<tool_call>{").encode()
    yield "brackets", b"[" * n
    yield "braces", b'{"a":' * (n // 5)
    yield "parens", ("Action: click(start_box='" + "(" * n + "')").encode()
    yield "digits", b'{"type": "tap", "x": ' + b"9" * min(n, 5000) + b', "y": 1}'
    yield "calls", b"Action: press_home()" + b" press_back()" * (n // 13)
    yield "points", ("Action: click(start_box='<point>" + "1 " * (n // 2) + "</point>')").encode()


def replay(name: str, paths: Sequence[str], timeout: float = 0.0) -> int:
    """Runs files through a target outside the fuzzer, printing `run FILE` before each and
    `ok FILE SECONDS` or `finding FILE: MESSAGE` after; with a timeout, a file still running then
    ends the process (its `run` line has no answer)."""
    import faulthandler

    _import_phoneworld(instrument=False)
    check = TARGETS[name]
    failed = 0
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        print(f"run {path}", flush=True)
        if timeout > 0:
            faulthandler.dump_traceback_later(timeout, exit=True)
        start = time.perf_counter()
        try:
            check(data)
            print(f"ok {path} {time.perf_counter() - start:.3f}", flush=True)
        except Finding as err:
            failed += 1
            print(f"finding {path}: {err}", flush=True)
        finally:
            faulthandler.cancel_dump_traceback_later()
    return 1 if failed else 0


def write_hostile(folder: str, size: int) -> int:
    """Writes `hostile_inputs(size)` into a folder, one file each."""
    os.makedirs(folder, exist_ok=True)
    for label, data in hostile_inputs(size):
        with open(os.path.join(folder, f"hostile-{label}"), "wb") as f:
            f.write(data)
    return 0


def main(argv: List[str]) -> int:
    args = argv[1:]
    if args[:1] == ["--list"]:
        print("\n".join(TARGETS))
        return 0
    if args[:1] == ["--write-hostile"] and len(args) == 3:
        return write_hostile(args[1], int(args[2]))
    if args[:1] == ["--replay"]:
        timeout = 0.0
        if len(args) > 2 and args[1].startswith("--timeout="):
            timeout = float(args[1].split("=", 1)[1])
            args = args[:1] + args[2:]
        if len(args) > 1 and args[1] in TARGETS:
            return replay(args[1], args[2:], timeout)
    if not args or args[0] not in TARGETS:
        print(
            f"usage: {argv[0]} --list | <target> [--argv0 CMD] [libFuzzer flags] [corpus dirs]"
            " | --replay [--timeout=S] <target> FILE... | --write-hostile DIR SIZE",
            file=sys.stderr,
        )
        print(f"targets: {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    import atheris

    name, rest = args[0], args[1:]
    check = TARGETS[name]
    # libFuzzer runs argv[0] again for -merge and -fork: `--argv0 "python script target"` says how.
    argv0 = argv[0]
    if rest[:1] == ["--argv0"] and len(rest) > 1:
        argv0, rest = rest[1], rest[2:]
    _import_phoneworld(instrument=True)
    _phone()  # the first phone is made before fuzzing starts

    def one_input(data: bytes) -> None:
        check(data)

    atheris.Setup([argv0] + rest, one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
