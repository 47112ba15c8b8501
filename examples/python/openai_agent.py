"""Evaluate a model behind any OpenAI-compatible chat-completions server (vLLM serving Qwen2.5-VL or
UI-TARS, a hosted API, ...) on PhoneWorld tasks served over AndroidWorld's HTTP env-server API.

Start the phones (`phoneworld serve-http --port 5000 --devices 4`, or `phoneworld.serve_http(...)`
from Python) and the model server, then:

    .venv/bin/python examples/python/openai_agent.py --server http://127.0.0.1:5000 --devices 4 \\
        --model-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct --format qwen25vl \\
        --tasks all --instances 1 --max-steps 30 --out results.jsonl

Each episode (a task instance) runs: `/task/initialize` -> up to `--max-steps` turns of
(`/screenshot` -> chat completion with the screenshot and the goal -> the reply parsed by
`phoneworld.actions` in any format it reads -> one `/execute_action` per action) -> `/task/score` ->
`/task/tear_down`. A finish (UI-TARS `finished()`, Qwen `terminate`, AndroidWorld `status`, ...) ends
the episode. Every episode is one line of `--out` (JSONL); a summary table follows at the end.

Devices: each `--server` URL is one device (give it several times); with `--devices N` each URL is a
server whose devices `/emu0` .. `/emuN-1` are used. One thread drives each device. Every device is
reinitialized with the same `--instances` and `--seed`, so task instance i is the same phone
everywhere.

Model or server trouble ends only the episode it happens in: the error is recorded in its line,
the task is still scored and torn down when the server allows, and the run goes on. Replies that
are not an action are recorded as parse errors and the model gets another turn (up to
`--max-invalid` in a row).

Only `requests`, the standard library and `phoneworld` are used.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import queue
import struct
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import requests

from phoneworld import ActionError
from phoneworld import actions as pw_actions

JsonDict = Dict[str, Any]

#: The header `--episode-header` adds to each chat request: which device, task, instance and turn
#: it is for (for scripted test models and logging proxies; no real model reads it).
EPISODE_HEADER = "X-PhoneWorld-Episode"
#: Longest model reply kept in the results (the parser itself reads up to 100,000 characters).
KEEP_REPLY_CHARS = 4000


# --- canonical action -> AndroidWorld JSON action ----------------------------------------------------


class Unsupported(ValueError):
    """A canonical action the AndroidWorld JSON action API cannot express."""


def to_json_action(action: JsonDict) -> JsonDict:
    """The AndroidWorld JSON action (with PhoneWorld's server extensions) that performs a canonical
    action of `phoneworld.actions`.

    - tap, double_tap -> click, double_tap at x, y; long_press -> long_press with its duration (ms);
    - swipe -> a literal scroll from (x, y) to (x2, y2) with its duration; the API has no drag, so a
      drag becomes the same literal scroll (the same finger path, at the drag's pace);
    - type_text -> input_text into the focused field without pressing Enter (``press_enter: false``;
      ``clear_text`` when it clears first);
    - key back, home, enter -> navigate_back, navigate_home, keyboard_enter;
    - open_app -> open_app; answer -> answer; wait -> wait (the server waits its one second);
    - finish -> status with goal_status complete (success) or infeasible (its text, if any, is the
      caller's to send as an answer first, as the phone itself treats a finish text).

    close_app and the keys recents, delete and menu raise `Unsupported`.

    >>> to_json_action({"type": "tap", "x": 540, "y": 1200})
    {'action_type': 'click', 'x': 540, 'y': 1200}
    >>> to_json_action({"type": "type_text", "text": "milk", "clear": False})
    {'action_type': 'input_text', 'text': 'milk', 'press_enter': False}
    """
    kind = action.get("type")
    if kind in ("tap", "double_tap", "long_press"):
        out: JsonDict = {"action_type": "click" if kind == "tap" else kind, "x": action["x"], "y": action["y"]}
        if kind == "long_press" and action.get("ms") is not None:
            out["duration"] = action["ms"]
        return out
    if kind in ("swipe", "drag"):
        out = {"action_type": "scroll", "x": action["x1"], "y": action["y1"], "x2": action["x2"], "y2": action["y2"]}
        if action.get("ms") is not None:
            out["duration"] = action["ms"]
        return out
    if kind == "type_text":
        out = {"action_type": "input_text", "text": action["text"], "press_enter": False}
        if action.get("clear"):
            out["clear_text"] = True
        return out
    if kind == "key":
        key = action.get("key")
        mapped = {"back": "navigate_back", "home": "navigate_home", "enter": "keyboard_enter"}.get(str(key))
        if mapped is None:
            raise Unsupported(f"the JSON action API has no {key} key")
        return {"action_type": mapped}
    if kind == "open_app":
        return {"action_type": "open_app", "app_name": action["app"]}
    if kind == "answer":
        return {"action_type": "answer", "text": action["text"]}
    if kind == "wait":
        return {"action_type": "wait"}
    if kind == "finish":
        return {"action_type": "status", "goal_status": "infeasible" if action.get("status") == "infeasible" else "complete"}
    raise Unsupported(f"the JSON action API has no {kind}")


# --- screenshots ---------------------------------------------------------------------------------------


def png_size(png: bytes) -> Tuple[int, int]:
    """(width, height) from a PNG's IHDR."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def encode_png(rgb: bytes, width: int, height: int) -> bytes:
    """An 8-bit RGB PNG of `rgb` (rows top to bottom, no padding)."""
    stride = width * 3
    if len(rgb) != stride * height:
        raise ValueError(f"{len(rgb)} bytes are not {width}x{height} RGB")
    raw = b"".join(b"\x00" + rgb[row * stride : (row + 1) * stride] for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", zlib.compress(raw, 6)) + _png_chunk(b"IEND", b"")


def pixels_json_to_png(body: bytes) -> bytes:
    """The upstream `/screenshot` reply (``{"pixels": H x W x 3 nested ints}``) as a PNG.

    The pixel array is read without building millions of Python lists (the reply of a 1080x2400
    screen is ~36 MB of JSON); anything unexpected falls back to `json.loads`.
    """
    start, end = body.find(b"["), body.rfind(b"]")
    if start < 0 or end < start:
        raise ValueError(f"no pixel array in the screenshot reply: {body[:200]!r}")
    inner = body[start : end + 1].translate(None, b" \t\r\n")
    height = inner.count(b"]],[[") + 1
    try:
        values = bytes(map(int, inner.translate(None, b"[]").split(b",")))
    except ValueError:  # not numbers, or one outside 0..255
        values = b""
    width = len(values) // (3 * height)
    if width == 0 or width * height * 3 != len(values) or inner[:3] != b"[[[":
        pixels = json.loads(body)["pixels"]
        height, width = len(pixels), len(pixels[0])
        values = bytes(c for row in pixels for px in row for c in px)
    return encode_png(values, width, height)


# --- HTTP clients --------------------------------------------------------------------------------------


class ServerError(RuntimeError):
    """The PhoneWorld server failed a request: unreachable (`status` None) or an error status."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status


class ModelError(RuntimeError):
    """The model server failed a request after the retries."""


class Device:
    """One device of a serve-http server (its base URL, `/emuN` included)."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()

    def request(self, method: str, path: str, *, params: Optional[JsonDict] = None, body: Optional[JsonDict] = None) -> requests.Response:
        try:
            reply = self.session.request(method, self.url + path, params=params, json=body, timeout=self.timeout)
        except requests.RequestException as err:
            raise ServerError(f"{method} {path}: {err}") from err
        if reply.status_code >= 400:
            raise ServerError(f"{method} {path}{_query(params)}{_shown_body(body)}: HTTP {reply.status_code}: {reply.text[:300]}", reply.status_code)
        return reply

    def json(self, method: str, path: str, **kwargs: Any) -> JsonDict:
        reply = self.request(method, path, **kwargs)
        try:
            value = reply.json()
        except ValueError as err:
            raise ServerError(f"{method} {path}: not JSON: {reply.text[:200]!r}") from err
        return value if isinstance(value, dict) else {"value": value}

    def screenshot_png(self, png: bool) -> bytes:
        if png:
            reply = self.request("GET", "/screenshot", params={"wait_to_stabilize": "false", "format": "png"})
            return reply.content
        reply = self.request("GET", "/screenshot", params={"wait_to_stabilize": "false"})
        return pixels_json_to_png(reply.content)

    def close(self) -> None:
        self.session.close()


def _query(params: Optional[JsonDict]) -> str:
    return "?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else ""


def _shown_body(body: Optional[JsonDict]) -> str:
    return f" {json.dumps(body)[:300]}" if body is not None else ""


class Model:
    """A chat-completions client: one image and the goal per request."""

    def __init__(self, args: argparse.Namespace, system_prompt: str) -> None:
        base = args.model_url.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = args.model
        self.system_prompt = system_prompt
        self.temperature = args.temperature
        self.max_tokens = args.max_tokens
        self.retries = args.retries
        self.timeout = args.model_timeout
        self.headers = {"Content-Type": "application/json"}
        if args.api_key:
            self.headers["Authorization"] = f"Bearer {args.api_key}"
        self.session = requests.Session()

    def complete(self, text: str, png: bytes, extra_headers: Optional[Dict[str, str]] = None) -> Tuple[Any, JsonDict]:
        """The model's reply (its text, or its tool calls as ``[{"name", "arguments"}]``) and usage."""
        image = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        payload = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": self.system_prompt},
                {"role": "user", "content": [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": image}}]},
            ],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        headers = dict(self.headers, **(extra_headers or {}))
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(2.0**attempt, 30.0))
            try:
                reply = self.session.post(self.url, json=payload, headers=headers, timeout=self.timeout)
            except requests.RequestException as err:
                last = f"{type(err).__name__}: {err}"
                continue
            if reply.status_code == 429 or reply.status_code >= 500:
                last = f"HTTP {reply.status_code}: {reply.text[:300]}"
                continue
            if reply.status_code >= 400:
                raise ModelError(f"HTTP {reply.status_code}: {reply.text[:300]}")
            try:
                value = reply.json()
                message = value["choices"][0]["message"]
            except (ValueError, KeyError, IndexError, TypeError) as err:
                raise ModelError(f"not a chat completion ({err!r}): {reply.text[:300]}") from err
            usage = value.get("usage") or {}
            calls = message.get("tool_calls") or []
            if calls and not (message.get("content") or "").strip():
                # OpenAI-style function calling: the actions readers take [{"name", "arguments"}].
                return [{"name": c["function"]["name"], "arguments": c["function"].get("arguments") or {}} for c in calls], usage
            return message.get("content") or "", usage
        raise ModelError(f"no reply after {self.retries + 1} attempts: {last}")

    def close(self) -> None:
        self.session.close()


# --- episodes ------------------------------------------------------------------------------------------


@dataclass
class Episode:
    task: str
    idx: int
    device: str
    goal: str = ""
    score: Optional[float] = None
    steps: int = 0
    finished: Optional[str] = None
    actions: List[JsonDict] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)
    seconds: float = 0.0
    tokens: int = 0

    def line(self) -> JsonDict:
        return {
            "task": self.task,
            "idx": self.idx,
            "goal": self.goal,
            "score": self.score,
            "steps": self.steps,
            "finished": self.finished,
            "actions": self.actions,
            "errors": self.errors,
            "device": self.device,
            "seconds": round(self.seconds, 3),
            "tokens": self.tokens,
        }


def _describe(action: JsonDict) -> str:
    return json.dumps(action, ensure_ascii=False, separators=(",", ":"))


def prompt_text(goal: str, history: Sequence[str], width: int, height: int) -> str:
    lines = [f"Instruction: {goal}", f"The screenshot below is the phone's screen now ({width}x{height})."]
    if history:
        lines.append("Actions so far:")
        lines.extend(f"{i + 1}. {h}" for i, h in enumerate(history))
    else:
        lines.append("No actions so far.")
    lines.append("Reply with the next action.")
    return "\n".join(lines)


def parse_reply(reply: Any, args: argparse.Namespace, screen: Tuple[int, int], device: Device) -> List[JsonDict]:
    """The canonical actions a model reply stands for (`phoneworld.actions`, any format it reads)."""
    fmt = args.format
    if isinstance(reply, list) and fmt == "auto":
        fmt = "qwen25vl" if any(c.get("name") == "mobile_use" for c in reply) else "phonebuddy"
    coords = args.coords
    try:
        return pw_actions.parse_steps(reply, fmt, screen=screen, coords=coords)
    except ActionError as err:
        if "ui_elements" not in str(err):
            raise
    # An AndroidWorld action at an element index: read the screen's elements and try again.
    elements = device.json("GET", "/ui_elements").get("ui_elements", [])
    return pw_actions.parse_steps(reply, fmt, screen=screen, coords=coords, ui_elements=elements)


def run_episode(device: Device, model: Model, task: str, idx: int, args: argparse.Namespace) -> Episode:
    episode = Episode(task=task, idx=idx, device=device.url)
    started = time.perf_counter()
    key = {"task_type": task, "task_idx": idx}
    initialized = False
    try:
        device.request("POST", "/reset", params={"go_home": "true"})
        device.request("POST", "/task/initialize", params=key)
        initialized = True
        episode.goal = str(device.json("GET", "/task/goal", params=key).get("goal", ""))
        history: List[str] = []
        invalid = 0
        answered = False
        for step in range(args.max_steps):
            png = device.screenshot_png(args.png)
            screen = png_size(png)
            headers = None
            if args.episode_header:
                headers = {EPISODE_HEADER: json.dumps({"device": device.url, "task": task, "idx": idx, "step": step})}
            reply, usage = model.complete(prompt_text(episode.goal, history, *screen), png, headers)
            episode.steps += 1
            episode.tokens += int(usage.get("total_tokens") or 0)
            shown = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
            record: JsonDict = {"step": step, "reply": shown[:KEEP_REPLY_CHARS], "sent": []}
            episode.actions.append(record)
            try:
                parsed = parse_reply(reply, args, screen, device)
            except ActionError as err:
                record["error"] = f"parse error: {err}"
                episode.errors.append(f"step {step}: parse error: {err}")
                history.append("(the reply was not an action)")
                invalid += 1
                if invalid >= args.max_invalid:
                    episode.errors.append(f"stopped after {invalid} replies in a row without a usable action")
                    break
                continue
            usable = False
            finish: Optional[JsonDict] = None
            for action in parsed:
                if action["type"] == "answer":
                    answered = True
                if action["type"] == "finish":
                    finish = action
                    if action.get("text") and not answered:
                        # The phone keeps a finish's text as the answer when none was given.
                        parsed_answer = {"type": "answer", "text": action["text"]}
                        usable |= _execute(device, parsed_answer, record, episode, step)
                        answered = True
                usable |= _execute(device, action, record, episode, step)
                if finish is not None:
                    break
            history.append("; ".join(_describe(a) for a in record["sent"]) or "(nothing the phone could do)")
            invalid = 0 if usable else invalid + 1
            if finish is not None:
                episode.finished = finish.get("status")
                break
            if invalid >= args.max_invalid:
                episode.errors.append(f"stopped after {invalid} replies in a row without a usable action")
                break
    except (ServerError, ModelError) as err:
        episode.errors.append(f"{type(err).__name__}: {err}")
    except Exception as err:  # an episode never takes the run down
        episode.errors.append(f"unexpected {type(err).__name__}: {err}")
    if initialized:
        try:
            episode.score = float(device.json("GET", "/task/score", params=key)["score"])
        except (ServerError, KeyError, TypeError, ValueError) as err:
            episode.errors.append(f"score: {err}")
        try:
            device.request("POST", "/task/tear_down", params=key)
        except ServerError as err:
            episode.errors.append(f"tear_down: {err}")
    episode.seconds = time.perf_counter() - started
    return episode


def _execute(device: Device, action: JsonDict, record: JsonDict, episode: Episode, step: int) -> bool:
    """Sends one canonical action; False when it could not be (recorded as an error)."""
    try:
        sent = to_json_action(action)
    except Unsupported as err:
        record.setdefault("skipped", []).append(action)
        episode.errors.append(f"step {step}: {err}")
        return False
    record["sent"].append(sent)
    try:
        device.request("POST", "/execute_action", body=sent)
    except ServerError as err:
        if err.status is None:
            raise  # the server is gone: the episode ends
        record["error"] = str(err)
        episode.errors.append(f"step {step}: {err}")
        return False
    return True


# --- the run -------------------------------------------------------------------------------------------


def device_urls(servers: Sequence[str], devices: Optional[int]) -> List[str]:
    urls: List[str] = []
    for server in servers:
        base = server.rstrip("/")
        urls.extend([f"{base}/emu{i}" for i in range(devices)] if devices else [base])
    return urls


def prepare(urls: Sequence[str], args: argparse.Namespace) -> List[str]:
    """Checks every device, draws the same suite on each, and returns the task names to run."""
    names: List[str] = []
    for n, url in enumerate(urls):
        device = Device(url, args.server_timeout)
        try:
            device.request("GET", "/health")
            device.request(
                "GET",
                "/suite/reinitialize",
                params={"n_task_combinations": args.instances, "seed": args.seed, "task_family": args.task_family},
            )
            if n == 0:
                names = device.json("GET", "/suite/task_list", params={"max_index": -1}).get("task_list", [])
        finally:
            device.close()
    if args.tasks != "all":
        wanted = [t.strip() for t in args.tasks.split(",") if t.strip()]
        unknown = [t for t in wanted if t not in names]
        if unknown:
            raise SystemExit(f"--tasks: not in the server's suite: {', '.join(unknown)}")
        names = wanted
    if args.limit:
        names = names[: args.limit]
    return names


def system_prompt(args: argparse.Namespace) -> str:
    if args.system_prompt:
        with open(args.system_prompt, encoding="utf-8") as f:
            return f.read()
    fmt = args.prompt_format or (args.format if args.format != "auto" else "androidworld")
    return pw_actions.system_prompt(fmt, screen=(args.width, args.height), coords=args.coords)


def summary(episodes: Sequence[Episode], args: argparse.Namespace, elapsed: float) -> str:
    """The summary table in the layout `phoneworld eval` prints, from `eval_report` when the suite
    is at hand here (by category), else from the scores alone."""
    results: List[JsonDict] = [
        {
            "template": e.task,
            "category": "",
            "seed": e.idx,
            "instruction": e.goal,
            "success": e.score is not None and e.score >= 1.0,
            "steps": e.steps,
            "failure": None if e.score is not None and e.score >= 1.0 else {"step": e.steps, "reason": _failure(e)},
            "subgoals": [],
            "collateral": [],
            "state_hash": "",
        }
        for e in episodes
    ]
    report: Optional[JsonDict] = None
    try:
        from phoneworld._core import eval_report, suite_tasks

        categories = {t["id"]: t["category"] for t in suite_tasks(args.suite)}
        for r in results:
            r["category"] = categories.get(r["template"], "other")
        report = eval_report(results, args.model, args.instances, args.suite)
    except Exception:  # another suite than the one here, or an older phoneworld: scores only
        report = None
    if report is None:
        ok = sum(r["success"] for r in results)
        report = {
            "suite": args.suite,
            "episodes": len(results),
            "success_rate": ok / len(results) if results else 0.0,
            "by_category": {},
            "failures": [{"template": r["template"], "seed": r["seed"], "step": r["steps"], "reason": r["failure"]["reason"]} for r in results if not r["success"]],
        }
    templates = len({e.task for e in episodes})
    lines = [f"suite {report['suite']} ({templates} templates x {args.instances} instances), agent {args.model}"]
    lines.append(f"{'category':<12} {'episodes':>9} {'success':>9}")
    for category, v in report["by_category"].items():
        lines.append(f"{category:<12} {v['episodes']:>9} {v['success_rate'] * 100:>8.1f}%")
    lines.append(f"{'all':<12} {report['episodes']:>9} {report['success_rate'] * 100:>8.1f}%")
    for f in report["failures"][:20]:
        lines.append(f"  failed {f['template']} instance {f['seed']} at step {f['step']}: {f['reason']}")
    if len(report["failures"]) > 20:
        lines.append(f"  ... and {len(report['failures']) - 20} more failures (see the JSONL)")
    scores = [e.score or 0.0 for e in episodes]
    mean = sum(scores) / len(scores) if scores else 0.0
    steps = sum(e.steps for e in episodes)
    errors = sum(len(e.errors) for e in episodes)
    lines.append(f"mean score {mean:.3f}, {steps} model turns, {errors} errors recorded, {elapsed:.1f} s")
    return "\n".join(lines)


def _failure(e: Episode) -> str:
    if e.score is None:
        return "not scored: " + (e.errors[-1] if e.errors else "no score")
    reason = f"score {e.score:g}"
    if e.errors:
        reason += f" ({len(e.errors)} errors, last: {e.errors[-1][:120]})"
    return reason


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--server", action="append", help="serve-http base URL (repeat for several devices or servers); default http://127.0.0.1:5000")
    p.add_argument("--devices", type=int, default=None, help="use /emu0 .. /emuN-1 of each --server, a thread per device")
    p.add_argument("--model-url", default="http://127.0.0.1:8000/v1", help="OpenAI-compatible base URL (…/v1) or its /chat/completions")
    p.add_argument("--model", default="default", help="model name sent in each request")
    p.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY"), help="bearer token (default: $OPENAI_API_KEY)")
    p.add_argument("--tasks", default="all", help="comma-separated task names, or all")
    p.add_argument("--limit", type=int, default=0, help="only the first N tasks")
    p.add_argument("--instances", type=int, default=1, help="instances per task (n_task_combinations)")
    p.add_argument("--seed", type=int, default=42, help="suite seed for /suite/reinitialize")
    p.add_argument("--task-family", default="android_world", help="task family for /suite/reinitialize")
    p.add_argument("--max-steps", type=int, default=30, help="model turns per episode")
    p.add_argument("--max-invalid", type=int, default=3, help="end an episode after this many unusable replies in a row")
    p.add_argument("--out", default="results.jsonl", help="JSONL file, one line per episode")
    p.add_argument("--png", action=argparse.BooleanOptionalAction, default=True, help="fetch screenshots as PNG (--no-png: upstream JSON pixels)")
    p.add_argument("--format", default="auto", choices=("auto",) + pw_actions.FORMATS, help="the model's action format (auto: detected per reply)")
    p.add_argument("--coords", default=None, choices=pw_actions.COORDS, help="coordinate frame of the model's output (default: the format's)")
    p.add_argument("--prompt-format", default=None, choices=pw_actions.FORMATS, help="format the system prompt describes (default: --format, or androidworld)")
    p.add_argument("--system-prompt", default=None, help="file with a system prompt to use instead")
    p.add_argument("--width", type=int, default=1080, help="screen width the system prompt assumes")
    p.add_argument("--height", type=int, default=2400, help="screen height the system prompt assumes")
    p.add_argument("--suite", default="phoneworld-v0", help="suite name for the summary's categories")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument("--retries", type=int, default=2, help="retries of a model request on connection errors, 429 and 5xx")
    p.add_argument("--model-timeout", type=float, default=120.0, help="seconds per model request")
    p.add_argument("--server-timeout", type=float, default=60.0, help="seconds per PhoneWorld request")
    p.add_argument("--episode-header", action="store_true", help=f"send {EPISODE_HEADER} (device, task, idx, step) with each chat request")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    urls = device_urls(args.server or ["http://127.0.0.1:5000"], args.devices)
    names = prepare(urls, args)
    jobs: "queue.Queue[Tuple[str, int]]" = queue.Queue()
    for name in names:
        for idx in range(args.instances):
            jobs.put((name, idx))
    total = jobs.qsize()
    prompt = system_prompt(args)
    episodes: List[Episode] = []
    lock = threading.Lock()
    started = time.perf_counter()
    out = open(args.out, "w", encoding="utf-8")

    def worker(url: str) -> None:
        device = Device(url, args.server_timeout)
        model = Model(args, prompt)
        try:
            while True:
                try:
                    task, idx = jobs.get_nowait()
                except queue.Empty:
                    return
                episode = run_episode(device, model, task, idx, args)
                with lock:
                    episodes.append(episode)
                    out.write(json.dumps(episode.line(), ensure_ascii=False) + "\n")
                    out.flush()
                    if not args.quiet:
                        score = "-" if episode.score is None else f"{episode.score:g}"
                        note = f" ({len(episode.errors)} errors)" if episode.errors else ""
                        print(f"[{len(episodes)}/{total}] {task} {idx}: score {score}, {episode.steps} steps{note}", file=sys.stderr, flush=True)
        finally:
            device.close()
            model.close()

    threads = [threading.Thread(target=worker, args=(url,), name=f"device-{i}", daemon=True) for i, url in enumerate(urls)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        out.close()
    episodes.sort(key=lambda e: (names.index(e.task), e.idx))
    print(summary(episodes, args, time.perf_counter() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
