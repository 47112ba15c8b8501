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
    AdbPhone,
    AdbServer,
    ConfigError,
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    DeviceOffline,
    DeviceTimeout,
    DeviceUnauthorized,
    HttpServer,
    NotSupportedOnRealDevice,
    Phone,
    PhoneWorldError,
    ScriptError,
    SnapshotError,
    __version__,
    serve_http,
)
from . import actions, adb, export
from .adb import AdbEnv, PrivateAdbServer
from .config import PhoneConfig
from .env import PhoneEnv
from .evaluate import evaluate
from .mixed import EpisodeRecord, MixedPool
from .recording import AdbRecorder
from .report import write_report
from .registration import register_envs, task_ids
from .vector import VectorEnv
from .wrappers import RecordTrajectory

register_envs()

__all__ = [
    "ActionError",
    "AdbEnv",
    "AdbPhone",
    "AdbRecorder",
    "AdbServer",
    "ConfigError",
    "DeviceDisconnected",
    "DeviceError",
    "DeviceNotFound",
    "DeviceOffline",
    "DeviceTimeout",
    "DeviceUnauthorized",
    "EpisodeRecord",
    "HttpServer",
    "MixedPool",
    "NotSupportedOnRealDevice",
    "Phone",
    "PhoneConfig",
    "PhoneEnv",
    "PhoneWorldError",
    "PrivateAdbServer",
    "RecordTrajectory",
    "ScriptError",
    "SnapshotError",
    "VectorEnv",
    "__version__",
    "actions",
    "adb",
    "evaluate",
    "serve_http",
    "export",
    "register_envs",
    "task_ids",
    "write_report",
]
