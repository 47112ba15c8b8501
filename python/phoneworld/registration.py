"""Gymnasium ids: `phoneworld/Suite-v0`, one `phoneworld/<Template>-v0` per task template, and
`phoneworld/Adb-v0` (a phone behind ADB; nondeterministic).

>>> import gymnasium as gym, phoneworld
>>> "phoneworld/ClockAddAlarm-v0" in gym.registry
True
>>> gym.spec("phoneworld/Adb-v0").nondeterministic
True
>>> phoneworld.task_ids()["phoneworld/ClockAddAlarm-v0"]
'clock_add_alarm'
"""

from __future__ import annotations

import gymnasium as gym

from ._core import suite_tasks

SUITE = "phoneworld-v0"


def env_name(task_id: str) -> str:
    """`clock_add_alarm` -> `ClockAddAlarm`."""
    return "".join(part[:1].upper() + part[1:] for part in task_id.replace(".", "_").split("_") if part)


def task_ids(suite: str = SUITE) -> dict[str, str]:
    """Gymnasium id -> task template id, for every template of the suite."""
    return {f"phoneworld/{env_name(t['id'])}-v0": t["id"] for t in suite_tasks(suite)}


def register_envs() -> None:
    """Registers the suite's ids (idempotent; `import phoneworld` calls it)."""
    if "phoneworld/Suite-v0" not in gym.registry:
        gym.register(
            id="phoneworld/Suite-v0",
            entry_point="phoneworld.env:PhoneEnv",
            vector_entry_point="phoneworld.vector:VectorEnv",
            nondeterministic=False,
        )
    if "phoneworld/Adb-v0" not in gym.registry:
        # A phone behind ADB (real, or a mock served over ADB): same observations and actions,
        # but a real device does not replay, so it is not deterministic.
        gym.register(id="phoneworld/Adb-v0", entry_point="phoneworld.adb:AdbEnv", nondeterministic=True)
    for env_id, task in task_ids().items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point="phoneworld.env:PhoneEnv",
            vector_entry_point="phoneworld.vector:VectorEnv",
            nondeterministic=False,
            kwargs={"task": task},
        )
