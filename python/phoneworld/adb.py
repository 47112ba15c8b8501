"""Phones behind ADB: `AdbPhone`, the `phoneworld/Adb-v0` Gymnasium env, UI-observable task
checks, and a private adb server for tests and CI.

A mock phone can stand in for a real one: `Phone.serve_adb()` serves it over the ADB device
protocol, and everything here then drives it exactly as it would drive a real device.

Which checks run on a real device. A task's success checks are decided on the device itself
when it is a PhoneWorld mock playing that task (`phoneworld verdict` over the shell: every
check, collateral damage included). On any other device only the UI-observable checks run
(`task_checks` marks them): the foreground app (a `Screen` check that names no screen), the
agent's answer and its finish status (both recorded on the host), and all/any/not of those;
plus host checks given at reset (`text_visible`, `checked`, `app`) evaluated on the final
screen's UI elements. A task with a check that is not UI-observable and no host checks gets
`success=None` (unverifiable), never a guess.

>>> checks = task_checks("clock_add_alarm")
>>> [c["kind"] for c in checks["success"]], checks["ui_observable"]
(['exists'], False)
>>> evaluate_checks([{"kind": "answer", "text": "42"}], answer="42.", finished=None, foreground=None, ui_elements=[])
True
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any, Optional, Sequence, SupportsFloat

import gymnasium as gym
import numpy as np

from ._core import (
    ActionError,
    AdbPhone,
    AdbServer,
    ConfigError,
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    DeviceOffline,
    DeviceTimeout,
    DeviceUnauthorized,
    NotSupportedOnRealDevice,
    PhoneWorldError,
    adb_connect,
    adb_devices,
    adb_disconnect,
    task_checks,
)
from .config import PhoneConfig, parse_action
from .spaces import action_space, observation_space

__all__ = [
    "AdbEnv",
    "AdbPhone",
    "AdbServer",
    "DeviceDisconnected",
    "DeviceError",
    "DeviceNotFound",
    "DeviceOffline",
    "DeviceTimeout",
    "DeviceUnauthorized",
    "NotSupportedOnRealDevice",
    "PrivateAdbServer",
    "adb_connect",
    "adb_devices",
    "adb_disconnect",
    "evaluate_checks",
    "task_checks",
]

ObsType = dict[str, Any]
#: Host check kinds, evaluated on the final screen's UI elements.
HOST_CHECKS = ("text_visible", "checked", "app")


# --- UI-observable checks -----------------------------------------------------------------


def _normalize(text: str) -> str:
    """Case, whitespace and trailing punctuation do not matter (as the Rust verifier)."""
    return " ".join(text.split()).rstrip(".!").lower()


def _number(text: str) -> Optional[float]:
    cleaned = "".join(c for c in text if c.isdigit() or c in ".-")
    if cleaned in ("", "-", ".") or sum(c.isalpha() for c in text) > 5:
        return None
    try:
        return float(cleaned)
    except ValueError:
        return None


def _answer_matches(answer: str, expected: str) -> bool:
    if _normalize(answer) == _normalize(expected):
        return True
    a, e = _number(answer), _number(expected)
    return a is not None and e is not None and any(c.isdigit() for c in expected) and abs(a - e) < 1e-6 and _letters(answer) == _letters(expected)


def _letters(text: str) -> str:
    return _normalize("".join(c for c in text if c.isalpha() or c.isspace()))


def _element_label(element: dict[str, Any]) -> list[str]:
    return [_normalize(str(element.get(k) or "")) for k in ("text", "content_description", "resource_name")]


def evaluate_checks(
    checks: Sequence[dict[str, Any]],
    *,
    answer: Optional[str],
    finished: Optional[str],
    foreground: Optional[tuple[str, str]],
    ui_elements: Sequence[dict[str, Any]],
) -> Optional[bool]:
    """Whether every check holds, from what a device shows and what the agent said; None when
    one of them is not UI-observable (it needs the mock's app data or screen names).

    Check kinds: those of `task_checks` (`screen` without a screen name, `answer`,
    `finished`, `all`, `any`, `not`), and the host checks `text_visible` (an element whose
    text or content description contains `text`), `checked` (such an element is checked) and
    `app` (the foreground package is `app`).
    """
    results = [_holds(c, answer, finished, foreground, ui_elements) for c in checks]
    if any(r is None for r in results):
        return None
    return all(results)


def _holds(
    check: dict[str, Any], answer: Optional[str], finished: Optional[str], foreground: Optional[tuple[str, str]], elements: Sequence[dict[str, Any]]
) -> Optional[bool]:
    kind = check.get("kind")
    if kind in ("screen", "app"):
        if check.get("screen"):
            return None
        return foreground is not None and foreground[0] == check["app"]
    if kind == "answer":
        return answer is not None and _answer_matches(answer, str(check["text"]))
    if kind == "finished":
        return finished == str(check["status"])
    if kind == "text_visible":
        needle = _normalize(str(check["text"]))
        return any(needle in label for e in elements for label in _element_label(e))
    if kind == "checked":
        needle = _normalize(str(check["text"]))
        return any(bool(e.get("is_checked")) and any(needle in label for label in _element_label(e)) for e in elements)
    if kind in ("all", "any"):
        parts = [_holds(c, answer, finished, foreground, elements) for c in check["checks"]]
        if any(p is None for p in parts):
            return None
        return all(parts) if kind == "all" else any(parts)
    if kind == "not":
        inner = _holds(check["check"], answer, finished, foreground, elements)
        return None if inner is None else not inner
    return None  # app-data checks: not observable on a device


def _validate_host_checks(checks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, check in enumerate(checks):
        if not isinstance(check, dict) or check.get("kind") not in HOST_CHECKS:
            raise ConfigError(f"checks[{i}]: expected a dict with kind one of {', '.join(HOST_CHECKS)}, got {check!r}")
        field = "app" if check["kind"] == "app" else "text"
        if not isinstance(check.get(field), str) or not check[field]:
            raise ConfigError(f"checks[{i}] ({check['kind']}): needs a non-empty `{field}`")
        out.append(dict(check))
    return out


# --- The env -----------------------------------------------------------------------------------


class AdbEnv(gym.Env[ObsType, Any]):
    """`phoneworld/Adb-v0`: a Gymnasium env over a phone behind ADB (registered as
    nondeterministic: a real device does not replay).

    The observations, actions and info keys are `PhoneEnv`'s, so a trainer can swap the two:
    `{"instruction", "screenshot", "ui_tree"}` (the UI tree is the `uiautomator dump` XML), and
    actions in any format `PhoneEnv` accepts, read in the device's own pixel frame.

    `reset(options={"task": ID, "params": {...}, "checks": [...], "instruction": TEXT})` sets the
    instruction (from the suite's task, or free text) and the checks. The device is not reset
    (a real phone cannot be): with `go_home=True` the episode starts from the home screen. On a
    PhoneWorld mock that plays the same task (`Phone.for_task(...).serve_adb()`, or
    `phoneworld serve-adb --task`), answers and finishes go to the device and success is its
    verifier's; otherwise see the module docstring for which checks run.

    Device failures (offline, unauthorized, timeouts, a lost connection) raise `DeviceError`
    subclasses from `reset` and `step`; `MixedPool` counts them as infrastructure failures.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 2}

    def __init__(
        self,
        serial: str,
        host: str = "127.0.0.1",
        port: int = 5037,
        timeout: float = 10.0,
        connect: bool = False,
        task: Optional[str] = None,
        go_home: bool = True,
        config: "PhoneConfig | dict[str, Any] | None" = None,
        render_mode: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise gym.error.Error(f"render_mode must be None or 'rgb_array', not {render_mode!r}")
        self.render_mode = render_mode
        self.phone = AdbPhone(serial, host=host, port=port, timeout=timeout, connect=connect)
        # Actions are read in the device's pixel frame, whatever size the config names.
        self.config = dataclasses.replace(PhoneConfig.from_kwargs(config, **kwargs), screen=self.phone.size)
        self.task = task
        self.go_home = go_home
        self.observation_space = observation_space(self.config.screenshot_size, "ui_tree" in self.config.observe)
        self.action_space = action_space()
        self._instruction = ""
        self._task_info: Optional[dict[str, Any]] = None
        self._checks: list[dict[str, Any]] = []
        self._device_judged = False
        self._answer: Optional[str] = None
        self._finished: Optional[str] = None
        self._steps = 0
        self._max_steps = self.config.max_steps or 30
        self._done = False
        self._success: Optional[bool] = None
        self._elements: Optional[list[dict[str, Any]]] = None
        self._last_obs: Optional[ObsType] = None

    # --- Gymnasium API -------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> tuple[ObsType, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        task = options.pop("task", self.task)
        params = options.pop("params", None)
        host_checks = _validate_host_checks(options.pop("checks", []))
        instruction = options.pop("instruction", None)
        if options:
            raise PhoneWorldError(f"unknown reset options: {', '.join(sorted(options))} (known: task, params, checks, instruction)")
        if seed is None:
            seed = int(self.np_random.integers(0, 2**31 - 1))
        device_task = self._device_task() if self.phone.is_phoneworld else None
        self._device_judged = device_task is not None and (task is None or task == device_task["id"])
        if self._device_judged and device_task is not None:
            task = device_task["id"]
            seed = int(device_task["seed"])
        self._task_info = None
        if task is not None:
            self._task_info = task_checks(
                task, int(seed), params, suite_name=self.config.suite, suite_dirs=list(self.config.suite_dirs), apps_dirs=list(self.config.apps_dirs)
            )
        if instruction is None:
            instruction = self._task_info["instruction"] if self._task_info else ""
        self._instruction = str(instruction)
        self._checks = (list(self._task_info["success"]) if self._task_info else []) + host_checks
        self._max_steps = self.config.max_steps or (int(self._task_info["max_steps"]) if self._task_info else 30)
        self._answer = self._finished = None
        self._steps, self._done, self._success = 0, False, None
        if self.go_home and not self._device_judged:
            self.phone.step({"type": "key", "key": "home"})
        obs, info = self._observe()
        return obs, info

    def step(self, action: Any) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._done:
            raise PhoneWorldError("the episode is over: call reset()")
        self._steps += 1
        error: Optional[str] = None
        canonical: list[dict[str, Any]] = []
        try:
            parsed = parse_action(action, self.config, self._elements)
            canonical = list(parsed) if isinstance(parsed, list) else [parsed]
            for a in canonical:
                self._apply(a)
        except (ActionError, NotSupportedOnRealDevice) as err:
            error = str(err)
        except DeviceError:
            raise
        except PhoneWorldError as err:
            error = str(err)
        terminated = self._finished is not None
        truncated = not terminated and self._steps >= self._max_steps
        self._done = terminated or truncated
        obs, info = self._observe()
        reward = 0.0
        if self._done:
            self._success = self._judge(info)
            reward = 1.0 if self._success else 0.0
        info.update(
            success=self._success,
            action_error=error,
            parsed_action=canonical[0] if canonical else {},
            parsed_actions=canonical,
        )
        return obs, reward, terminated, truncated, info

    def render(self) -> Optional[np.ndarray]:
        if self.render_mode != "rgb_array" or self._last_obs is None:
            return None
        return self._last_obs.get("screenshot")

    def close(self) -> None:
        self._done = True

    # --- Beyond Gymnasium ----------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """The episode so far: task, seed, steps, success (None: not over or unverifiable),
        answer, finished and who judged it ("device", "ui" or None)."""
        return {
            "task": self._task_info["task"] if self._task_info else None,
            "seed": self._task_info["seed"] if self._task_info else None,
            "steps": self._steps,
            "success": self._success,
            "answer": self._answer,
            "finished": self._finished,
            "judged_by": self._judged_by(),
        }

    def verdict(self) -> Optional[dict[str, Any]]:
        """The device's own verdict (`phoneworld verdict`) when it is a PhoneWorld mock playing
        the task, else None."""
        if not self._device_judged:
            return None
        out = self.phone.shell("phoneworld verdict")
        if out["status"] != 0:
            raise DeviceError(f"phoneworld verdict failed ({out['status']}): {out['stderr'].strip()}")
        return json.loads(out["stdout"])  # type: ignore[no-any-return]

    @property
    def max_steps(self) -> int:
        return self._max_steps

    # --- internals -------------------------------------------------------------------------

    def _device_task(self) -> Optional[dict[str, Any]]:
        out = self.phone.shell("phoneworld task --json")
        if out["status"] != 0:
            return None
        return json.loads(out["stdout"])  # type: ignore[no-any-return]

    def _apply(self, action: dict[str, Any]) -> None:
        kind = action.get("type")
        if kind in ("answer", "finish") and not self._device_judged:
            if kind == "answer":
                self._answer = str(action.get("text", ""))
            else:
                self._finished = str(action.get("status", "success"))
            return
        result = self.phone.step(action)
        if kind == "answer":
            self._answer = str(action.get("text", ""))
        elif kind == "finish":
            self._finished = str(action.get("status", "success"))
        if not result["ok"]:
            raise PhoneWorldError(result["note"])

    def _judged_by(self) -> Optional[str]:
        if self._device_judged:
            return "device"
        return "ui" if self._checks else None

    def _judge(self, info: dict[str, Any]) -> Optional[bool]:
        if self._device_judged:
            verdict = self.verdict()
            return None if verdict is None else bool(verdict["success"])
        if not self._checks:
            return None
        return evaluate_checks(
            self._checks, answer=self._answer, finished=self._finished, foreground=info["foreground_app"], ui_elements=info["ui_elements"]
        )

    def _observe(self) -> tuple[ObsType, dict[str, Any]]:
        obs: ObsType = {"instruction": self._instruction}
        size = self.config.screenshot_size
        if size is not None:
            obs["screenshot"] = self.phone.screenshot(width=size[0], height=size[1])
        xml = self.phone.ui_xml()
        if "ui_tree" in self.config.observe:
            obs["ui_tree"] = xml
        self._elements = self.phone.ui_elements() if self.config.ui_elements else None
        info: dict[str, Any] = {
            "task_id": self._task_info["task"] if self._task_info else None,
            "ui_elements": self._elements,
            "foreground_app": self.phone.foreground(),
            "screen_size": self.phone.size,
            "step": self._steps,
            "success": None,
            "judged_by": self._judged_by(),
            "serial": self.phone.serial,
        }
        self._last_obs = obs
        return obs, info


# --- A private adb server ------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateAdbServer:
    """Debian's (or any) `adb` server on a free loopback port, isolated from the user's: its own
    HOME (so its own key), no USB, emulator or mDNS discovery, a timeout on every command, and
    `kill-server` on `close()` / leaving the `with` block.

    >>> with PrivateAdbServer() as adb:  # doctest: +SKIP
    ...     serial = adb.connect(phone.serve_adb().address)
    ...     AdbPhone(serial, port=adb.port).foreground()
    """

    def __init__(self, adb: Optional[str] = None, timeout: float = 30.0) -> None:
        binary = adb or shutil.which("adb")
        if binary is None:
            raise DeviceError("`adb` is not installed (Debian: `apt-get install adb`; `make setup` installs it)")
        self.adb = binary
        self.timeout = timeout
        self.home = tempfile.mkdtemp(prefix="phoneworld-adb-home-")
        self.port = _free_port()
        self.env = {k: v for k, v in os.environ.items() if k not in ("ADB_VENDOR_KEYS", "ANDROID_ADB_SERVER_PORT", "ANDROID_SERIAL", "ADB_TRACE")}
        self.env.update(HOME=self.home, TMPDIR=self.home, ADB_EMU="0", ADB_USB="0", ADB_MDNS="0")
        self._closed = False
        try:
            run = self.run("start-server")
            if run.returncode != 0:
                raise DeviceError(f"adb start-server failed: {run.stderr.decode(errors='replace')}")
        except BaseException:
            self._cleanup()
            raise

    def run(self, *args: str, timeout: Optional[float] = None, input: Optional[bytes] = None) -> "subprocess.CompletedProcess[bytes]":
        """`adb -P PORT ARGS`; raises DeviceTimeout when it does not finish in time."""
        command = [self.adb, "-P", str(self.port), *args]
        limit = timeout or self.timeout
        try:
            # Output goes through files: a daemon that adb forks must not hold our pipes open.
            with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
                code = subprocess.run(command, env=self.env, stdin=subprocess.DEVNULL if input is None else None, input=input, stdout=out, stderr=err, timeout=limit).returncode
                out.seek(0)
                err.seek(0)
                return subprocess.CompletedProcess(command, code, out.read(), err.read())
        except subprocess.TimeoutExpired as e:
            raise DeviceTimeout(f"{' '.join(command)} did not finish within {limit} s") from e

    @property
    def key_path(self) -> str:
        """This server's public key (`adbkey.pub`), created when it starts."""
        return os.path.join(self.home, ".android", "adbkey.pub")

    def connect(self, address: str, timeout: float = 10.0) -> str:
        """`adb connect ADDRESS`, then waits until the device is online; returns its serial.
        Raises DeviceUnauthorized or DeviceOffline when it does not come online."""
        try:
            adb_connect(address, port=self.port, timeout=timeout)
        except DeviceUnauthorized:
            pass  # a device that asks for a key may still let this one in: wait and see
        deadline = time.monotonic() + timeout
        state = "missing"
        while time.monotonic() < deadline:
            state = dict(adb_devices(port=self.port, timeout=timeout)).get(address, "missing")
            if state == "device":
                return address
            time.sleep(0.02)
        if state == "unauthorized":
            raise DeviceUnauthorized(f"device {address} is unauthorized")
        raise DeviceOffline(f"device {address} is {state} after {timeout} s")

    def close(self) -> None:
        """`adb kill-server` (with a timeout) and removes the private HOME. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self.run("kill-server", timeout=15.0)
        except DeviceTimeout:
            pass
        self._cleanup()

    def _cleanup(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> "PrivateAdbServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass

