"""A scripted stand-in for an OpenAI-compatible chat-completions server, for testing harnesses.

`FakeModel` serves ``POST /v1/chat/completions`` (standard library `http.server`, port 0, a thread
per request). It knows no model: in ``"expert"`` mode it reads which episode a request is for from
the ``X-PhoneWorld-Episode`` header (``{"device", "task", "idx", "step"}``, sent by
``examples/python/openai_agent.py --episode-header``), asks that PhoneWorld device for the reference
solution's next action (``POST /task/expert_action``), and answers it the way a model would, in a
format that changes from request to request (UI-TARS, Qwen2.5-VL ``mobile_use``, PhoneBuddy tool
calls, AndroidWorld JSON, canonical JSON), so the harness's parsing is exercised. When the solution
is done it answers a finish. In ``"garbage"`` mode it answers text no format reads; in ``"error"``
mode every request fails with HTTP 500.

    with FakeModel() as fake:
        ... --model-url fake.url --episode-header ...
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

import requests

from phoneworld import ActionError
from phoneworld import actions

#: The formats answered in turn (request n uses FORMATS[n % len]); one that cannot write an action
#: hands it to the next.
FORMATS = ("uitars", "qwen25vl", "phonebuddy", "androidworld", "canonical")
GARBAGE = "I am not sure what to do here. Perhaps look at the screen more closely?"


def expert_steps(json_action: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The canonical actions a JSON action of the server's expert stands for, its extensions
    (``press_enter: false``, a long press's ``duration``) included."""
    steps = actions.parse_steps(json_action, "androidworld")
    if json_action.get("action_type") == "input_text" and json_action.get("press_enter") is False:
        assert steps[-1] == {"type": "key", "key": "enter"}
        steps = steps[:-1]
    if json_action.get("action_type") == "long_press" and json_action.get("duration") is not None:
        steps[0]["ms"] = int(json_action["duration"])
    return steps


def render_reply(steps: List[Dict[str, Any]], turn: int, screen: Tuple[int, int] = (1080, 2400)) -> str:
    """`steps` written as one model reply, in the format of this turn (or the next that can)."""
    for k in range(len(FORMATS)):
        fmt = FORMATS[(turn + k) % len(FORMATS)]
        try:
            out = actions.render_steps(steps, fmt, screen=screen, strict=True)
        except ActionError:
            continue
        if isinstance(out, dict):
            text = json.dumps(out)
            return f"Action: {text}" if fmt == "androidworld" and turn % 2 else text
        if fmt == "uitars":
            return f"Thought: following the plan, step {turn}.\n{out}"
        if fmt == "qwen25vl":
            return f"<think>step {turn}</think>\n{out}"
        return out
    raise ActionError(f"no format writes {steps}")


class FakeModel:
    """The fake server; `url` is its ``.../v1`` base. `requests` keeps what each request held."""

    def __init__(self, mode: str = "expert", port: int = 0, upstream: bool = False) -> None:
        assert mode in ("expert", "garbage", "error")
        self.mode = mode
        #: Ask for the expert's actions in upstream's action set only (no PhoneWorld extensions).
        self.upstream = upstream
        self.requests: List[Dict[str, Any]] = []
        self.errors: List[str] = []
        self._lock = threading.Lock()
        self._turn = 0
        self._session = threading.local()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                try:
                    request = json.loads(body)
                    content = fake.answer(request, self.headers.get("X-PhoneWorld-Episode"))
                except Exception as err:  # noqa: BLE001 - reported to the client as a 500
                    with fake._lock:
                        fake.errors.append(f"{type(err).__name__}: {err}")
                    return self._send(500, {"error": {"message": f"{type(err).__name__}: {err}"}})
                self._send(
                    200,
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "model": request.get("model", "fake"),
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

            def _send(self, status: int, value: Dict[str, Any]) -> None:
                data = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-model", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answer(self, request: Dict[str, Any], episode_header: Optional[str]) -> str:
        messages = request["messages"]
        user = messages[-1]["content"]
        texts = [p["text"] for p in user if p.get("type") == "text"]
        images = [p["image_url"]["url"] for p in user if p.get("type") == "image_url"]
        with self._lock:
            turn = self._turn
            self._turn += 1
            self.requests.append({"episode": episode_header, "text": texts, "image_prefix": [i[:40] for i in images], "image_chars": sum(map(len, images))})
        if not images or not images[0].startswith("data:image/png;base64,iVBORw0KGgo"):
            raise ValueError("the request has no PNG screenshot")
        if self.mode == "garbage":
            return GARBAGE
        if self.mode == "error":
            raise RuntimeError("the model is down (error mode)")
        if not episode_header:
            raise ValueError("expert mode needs the X-PhoneWorld-Episode header")
        episode = json.loads(episode_header)
        session = getattr(self._session, "value", None)
        if session is None:
            session = self._session.value = requests.Session()
        reply = session.post(
            episode["device"] + "/task/expert_action",
            params={"task_type": episode["task"], "task_idx": episode["idx"], "upstream": str(self.upstream).lower()},
            timeout=30,
        )
        reply.raise_for_status()
        action = reply.json()["action"]
        if action is None:
            steps = [{"type": "finish", "status": "success", "text": ""}]
        else:
            steps = expert_steps(action)
        return render_reply(steps, turn)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeModel":
        return self

    def __exit__(self, *_args: object) -> None:
        self.close()
