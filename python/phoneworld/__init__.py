"""PhoneWorld: a deterministic mock Android phone for training and evaluating phone-use agents.

>>> import phoneworld
>>> phone = phoneworld.Phone(seed=0)
>>> phone.step({"type": "open_app", "app": "Clock"})["ok"]
True
>>> phone.foreground()[0]
'com.phoneworld.clock'
"""

from ._core import (
    ActionError,
    ConfigError,
    DeviceError,
    NotSupportedOnRealDevice,
    Phone,
    PhoneWorldError,
    ScriptError,
    SnapshotError,
    __version__,
)
from . import actions, export
from .config import PhoneConfig
from .env import PhoneEnv
from .evaluate import evaluate
from .registration import register_envs, task_ids
from .vector import VectorEnv
from .wrappers import RecordTrajectory

register_envs()

__all__ = [
    "ActionError",
    "ConfigError",
    "DeviceError",
    "NotSupportedOnRealDevice",
    "Phone",
    "PhoneConfig",
    "PhoneEnv",
    "PhoneWorldError",
    "RecordTrajectory",
    "ScriptError",
    "SnapshotError",
    "VectorEnv",
    "__version__",
    "actions",
    "evaluate",
    "export",
    "register_envs",
    "task_ids",
]
