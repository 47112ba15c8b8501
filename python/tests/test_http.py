"""AndroidWorld's env-server HTTP API (`phoneworld.serve_http`, `Phone.serve_http`) driven by real HTTP
clients: requests for the endpoints one by one, aiohttp for several devices of one server at once.
Every reply's status, Content-Type and exact body; FastAPI's 422s, upstream's 400 and bare 500s, 404,
405 and 413; upstream's instance seeds and task families; the extensions (`/ui_elements`,
`/state_hash`, `/task/expert_action`). Upstream's own `JSONAction` (vendored under
fixtures/android_world) is the oracle for which actions are valid and how the replies quote them."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any, Iterator, Optional

import aiohttp
import numpy as np
import pydantic
import pytest
import requests
from PIL import Image

from android_world.env import json_action as upstream_json_action  # vendored: tests/fixtures/android_world

import phoneworld
from phoneworld import ConfigError, HttpServer, Phone
from phoneworld._core import suite_tasks, task_instance

ROOT = Path(__file__).resolve().parents[2]
JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
TASK_ENDPOINTS = [
    ("POST", "/task/initialize"),
    ("POST", "/task/tear_down"),
    ("GET", "/task/score"),
    ("GET", "/task/goal"),
    ("GET", "/task/template"),
    ("POST", "/task/expert_action"),
]
UPSTREAM_FIELDS = {"action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name", "keycode", "clear_text"}


# ---------------------------------------------------------------------------------------- helpers


class Api:
    """One device's base URL and a keep-alive session."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.session = requests.Session()

    def request(self, method: str, path: str, body: Any = None, **params: Any) -> requests.Response:
        return self.session.request(method, self.url + path, params=params, json=body, timeout=60)

    def get(self, path: str, **params: Any) -> requests.Response:
        return self.request("GET", path, **params)

    def post(self, path: str, body: Any = None, **params: Any) -> requests.Response:
        return self.request("POST", path, body, **params)

    def names(self) -> list[str]:
        return list(ok(self.get("/suite/task_list", max_index=-1))["task_list"])


def where(r: requests.Response) -> str:
    return f"{r.request.method} {r.request.url}"


def compact(value: Any) -> bytes:
    """The body FastAPI writes for `value`: compact JSON in UTF-8, keys in the order given."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def expect(r: requests.Response, status: int, body: Any) -> None:
    """A JSON reply with exactly this status and body."""
    assert r.status_code == status, f"{where(r)}: {r.status_code} {r.text[:300]!r}, expected {status}"
    assert r.headers["Content-Type"] == JSON, f"{where(r)}: Content-Type {r.headers['Content-Type']!r}"
    assert r.content == compact(body), f"{where(r)}: body {r.text[:400]!r}, expected {compact(body)[:400]!r}"


def ok(r: requests.Response) -> Any:
    """A 200 JSON reply's value."""
    assert r.status_code == 200, f"{where(r)}: {r.status_code} {r.text[:300]!r}"
    assert r.headers["Content-Type"] == JSON, f"{where(r)}: Content-Type {r.headers['Content-Type']!r}"
    return r.json()


def internal_error(r: requests.Response) -> None:
    """Upstream's bare 500 for an exception in an endpoint."""
    got = (r.status_code, r.headers.get("Content-Type"), r.text)
    assert got == (500, TEXT, "Internal Server Error"), f"{where(r)}: {got}"


def success(message: str) -> dict[str, str]:
    return {"status": "success", "message": message}


def missing(name: str) -> dict[str, Any]:
    return {"type": "missing", "loc": ["query", name], "msg": "Field required", "input": None}


def bad_int(name: str, raw: str) -> dict[str, Any]:
    msg = "Input should be a valid integer, unable to parse string as an integer"
    return {"type": "int_parsing", "loc": ["query", name], "msg": msg, "input": raw}


def bad_bool(name: str, raw: str) -> dict[str, Any]:
    msg = "Input should be a valid boolean, unable to interpret input"
    return {"type": "bool_parsing", "loc": ["query", name], "msg": msg, "input": raw}


def instance_seed(seed: int, name: str, index: int) -> int:
    """Upstream's seed of instance `index` of task `name` in a suite drawn with `seed`."""
    return int(hashlib.sha256(f"{seed}_{name}_{index}".encode()).hexdigest(), 16) % 2**32


def goal_of(name: str, seed: int, index: int) -> str:
    return str(task_instance(name, instance_seed(seed, name, index))["instruction"])


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@functools.lru_cache(maxsize=None)
def templates() -> dict[str, str]:
    """The suite's template ids and instructions, in suite order."""
    return {t["id"]: t["instruction"] for t in suite_tasks()}


def upstream_message(action: dict[str, Any]) -> str:
    """The `execute_action` message upstream's server writes for `action`."""
    return f"Action {upstream_json_action.JSONAction(**action)} executed."


class Served:
    """A Python phone behind `Phone.serve_http`."""

    def __init__(self) -> None:
        self.phone = Phone(seed=0)
        self.server = self.phone.serve_http()
        self.api = Api(self.server.url)


@pytest.fixture()
def server() -> Iterator[HttpServer]:
    with phoneworld.serve_http(devices=2) as s:
        yield s


@pytest.fixture()
def api(server: HttpServer) -> Api:
    return Api(server.url)


@pytest.fixture()
def served() -> Iterator[Served]:
    s = Served()
    try:
        yield s
    finally:
        s.server.close()


# ---------------------------------------------------------------------------------------- the server


def test_the_server_handle_its_urls_and_its_lifetime() -> None:
    with phoneworld.serve_http(devices=3, width=540, height=1200) as server:
        assert server.running
        assert server.url == f"http://127.0.0.1:{server.port}" and server.address == f"127.0.0.1:{server.port}"
        assert server.device_urls == [f"{server.url}/emu{i}" for i in range(3)]
        api = Api(server.url)
        expect(api.get("/health"), 200, {"status": "success"})
        assert server.connections() >= 1, "the keep-alive connection is open"
        png = api.get("/screenshot", wait_to_stabilize="false", format="png")
        assert pixels(png.content).shape == (1200, 540, 3), "width and height are the served phones'"
        assert server.log() == [], f"nothing went wrong: {server.log()}"
    assert not server.running
    with pytest.raises(requests.ConnectionError):
        requests.get(server.url + "/health", timeout=5)
    server.close()  # idempotent
    with pytest.raises(ConfigError):
        phoneworld.serve_http(devices=0)
    with pytest.raises(ConfigError):
        phoneworld.serve_http(threads=0)


def test_health_and_reset(served: Served) -> None:
    api, phone = served.api, served.phone
    expect(api.get("/health"), 200, {"status": "success"})
    head = api.request("HEAD", "/health")
    assert head.status_code == 200 and head.content == b"", "GET routes answer HEAD, as Starlette's do"
    action = {"action_type": "open_app", "app_name": "Clock"}
    expect(api.post("/execute_action", action), 200, success("Action JSONAction(action_type='open_app', app_name='Clock') executed."))
    expect(api.post("/reset", go_home="false"), 200, success("Environment reset with go_home=False."))
    assert phone.foreground()[0] == "com.phoneworld.clock", "go_home=False stays in the app"
    expect(api.post("/reset", go_home="true"), 200, success("Environment reset with go_home=True."))
    assert phone.foreground()[0] == "com.phoneworld.launcher", "go_home=True goes home"


# ---------------------------------------------------------------------------------------- parameters

TRUE = ["true", "True", "TRUE", "1", "yes", "YES", "Yes", "on", "ON", "On", "t", "T", "y", "Y"]
FALSE = ["false", "False", "FALSE", "0", "no", "NO", "No", "off", "OFF", "Off", "f", "F", "n", "N"]
NOT_BOOL = ["maybe", "", "2", "tru", "none", "null", "yes please", "-1"]
# (query string, value) pairs pydantic reads as integers, and strings it refuses.
INTS = [("42", 42), (" 7 ", 7), ("+5", 5), ("42.0", 42), ("0042", 42), ("-0", 0), ("1_0", 10), ("42.00", 42), ("\t3\n", 3)]
NOT_INT = ["", "4.5", "abc", "1__0", "_1", "1_", "0x10", "1e3", "+", "- 1", "١٢", "4 2", "1.5e1"]


def test_every_boolean_spelling(api: Api) -> None:
    for raw in TRUE + FALSE:
        shown = "True" if raw in TRUE else "False"
        expect(api.post("/reset", go_home=raw), 200, success(f"Environment reset with go_home={shown}."))
        png = api.get("/screenshot", wait_to_stabilize=raw, format="png")
        assert (png.status_code, png.headers["Content-Type"]) == (200, "image/png"), f"wait_to_stabilize={raw!r}: {png.status_code}"
    for raw in NOT_BOOL:
        expect(api.post("/reset", go_home=raw), 422, {"detail": [bad_bool("go_home", raw)]})
        expect(api.get("/screenshot", wait_to_stabilize=raw), 422, {"detail": [bad_bool("wait_to_stabilize", raw)]})
        expert = api.post("/task/expert_action", task_type="x", task_idx=0, upstream=raw)
        expect(expert, 422, {"detail": [bad_bool("upstream", raw)]})


def test_every_integer_spelling(api: Api) -> None:
    names = api.names()
    for raw, value in INTS:
        expect(api.get("/suite/task_list", max_index=raw), 200, {"task_list": names[:value]})
    for raw in NOT_INT:
        expect(api.get("/suite/task_list", max_index=raw), 422, {"detail": [bad_int("max_index", raw)]})
    name = names[0]
    for raw, index in [("+1", 1), (" 1 ", 1), ("1.0", 1), ("-1", 1), ("-2", 0), ("0.00", 0)]:
        expect(api.get("/task/goal", task_type=name, task_idx=raw), 200, {"goal": goal_of(name, 42, index)})
    # Messages print the integer read, as upstream's f-strings do.
    expect(api.post("/task/initialize", task_type=name, task_idx="+1.0"), 200, success(f"Task {name} 1 initialized."))
    expect(api.post("/task/tear_down", task_type=name, task_idx=" -1 "), 200, success(f"Task {name} -1 torn down."))
    expect(
        api.get("/suite/reinitialize", n_task_combinations=" 3 ", seed="+7.0"),
        200,
        success("Task suite re-initialized with n_task_combinations=3, seed=7."),
    )


def pydantic_detail(kind: type, name: str, raw: str) -> Optional[dict[str, Any]]:
    """FastAPI's 422 entry for query parameter `name` of type `kind` given as `raw`, or None if valid."""
    try:
        pydantic.TypeAdapter(kind).validate_python(raw)
    except pydantic.ValidationError as e:
        error = e.errors(include_url=False)[0]
        return {"type": error["type"], "loc": ["query", name], "msg": error["msg"], "input": raw}
    return None


def test_parameters_are_read_as_pydantic_reads_them(api: Api) -> None:
    for raw in [r for r, _ in INTS] + NOT_INT:
        want = pydantic_detail(int, "max_index", raw)
        r = api.get("/suite/task_list", max_index=raw)
        assert (r.status_code == 200) == (want is None), f"max_index={raw!r}: {r.status_code} {r.text[:200]}"
        if want is not None:
            expect(r, 422, {"detail": [want]})
    for raw in TRUE + FALSE + NOT_BOOL:
        want = pydantic_detail(bool, "go_home", raw)
        r = api.post("/reset", go_home=raw)
        assert (r.status_code == 200) == (want is None), f"go_home={raw!r}: {r.status_code} {r.text[:200]}"
        if want is not None:
            expect(r, 422, {"detail": [want]})


def json_error(body: str) -> tuple[int, str]:
    """Where Python's JSON reader stops on `body`, and why (what FastAPI reports)."""
    try:
        json.loads(body)
    except json.JSONDecodeError as e:
        return e.pos, e.msg
    raise AssertionError(f"{body!r} is valid JSON")


# Readings where a hand-written server easily differs from FastAPI + pydantic.
FASTAPI_EDGE_CASES = [
    pytest.param("max_index", "4.", id="int-trailing-point"),
    pytest.param("go_home", " true ", id="bool-with-spaces"),
    pytest.param("body", '{"a": tru}', id="json-offset-bad-literal"),
    pytest.param("body", "nul", id="json-offset-truncated-literal"),
    pytest.param("body", "{", id="json-offset-at-eof"),
    pytest.param("body", '{"é": 1,}', id="json-offset-counts-bytes"),
    pytest.param("body", '{"a": "\\x"}', id="json-offset-bad-escape"),
    pytest.param("body-null", "null", id="json-null-body-is-missing"),
]


@pytest.mark.parametrize(("where", "raw"), FASTAPI_EDGE_CASES)
def test_edge_cases_read_as_fastapi_reads_them(api: Api, where: str, raw: str) -> None:
    if where == "body-null":
        body_missing = {"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}
        expect(api.session.post(api.url + "/execute_action", data=raw.encode(), timeout=30), 422, {"detail": [body_missing]})
    elif where == "body":
        r = api.session.post(api.url + "/execute_action", data=raw.encode(), timeout=30)
        entry = r.json()["detail"][0]
        pos, why = json_error(raw)
        assert (r.status_code, entry["type"], entry["loc"], entry["ctx"]) == (422, "json_invalid", ["body", pos], {"error": why})
    elif where == "max_index":
        want = pydantic_detail(int, where, raw)
        expect(api.get("/suite/task_list", max_index=raw), 422, {"detail": [want]})
    else:
        want = pydantic_detail(bool, where, raw)
        expect(api.post("/reset", go_home=raw), 422, {"detail": [want]})


REQUIRED = [
    ("POST", "/reset", ["go_home"]),
    ("GET", "/screenshot", ["wait_to_stabilize"]),
    ("GET", "/suite/task_list", ["max_index"]),
    ("GET", "/suite/task_length", ["task_type"]),
    *[(method, path, ["task_type", "task_idx"]) for method, path in TASK_ENDPOINTS],
]


def test_missing_and_unreadable_parameters_are_fastapis_422(api: Api) -> None:
    for method, path, names in REQUIRED:
        expect(api.request(method, path), 422, {"detail": [missing(n) for n in names]})
    # Every problem, in the order the endpoint declares its parameters.
    expect(api.post("/task/initialize", task_idx="x"), 422, {"detail": [missing("task_type"), bad_int("task_idx", "x")]})
    expect(api.get("/task/goal", task_idx="", task_type=""), 422, {"detail": [bad_int("task_idx", "")]})
    reinit = api.get("/suite/reinitialize", seed="s", n_task_combinations="n", task_family="android_world")
    expect(reinit, 422, {"detail": [bad_int("n_task_combinations", "n"), bad_int("seed", "s")]})
    literal = {"type": "literal_error", "loc": ["query", "format"], "msg": "Input should be 'json' or 'png'", "input": "gif"}
    expect(api.get("/screenshot", wait_to_stabilize="0", format="gif"), 422, {"detail": [literal]})
    # A name given twice takes its last value, as Starlette does.
    twice = api.session.post(api.url + "/reset?go_home=maybe&go_home=1", timeout=30)
    expect(twice, 200, success("Environment reset with go_home=True."))


def test_execute_action_bodies_fastapi_cannot_read(api: Api) -> None:
    def post(data: bytes) -> requests.Response:
        return api.session.post(api.url + "/execute_action", data=data, headers={"Content-Type": JSON}, timeout=30)

    body_missing = {"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}
    expect(post(b""), 422, {"detail": [body_missing]})
    for value in [[1, 2], "click", 5, True]:
        dict_type = {"type": "dict_type", "loc": ["body"], "msg": "Input should be a valid dictionary", "input": value}
        expect(post(json.dumps(value).encode()), 422, {"detail": [dict_type]})
    for text in ["xx", '{"action_type": "click",}', '{"a" 1}', '{"a": 1} x', '{"a":\n  [1, 2,\n 3,]}', "[1,]", '{"a": 01}']:
        r = post(text.encode())
        assert r.status_code == 422 and r.headers["Content-Type"] == JSON, f"{text!r}: {r.status_code}"
        entry = r.json()["detail"][0]
        pos, why = json_error(text)
        want = {"type": "json_invalid", "loc": ["body", pos], "msg": "JSON decode error", "input": {}, "ctx": {"error": why}}
        assert {k: entry[k] for k in want} == want, f"{text!r}: {entry}"


# ---------------------------------------------------------------------------------------- errors


def test_unknown_tasks_indexes_and_repeated_initializes_are_bare_500s(server: HttpServer, api: Api) -> None:
    name = api.names()[0]
    for method, path in TASK_ENDPOINTS:
        for params in [{"task_type": "no_such_task", "task_idx": 0}, {"task_type": name, "task_idx": 2}, {"task_type": name, "task_idx": -3}]:
            internal_error(api.request(method, path, **params))
    internal_error(api.get("/suite/task_length", task_type="no_such_task"))
    internal_error(api.get("/task/score", task_type=name, task_idx=0))  # before initialize
    internal_error(api.post("/task/expert_action", task_type=name, task_idx=0))  # before initialize
    expect(api.post("/task/initialize", task_type=name, task_idx=0), 200, success(f"Task {name} 0 initialized."))
    internal_error(api.post("/task/initialize", task_type=name, task_idx=0))
    internal_error(api.post("/task/initialize", task_type=name, task_idx=-2))  # the same instance
    expect(api.post("/task/initialize", task_type=name, task_idx=-1), 200, success(f"Task {name} -1 initialized."))
    internal_error(api.post("/task/initialize", task_type=name, task_idx=1))
    log = "\n".join(server.log())
    assert "no task `no_such_task`" in log and "already initialized" in log and "score before initialize" in log, log
    # None of this touched the other device.
    expect(api.get("/emu1/health"), 200, {"status": "success"})


INVALID_ACTIONS: list[dict[str, Any]] = [
    {"action_type": "fly"},
    {},
    {"action_type": None},
    {"action_type": "CLICK", "x": 1, "y": 1},
    {"action_type": "click", "x": 1, "y": 1, "colour": "red"},
    {"action_type": "scroll", "direction": "sideways"},
    {"action_type": "navigate_home", "keycode": "HOME"},
    {"action_type": "click", "index": 1, "x": 5},
    {"action_type": "click", "index": "two"},
]
# Valid JSONActions upstream's actuation refuses.
UNACTUATABLE: list[dict[str, Any]] = [
    {"action_type": "click"},
    {"action_type": "long_press", "x": 5},
    {"action_type": "click", "index": 9999},
    {"action_type": "click", "index": -1},
    {"action_type": "open_app"},
    {"action_type": "open_app", "app_name": ""},
]


def test_invalid_actions_are_bare_500s_and_leave_the_phone_alone(served: Served) -> None:
    api, phone = served.api, served.phone
    upstream = upstream_json_action
    before = phone.state_hash()
    for action in INVALID_ACTIONS:
        with pytest.raises((TypeError, ValueError)):
            upstream.JSONAction(**action)
        internal_error(api.post("/execute_action", action))
    for action in UNACTUATABLE:
        upstream.JSONAction(**action)  # a valid action ...
        internal_error(api.post("/execute_action", action))  # ... upstream's actuation raises on
    assert phone.state_hash() == before, "a refused action does nothing"
    log = "\n".join(served.server.log())
    for reason in ["Invalid action type: fly", "unexpected keyword argument 'colour'", "Invalid scroll direction: sideways"]:
        assert reason in log, f"{reason!r} not in the log:\n{log}"


def test_unknown_paths_wrong_methods_and_large_bodies(api: Api) -> None:
    for path in ["/nope", "/emu2/health", "/emu01/health", "/emu/health", "/emu1x/health", "/emu-1/health", "/task", "/suite/task_list/x", "/emu0/emu0/health"]:
        expect(api.get(path), 404, {"detail": "Not Found"})
    for method, path, allow in [
        ("GET", "/reset", "POST"),
        ("POST", "/health", "GET"),
        ("PUT", "/task/goal", "GET"),
        ("DELETE", "/execute_action", "POST"),
        ("POST", "/suite/reinitialize", "GET"),
        ("GET", "/emu1/close", "POST"),
        ("GET", "/task/expert_action", "POST"),
    ]:
        r = api.request(method, path)
        expect(r, 405, {"detail": "Method Not Allowed"})
        assert r.headers["Allow"] == allow, f"{method} {path}: Allow {r.headers.get('Allow')!r}"
    limit = 64 * 1024
    padded = '{"action_type":"wait"' + " " * (limit - 22) + "}"
    assert len(padded) == limit
    expect(api.session.post(api.url + "/execute_action", data=padded.encode(), timeout=30), 200, success("Action JSONAction(action_type='wait') executed."))
    big = api.session.post(api.url + "/execute_action", data=(padded + " ").encode(), timeout=30)
    expect(big, 413, {"detail": f"Request body too large: at most {limit} bytes"})
    expect(api.get("/health"), 200, {"status": "success"})  # still serving


# ---------------------------------------------------------------------------------------- the suite


def test_task_list_max_index(api: Api) -> None:
    names = api.names()
    assert names == list(templates()), "the android_world family is the served suite, in its order"
    assert len(names) == 199
    n = len(names)
    for max_index, want in [(-1, names), (-100, names), (0, []), (1, names[:1]), (n - 1, names[:-1]), (n, names), (n + 1, names), (10**20, names)]:
        expect(api.get("/suite/task_list", max_index=max_index), 200, {"task_list": want})


def answering_templates() -> list[str]:
    """The templates whose reference solution answers, read from the suite's task files."""
    found = []
    for name in templates():
        text = (ROOT / "verifiers" / "phoneworld-v0" / f"{name}.ron").read_text()
        solution = text[text.index("solution:") :]
        if re.search(r"\b(Picture)?Answer\(", solution):
            found.append(name)
    return found


def test_task_families(api: Api) -> None:
    names = api.names()
    reinit = success("Task suite re-initialized with n_task_combinations=2, seed=42.")
    expect(api.get("/suite/reinitialize", task_family="information_retrieval"), 200, reinit)
    answering = answering_templates()
    assert 0 < len(answering) < len(names)
    expect(api.get("/suite/task_list", max_index=-1), 200, {"task_list": answering})
    internal_error(api.get("/task/goal", task_type=next(n for n in names if n not in answering), task_idx=0))
    # An unknown family changes nothing.
    expect(api.get("/suite/reinitialize", task_family="bogus"), 400, {"detail": "Invalid task family: bogus"})
    expect(api.get("/suite/reinitialize", task_family=""), 400, {"detail": "Invalid task family: "})
    expect(api.get("/suite/task_list", max_index=-1), 200, {"task_list": answering})
    for family in ["phoneworld-v0", "android_world"]:
        expect(api.get("/suite/reinitialize", task_family=family), 200, reinit)
        expect(api.get("/suite/task_list", max_index=-1), 200, {"task_list": names})
    # A new suite has no initialized task.
    name = names[0]
    expect(api.post("/task/initialize", task_type=name, task_idx=0), 200, success(f"Task {name} 0 initialized."))
    assert ok(api.get("/task/score", task_type=name, task_idx=0)) == {"score": 0.0}
    expect(api.get("/suite/reinitialize"), 200, reinit)
    internal_error(api.get("/task/score", task_type=name, task_idx=0))
    expect(api.post("/task/initialize", task_type=name, task_idx=0), 200, success(f"Task {name} 0 initialized."))


def test_instances_are_seeded_with_upstreams_formula(served: Served) -> None:
    api, phone = served.api, served.phone
    names = api.names()
    # At startup the suite is reinitialize(2, 42, android_world).
    for name in names[:4] + names[-4:]:
        expect(api.get("/suite/task_length", task_type=name), 200, {"length": 2})
        for index in (0, 1):
            expect(api.get("/task/goal", task_type=name, task_idx=index), 200, {"goal": goal_of(name, 42, index)})
    name = "bank_add_payee"
    expect(api.get("/suite/reinitialize", n_task_combinations=3, seed=7), 200, success("Task suite re-initialized with n_task_combinations=3, seed=7."))
    expect(api.get("/suite/task_length", task_type=name), 200, {"length": 3})
    expect(api.post("/task/initialize", task_type=name, task_idx=-1), 200, success(f"Task {name} -1 initialized."))
    task = phone.task()
    assert task is not None and task["seed"] == instance_seed(7, name, 2), f"{task} is not instance 2 of seed 7"
    assert ok(api.get("/task/goal", task_type=name, task_idx=2))["goal"] == task["instruction"]
    internal_error(api.post("/task/initialize", task_type=name, task_idx=2))  # -1 is 2
    for index in (3, -4):
        internal_error(api.get("/task/goal", task_type=name, task_idx=index))
    for seed in (-5, 0, 2**70):
        expect(api.get("/suite/reinitialize", seed=seed), 200, success(f"Task suite re-initialized with n_task_combinations=2, seed={seed}."))
        expect(api.get("/task/goal", task_type=name, task_idx=1), 200, {"goal": goal_of(name, seed, 1)})
    expect(api.get("/suite/reinitialize", n_task_combinations=0), 200, success("Task suite re-initialized with n_task_combinations=0, seed=42."))
    expect(api.get("/suite/task_length", task_type=name), 200, {"length": 0})
    internal_error(api.get("/task/goal", task_type=name, task_idx=0))


def test_the_same_seed_draws_the_same_goals_and_another_seed_others(api: Api) -> None:
    names = api.names()

    def goals(seed: int) -> list[str]:
        ok(api.get("/suite/reinitialize", n_task_combinations=2, seed=seed))
        return [ok(api.get("/task/goal", task_type=n, task_idx=i))["goal"] for n in names for i in (0, 1)]

    five, again, six = goals(5), goals(5), goals(6)
    assert five == again, "the same seed draws the same instances"
    assert five != six, "another seed draws other instances"
    assert five == [goal_of(n, 5, i) for n in names for i in (0, 1)]
    assert sum(a != b for a, b in zip(five, six)) > len(names) // 2, "most goals have parameters a seed changes"


def test_goal_and_template_need_no_initialize_and_score_changes_nothing(served: Served) -> None:
    api, phone = served.api, served.phone
    for name, instruction in templates().items():
        expect(api.get("/task/template", task_type=name, task_idx=0), 200, {"template": instruction})
    name = "clock_add_alarm"
    expect(api.post("/task/initialize", task_type=name, task_idx=1), 200, success(f"Task {name} 1 initialized."))
    state, digest = phone.state(), phone.state_hash()
    for _ in range(3):
        expect(api.get("/task/score", task_type=name, task_idx=1), 200, {"score": 0.0})
    assert phone.state() == state and phone.state_hash() == digest, "a score is read, not played"
    expect(api.get("/state_hash"), 200, {"state_hash": digest})
    expect(api.post("/task/tear_down", task_type=name, task_idx=1), 200, success(f"Task {name} 1 torn down."))


# ---------------------------------------------------------------------------------------- actions

VALID_ACTIONS: list[dict[str, Any]] = [
    {"action_type": "click", "x": 100, "y": 200},
    {"action_type": "click", "x": 10.25, "y": "2"},
    {"action_type": "double_tap", "x": 5, "y": 60},
    {"action_type": "long_press", "index": "3"},
    {"action_type": "navigate_home"},
    {"action_type": "open_app", "app_name": "Contacts"},
    {"action_type": "input_text", "text": "it's \"quoted\"", "x": 540, "y": 169, "clear_text": True},
    {"action_type": "input_text", "text": 12345, "x": 540, "y": 169},
    {"action_type": "input_text", "text": ""},
    {"action_type": "keyboard_enter"},
    {"action_type": "navigate_back"},
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "scroll", "direction": ""},
    {"action_type": "swipe", "direction": "left"},
    {"action_type": "wait"},
    {"action_type": "unknown"},
    {"action_type": "navigate_home", "keycode": "KEYCODE_HOME", "text": None},
    {"action_type": "answer", "text": "line\nbreak 'single' ☕ Fernández"},
    {"action_type": "status", "goal_status": "infeasible"},
]


def test_execute_action_replies_quote_the_action_as_upstream_does(served: Served) -> None:
    for action in VALID_ACTIONS:
        expect(served.api.post("/execute_action", action), 200, success(upstream_message(action)))


def upstream_actuation(action: dict[str, Any], elements: list[dict[str, Any]], size: tuple[int, int]) -> list[dict[str, Any]]:
    """What upstream's `actuation.execute_adb_action` sends to the device, as canonical actions."""
    kind, (width, height) = action["action_type"], size

    def target() -> tuple[int, int]:
        if "index" in action:
            b = elements[action["index"]]["bbox_pixels"]
            return int((b["x_min"] + b["x_max"]) / 2), int((b["y_min"] + b["y_max"]) / 2)
        return action["x"], action["y"]

    if kind == "click":
        return [{"type": "tap", "x": target()[0], "y": target()[1]}]
    if kind == "double_tap":
        return [{"type": "double_tap", "x": target()[0], "y": target()[1]}]
    if kind == "long_press":  # input swipe x y x y 1000
        return [{"type": "long_press", "x": target()[0], "y": target()[1], "ms": 1000}]
    if kind == "input_text":
        x, y = target()
        return [{"type": "tap", "x": x, "y": y}, {"type": "type_text", "text": action["text"], "clear": bool(action.get("clear_text"))}, {"type": "key", "key": "enter"}]
    if kind in ("keyboard_enter", "navigate_home", "navigate_back"):
        return [{"type": "key", "key": {"keyboard_enter": "enter", "navigate_home": "home", "navigate_back": "back"}[kind]}]
    if kind == "scroll":  # from the middle to the edge (of the element `index` names), 300 ms
        x0, y0, x1, y1 = 0.0, 0.0, float(width), float(height)
        if action.get("index"):
            b = elements[action["index"]]["bbox_pixels"]
            x0, y0, x1, y1 = max(b["x_min"], 0), max(b["y_min"], 0), min(b["x_max"], width), min(b["y_max"], height)
        cx, cy = int((x0 + x1) // 2), int((y0 + y1) // 2)
        end = {"down": (cx, int(y0)), "up": (cx, int(y1)), "right": (int(x0), cy), "left": (int(x1), cy)}[action["direction"]]
        return [{"type": "swipe", "x1": cx, "y1": cy, "x2": end[0], "y2": end[1], "ms": 300}]
    if kind == "swipe":  # edge to edge through the middle, 500 ms
        mx, my = width // 2, height // 2
        path = {"down": (mx, 0, mx, height), "up": (mx, height, mx, 0), "left": (0, my, width, my), "right": (width, my, 0, my)}
        x1_, y1_, x2_, y2_ = path[action["direction"]]
        # A touch goes down on the screen: a drag from the far edge starts on its last pixel.
        x1_, y1_ = min(x1_, width - 1), min(y1_, height - 1)
        return [{"type": "swipe", "x1": x1_, "y1": y1_, "x2": x2_, "y2": y2_, "ms": 500}]
    if kind == "open_app":
        return [{"type": "open_app", "app": action["app_name"]}]
    if kind == "wait":
        return [{"type": "wait", "ms": 1000}]
    raise AssertionError(f"no actuation for {action}")


def test_actions_move_the_phone_as_upstreams_actuation_does(served: Served) -> None:
    """The served phone and a twin driven with the canonical actions upstream's actuation sends stay
    in the same state, action after action."""
    api, phone, twin = served.api, served.phone, Phone(seed=0)
    actions: list[dict[str, Any]] = [
        {"action_type": "open_app", "app_name": "Contacts"},
        {"action_type": "scroll", "direction": "down"},
        {"action_type": "scroll", "direction": "up"},
        {"action_type": "scroll", "direction": "down", "index": "SCROLLABLE"},
        {"action_type": "click", "index": "SEARCH"},
        {"action_type": "input_text", "text": "Sharma", "x": 604, "y": 169, "clear_text": True},
        {"action_type": "click", "x": 540, "y": 439},
        {"action_type": "navigate_back"},
        {"action_type": "navigate_home"},
        {"action_type": "open_app", "app_name": "Clock"},
        {"action_type": "double_tap", "x": 300, "y": 600},
        {"action_type": "keyboard_enter"},
        {"action_type": "swipe", "direction": "down"},
        {"action_type": "swipe", "direction": "left"},
        {"action_type": "swipe", "direction": "up"},
        {"action_type": "swipe", "direction": "right"},
        {"action_type": "wait"},
        {"action_type": "navigate_back"},
        {"action_type": "scroll", "direction": "left"},
        {"action_type": "scroll", "direction": "right"},
        {"action_type": "navigate_home"},
        {"action_type": "open_app", "app_name": "Notes"},
        {"action_type": "long_press", "x": 540, "y": 1205},
        {"action_type": "navigate_back"},
    ]
    for template in actions:
        elements = twin.ui_elements()
        action = dict(template)
        if action.get("index") == "SCROLLABLE":
            action["index"] = next(i for i, e in enumerate(elements) if e["is_scrollable"] and i > 0)
        elif action.get("index") == "SEARCH":
            action["index"] = next(i for i, e in enumerate(elements) if e.get("text") == "Search contacts" or e.get("content_description") == "Search contacts")
        expect(api.post("/execute_action", action), 200, success(upstream_message(action)))
        for step in upstream_actuation(action, elements, twin.size):
            twin.step(step)
        assert phone.state_hash() == twin.state_hash(), f"after {action}: the served phone and its twin differ"
        assert phone.foreground() == twin.foreground()


def test_status_records_the_finish_and_leaves_the_phone_alone(served: Served) -> None:
    api, phone = served.api, served.phone
    ok(api.post("/execute_action", {"action_type": "open_app", "app_name": "Clock"}))
    before, digest, png, elements = phone.state(), phone.state_hash(), phone.screenshot_png(), phone.ui_elements()
    expect(api.post("/execute_action", {"action_type": "status", "goal_status": "thinking"}), 200, success("Action JSONAction(action_type='status', goal_status='thinking') executed."))
    assert phone.state_hash() == digest, "a status that is neither done nor infeasible changes nothing"
    ok(api.post("/execute_action", {"action_type": "status", "goal_status": "complete"}))
    after = phone.state()
    changed = {k for k in before["session"] if before["session"][k] != after["session"].get(k)}
    assert "finished" in changed and changed <= {"finished", "clock_ms", "steps"}, f"status changed {changed}"
    assert after["session"]["finished"] == "success"
    assert (after["apps"], after["system"]) == (before["apps"], before["system"]), "no app or system state changes"
    assert phone.screenshot_png() == png and phone.ui_elements() == elements, "nothing on the screen changes"
    assert phone.state_hash() != digest, "the recorded finish is part of the state"
    ok(api.post("/execute_action", {"action_type": "status", "goal_status": "infeasible"}))
    assert phone.state()["session"]["finished"] == "infeasible"
    ok(api.post("/execute_action", {"action_type": "navigate_home"}))
    assert phone.foreground()[0] == "com.phoneworld.launcher", "the phone goes on after a status"


def test_answer_then_reset_clears_the_answer(served: Served) -> None:
    api, phone = served.api, served.phone
    ok(api.post("/execute_action", {"action_type": "open_app", "app_name": "Weather"}))
    expect(api.post("/execute_action", {"action_type": "answer", "text": "12°"}), 200, success("Action JSONAction(action_type='answer', text='12°') executed."))
    assert phone.state()["session"]["answer"] == "12°"
    expect(api.post("/reset", go_home=False), 200, success("Environment reset with go_home=False."))
    assert phone.state()["session"]["answer"] is None, "reset forgets the answer"
    assert phone.foreground()[0] == "com.phoneworld.weather"
    ok(api.post("/execute_action", {"action_type": "answer", "text": "again"}))
    ok(api.post("/reset", go_home=True))
    assert phone.state()["session"]["answer"] is None and phone.foreground()[0] == "com.phoneworld.launcher"


# ---------------------------------------------------------------------------------------- observations


def test_screenshot_json_is_the_png_and_the_phones_pixels(served: Served) -> None:
    api, phone = served.api, served.phone
    ok(api.post("/execute_action", {"action_type": "open_app", "app_name": "Settings"}))
    r = api.get("/screenshot", wait_to_stabilize="false")
    assert (r.status_code, r.headers["Content-Type"]) == (200, JSON), f"{r.status_code} {r.headers['Content-Type']}"
    assert r.content.startswith(b'{"pixels":[[[') and r.content.endswith(b"]]]}"), "compact, as FastAPI writes it"
    screen = np.asarray(json.loads(r.content)["pixels"], dtype=np.uint8)
    assert screen.shape == (2400, 1080, 3)
    png = api.get("/screenshot", wait_to_stabilize="true", format="png")
    assert (png.status_code, png.headers["Content-Type"]) == (200, "image/png")
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.array_equal(screen, pixels(png.content)), "the JSON pixels are the PNG's"
    assert np.array_equal(screen, phone.screenshot()), "and the phone's"
    assert len(np.unique(screen[::8, ::8].reshape(-1, 3), axis=0)) > 10, "a real screen, not a blank one"
    assert api.get("/screenshot", wait_to_stabilize="0", format="json").content == r.content, "the same frame, the same body"


def test_ui_elements_and_state_hash_are_the_python_phones(served: Served) -> None:
    api, phone = served.api, served.phone
    phone.step({"type": "open_app", "app": "Contacts"})  # Python moves the phone HTTP serves
    assert ok(api.get("/ui_elements")) == {"ui_elements": phone.ui_elements()}
    expect(api.get("/state_hash"), 200, {"state_hash": phone.state_hash()})
    elements = ok(api.get("/ui_elements"))["ui_elements"]
    index = next(i for i, e in enumerate(elements) if e.get("text") == "Aisha Khan")
    ok(api.post("/execute_action", {"action_type": "click", "index": index}))  # HTTP moves the Python phone
    assert phone.foreground() == ("com.phoneworld.contacts", "detail")
    assert ok(api.get("/ui_elements"))["ui_elements"] == phone.ui_elements()
    assert ok(api.get("/state_hash"))["state_hash"] == phone.state_hash()


def test_expert_action_plays_the_reference_solution(served: Served) -> None:
    api, phone = served.api, served.phone
    upstream = upstream_json_action
    name = "clock_add_alarm"
    internal_error(api.post("/task/expert_action", task_type=name, task_idx=0))
    ok(api.post("/task/initialize", task_type=name, task_idx=0))
    played = []
    for _ in range(50):
        action = ok(api.post("/task/expert_action", task_type=name, task_idx=0, upstream=True))["action"]
        if action is None:
            break
        assert set(action) <= UPSTREAM_FIELDS, f"{action} uses fields upstream's JSONAction lacks"
        upstream.JSONAction(**action)
        ok(api.post("/execute_action", action))
        played.append(action)
    assert played and played[0]["action_type"] == "open_app", played
    expect(api.get("/task/score", task_type=name, task_idx=0), 200, {"score": 1.0})
    expect(api.post("/task/expert_action", task_type=name, task_idx=0), 200, {"action": None})
    # Without upstream, typing keeps its own Enter out: press_enter false.
    name = "messages_send_new"
    ok(api.post("/task/initialize", task_type=name, task_idx=0))
    kinds = []
    while (action := ok(api.post("/task/expert_action", task_type=name, task_idx=0, upstream=False))["action"]) is not None:
        if action["action_type"] == "input_text":
            assert action.get("press_enter") is False, action
        kinds.append(action["action_type"])
        ok(api.post("/execute_action", action))
        assert len(kinds) < 50
    assert "input_text" in kinds
    expect(api.get("/task/score", task_type=name, task_idx=0), 200, {"score": 1.0})
    verdict = phone.verdict()
    assert verdict is not None and verdict["success"], verdict


# ---------------------------------------------------------------------------------------- devices


def every_call(name: str) -> list[tuple[str, str, dict[str, Any], Any]]:
    """One well-formed request to each endpoint."""
    task = {"task_type": name, "task_idx": 0}
    return [
        ("POST", "/reset", {"go_home": "true"}, None),
        ("GET", "/screenshot", {"wait_to_stabilize": "false", "format": "png"}, None),
        ("POST", "/execute_action", {}, {"action_type": "wait"}),
        ("GET", "/suite/task_list", {"max_index": -1}, None),
        ("GET", "/suite/task_length", {"task_type": name}, None),
        ("GET", "/suite/reinitialize", {}, None),
        ("POST", "/task/initialize", task, None),
        ("POST", "/task/tear_down", task, None),
        ("GET", "/task/score", task, None),
        ("GET", "/task/goal", task, None),
        ("GET", "/task/template", task, None),
        ("POST", "/task/expert_action", task, None),
        ("GET", "/ui_elements", {}, None),
        ("GET", "/state_hash", {}, None),
        ("POST", "/close", {}, None),
    ]


def test_a_closed_device_answers_500_to_everything() -> None:
    with phoneworld.serve_http(devices=3) as server:
        root, emu1 = Api(server.url), Api(server.device_urls[1])
        name = root.names()[0]
        expect(emu1.post("/close"), 200, {"status": "success"})
        expect(emu1.get("/health"), 500, {"detail": "Environment not initialized"})
        for method, path, params, body in every_call(name):
            internal_error(emu1.request(method, path, body, **params))
        expect(emu1.get("/nope"), 404, {"detail": "Not Found"})
        assert emu1.get("/reset").status_code == 405, "routing comes before the device"
        # The other devices go on.
        for api in (root, Api(server.device_urls[0]), Api(server.device_urls[2])):
            expect(api.get("/health"), 200, {"status": "success"})
            expect(api.post("/execute_action", {"action_type": "wait"}), 200, success("Action JSONAction(action_type='wait') executed."))
        # /close without a prefix closes device 0, and only it.
        expect(root.post("/close"), 200, {"status": "success"})
        expect(Api(server.device_urls[0]).get("/health"), 500, {"detail": "Environment not initialized"})
        expect(Api(server.device_urls[2]).get("/health"), 200, {"status": "success"})
        assert server.running


Reply = tuple[int, str, Any]


async def drive_devices_concurrently(server: HttpServer, names: list[str]) -> dict[str, Any]:
    emu0, emu1, emu2 = server.device_urls
    root = server.url
    moves0: list[dict[str, Any]] = [
        {"action_type": "open_app", "app_name": "Clock"},
        {"action_type": "scroll", "direction": "down"},
        {"action_type": "click", "x": 540, "y": 900},
        {"action_type": "navigate_back"},
        {"action_type": "open_app", "app_name": "Contacts"},
        {"action_type": "wait"},
    ]
    moves2: list[dict[str, Any]] = [
        {"action_type": "open_app", "app_name": "Settings"},
        {"action_type": "scroll", "direction": "down"},
        {"action_type": "navigate_home"},
        {"action_type": "open_app", "app_name": "Notes"},
        {"action_type": "input_text", "text": "ignored", "x": 540, "y": 700},
    ]
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:

        async def call(method: str, url: str, params: Optional[dict[str, Any]] = None, body: Any = None) -> Reply:
            query = {k: str(v) for k, v in (params or {}).items()}
            async with http.request(method, url, params=query, json=body) as r:
                data = await r.read()
                kind = r.headers.get("Content-Type", "")
                return r.status, kind, json.loads(data) if kind == JSON else data.decode()

        async def goals(base: str, indexes: tuple[int, ...]) -> list[str]:
            found = []
            for name in names:
                for i in indexes:
                    status, _, body = await call("GET", base + "/task/goal", {"task_type": name, "task_idx": i})
                    assert status == 200, f"{base} goal {name} {i}: {status} {body}"
                    found.append(body["goal"])
            return found

        async def play(base: str, actions: list[dict[str, Any]]) -> str:
            for action in actions:
                status, _, body = await call("POST", base + "/execute_action", body=action)
                assert status == 200, f"{base} {action}: {status} {body}"
            return str((await call("GET", base + "/state_hash"))[2]["state_hash"])

        async def length(base: str) -> int:
            return int((await call("GET", base + "/suite/task_length", {"task_type": names[0]}))[2]["length"])

        # Every device starts with the same draw: reinitialize(2, 42).
        first = await asyncio.gather(goals(emu0, (0, 1)), goals(emu1, (0, 1)), goals(emu2, (0, 1)), goals(root, (0, 1)))
        # One device draws a new suite while the other two are played.
        reinit, hash0, hash2 = await asyncio.gather(
            call("GET", emu1 + "/suite/reinitialize", {"n_task_combinations": 3, "seed": 7}),
            play(emu0, moves0),
            play(emu2, moves2),
        )
        later = await asyncio.gather(goals(emu0, (0, 1)), goals(emu1, (0, 1, 2)), goals(emu2, (0, 1)), goals(root, (0, 1)))
        lengths = await asyncio.gather(length(emu0), length(emu1), length(emu2))
        hashes = await asyncio.gather(*[call("GET", u + "/state_hash") for u in (emu0, emu1, emu2, root)])
        # Many requests to one device at once are all answered.
        waits = await asyncio.gather(*[call("POST", emu2 + "/execute_action", body={"action_type": "wait"}) for _ in range(8)])
        # Closing one device while the others are used.
        closing, still0, *healths = await asyncio.gather(
            call("POST", emu1 + "/close"),
            play(emu0, [{"action_type": "navigate_home"}]),
            *[call("GET", emu2 + "/health") for _ in range(4)],
        )
        after_close = await asyncio.gather(
            call("GET", emu1 + "/health"),
            call("GET", emu1 + "/task/goal", {"task_type": names[0], "task_idx": 0}),
            call("POST", emu1 + "/execute_action", body={"action_type": "wait"}),
            call("GET", emu0 + "/health"),
            call("POST", emu2 + "/execute_action", body={"action_type": "wait"}),
            call("GET", root + "/task/goal", {"task_type": names[0], "task_idx": 0}),
        )
    return {
        "first": first,
        "reinit": reinit,
        "hash0": hash0,
        "hash2": hash2,
        "later": later,
        "lengths": lengths,
        "hashes": hashes,
        "waits": waits,
        "closing": closing,
        "still0": still0,
        "healths": healths,
        "after_close": after_close,
        "moves0": moves0,
        "moves2": moves2,
    }


def replayed_hash(actions: list[dict[str, Any]]) -> str:
    """The state hash of a fresh one-device server after `actions`, one at a time."""
    with phoneworld.serve_http() as fresh:
        api = Api(fresh.url)
        for action in actions:
            ok(api.post("/execute_action", action))
        return str(ok(api.get("/state_hash"))["state_hash"])


def test_devices_of_one_server_are_independent_under_concurrent_aiohttp_clients() -> None:
    with phoneworld.serve_http(devices=3) as server:
        names = Api(server.url).names()[:15]
        got = asyncio.run(drive_devices_concurrently(server, names))
    start = [goal_of(n, 42, i) for n in names for i in (0, 1)]
    assert got["first"] == [start] * 4, "each device starts with reinitialize(2, 42); / is device 0"
    assert got["reinit"] == (200, JSON, success("Task suite re-initialized with n_task_combinations=3, seed=7."))
    emu0, emu1, emu2, root = got["later"]
    assert emu0 == start and emu2 == start and root == start, "reinitializing /emu1 left the other draws alone"
    assert emu1 == [goal_of(n, 7, i) for n in names for i in (0, 1, 2)], "/emu1 drew reinitialize(3, 7)"
    assert got["lengths"] == [2, 3, 2]
    # Each device's state is what its own actions alone make of a fresh phone.
    assert got["hash0"] == replayed_hash(got["moves0"]), "/emu0 saw exactly its own actions"
    assert got["hash2"] == replayed_hash(got["moves2"]), "/emu2 saw exactly its own actions"
    hash_of = [h[2]["state_hash"] for h in got["hashes"]]
    assert hash_of[0] == got["hash0"] and hash_of[2] == got["hash2"] and hash_of[3] == got["hash0"]
    assert hash_of[1] == replayed_hash([]), "/emu1 was never played"
    assert len({hash_of[0], hash_of[1], hash_of[2]}) == 3
    assert all(w[0] == 200 for w in got["waits"]), got["waits"]
    assert got["closing"] == (200, JSON, {"status": "success"})
    assert all(h == (200, JSON, {"status": "success"}) for h in got["healths"]), got["healths"]
    health1, goal1, act1, health0, act2, goal_root = got["after_close"]
    assert health1 == (500, JSON, {"detail": "Environment not initialized"})
    assert goal1 == (500, TEXT, "Internal Server Error") and act1 == (500, TEXT, "Internal Server Error")
    assert health0 == (200, JSON, {"status": "success"}), "closing /emu1 left /emu0 working"
    assert act2 == (200, JSON, success("Action JSONAction(action_type='wait') executed."))
    assert goal_root == (200, JSON, {"goal": start[0]})
