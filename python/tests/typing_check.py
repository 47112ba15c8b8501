"""Type-checked usage of the public API (mypy runs over this file in `make test`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import phoneworld


def episode() -> float:
    phone = phoneworld.Phone(seed=1)
    result: dict[str, Any] = phone.step({"type": "open_app", "app": "Clock"})
    pixels: npt.NDArray[np.uint8] = phone.screenshot(width=270)
    data: bytes = phone.snapshot()
    restored: phoneworld.Phone = phoneworld.Phone.restore(data)
    env = phoneworld.PhoneEnv(task="clock_add_alarm", obs_size=(108, 240))
    obs, info = env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step('{"type": "key", "key": "home"}')
    canonical: dict[str, Any] = phoneworld.actions.parse("Action: press_home()", "uitars")
    assert result["ok"] and pixels.ndim == 3 and restored.state_hash() and canonical
    return float(reward)


def served() -> list[str]:
    with phoneworld.serve_http(devices=2, seed=3) as server:
        urls: list[str] = server.device_urls
        base: str = server.url
    phone = phoneworld.Phone(seed=1)
    single: phoneworld.HttpServer = phone.serve_http(port=0)
    single.close()
    return [base, *urls]
