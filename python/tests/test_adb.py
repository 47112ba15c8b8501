"""The mock phone over ADB from Python: `Phone.serve_adb` driven by Debian's `adb`, adb-shell and
adbutils on loopback (a private adb server with its own HOME, killed at the end), and
`AdbPhone` through that server matching a phone driven directly."""

from __future__ import annotations

import io
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from PIL import Image

import phoneworld
from phoneworld import AdbPhone, DeviceError, NotSupportedOnRealDevice, Phone, PrivateAdbServer


class Served:
    def __init__(self, adb: PrivateAdbServer, phone: Phone, **serve: Any) -> None:
        self.adb, self.phone = adb, phone
        self.server = phone.serve_adb(**serve)
        self.serial = self.server.address

    def cli(self, *args: str, timeout: float = 20.0) -> Any:
        return self.adb.run("-s", self.serial, *args, timeout=timeout)

    def close(self) -> None:
        self.server.close()
        phoneworld.adb.adb_disconnect(self.serial, port=self.adb.port)


@pytest.fixture()
def served(adb: PrivateAdbServer) -> Iterator[Served]:
    s = Served(adb, Phone(seed=0))
    adb.connect(s.serial)
    try:
        yield s
    finally:
        s.close()


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_adb_cli_connects_lists_the_device_and_runs_shell_with_exit_codes(served: Served) -> None:
    devices = served.adb.run("devices").stdout.decode()
    assert f"{served.serial}\tdevice" in devices
    assert served.cli("shell", "wm size").stdout.decode() == "Physical size: 1080x2400\n"
    assert served.cli("shell", "false").returncode == 1
    assert served.cli("shell", "exit 3").returncode == 3
    run = served.cli("shell", "ls /nope || echo missing=$?")
    assert run.returncode == 0 and "missing=1" in run.stdout.decode()
    # The very same device: an ADB command moves the Python phone.
    assert served.cli("shell", "monkey -p com.phoneworld.clock -c android.intent.category.LAUNCHER 1").returncode == 0
    assert served.phone.foreground()[0] == "com.phoneworld.clock"
    served.phone.step({"type": "key", "key": "home"})
    assert "com.phoneworld.launcher" in served.cli("shell", "dumpsys window | grep mCurrentFocus").stdout.decode()


def test_exec_out_screencap_is_the_phones_screen(served: Served) -> None:
    served.phone.step({"type": "open_app", "app": "Settings"})
    png = served.cli("exec-out", "screencap", "-p").stdout
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.array_equal(pixels(png), pixels(served.phone.screenshot_png()))
    assert np.array_equal(pixels(png), served.phone.screenshot())


def test_push_pull_round_trip_stays_on_the_device(served: Served, tmp_path: Path) -> None:
    data = bytes(range(256)) * 300
    (tmp_path / "in.bin").write_bytes(data)
    assert served.cli("push", str(tmp_path / "in.bin"), "/sdcard/Download/x/in.bin").returncode == 0
    assert served.cli("shell", "ls /sdcard/Download/x").stdout.decode().split() == ["in.bin"]
    assert served.cli("pull", "/sdcard/Download/x/in.bin", str(tmp_path / "out.bin")).returncode == 0
    assert (tmp_path / "out.bin").read_bytes() == data
    # The host's files are not the device's.
    assert served.cli("pull", "/etc/hostname", str(tmp_path / "host")).returncode != 0
    assert not (tmp_path / "host").exists()


def test_adbutils_through_the_server(served: Served) -> None:
    import adbutils

    device = adbutils.AdbClient(host="127.0.0.1", port=served.adb.port, socket_timeout=10).device(served.serial)
    assert tuple(device.window_size()) == (1080, 2400)
    xml = device.dump_hierarchy()
    root = ET.fromstring(xml)
    assert root.tag == "hierarchy" and any(n.get("text") == "Clock" for n in root.iter("node"))
    assert xml == served.phone.ui_xml()
    shot = np.asarray(device.screenshot().convert("RGB"))
    assert np.array_equal(shot, served.phone.screenshot())
    device.click(*_center(served.phone, "Clock"))
    assert served.phone.foreground()[0] == "com.phoneworld.clock"
    device.keyevent("KEYCODE_BACK")
    assert served.phone.foreground()[0] == "com.phoneworld.launcher"
    assert device.shell2("false").returncode == 1
    device.sync.push(b"hello", "/data/local/tmp/h.txt")
    assert device.sync.read_bytes("/data/local/tmp/h.txt") == b"hello"


def test_adb_shell_connects_directly_without_an_adb_server(adb: PrivateAdbServer) -> None:
    from adb_shell.adb_device import AdbDeviceTcp

    phone = Phone(seed=0)
    with phone.serve_adb() as server:
        device = AdbDeviceTcp("127.0.0.1", server.port, default_transport_timeout_s=5.0)
        assert device.connect(rsa_keys=None, auth_timeout_s=1.0)
        assert device.shell("getprop ro.product.model; wm size", read_timeout_s=5.0) == "PhoneWorld\nPhysical size: 1080x2400\n"
        device.shell("input keyevent HOME; monkey -p com.phoneworld.settings 1", read_timeout_s=5.0)
        assert phone.foreground()[0] == "com.phoneworld.settings"
        assert device.exec_out("screencap -p", read_timeout_s=5.0, decode=False)[:4] == b"\x89PNG"  # type: ignore[index]
        device.close()


def _center(phone: Any, text: str) -> tuple[int, int]:
    for e in phone.ui_elements():
        if e["text"] == text or e["content_description"] == text:
            b = e["bbox_pixels"]
            return int((b["x_min"] + b["x_max"]) / 2), int((b["y_min"] + b["y_max"]) / 2)
    raise AssertionError(f"no element {text!r} on screen")


def test_the_bridge_end_to_end_matches_the_direct_api(served: Served) -> None:
    direct = Phone(seed=0)
    remote = AdbPhone(served.serial, port=served.adb.port, timeout=10.0)
    assert remote.size == (1080, 2400) and remote.is_phoneworld
    script: list[Any] = [
        {"type": "open_app", "app": "Clock"},
        lambda p: {"type": "tap", "x": _center(p, "Alarm")[0], "y": _center(p, "Alarm")[1]},
        {"type": "swipe", "x1": 540, "y1": 1800, "x2": 540, "y2": 900, "ms": 300},
        {"type": "key", "key": "back"},
        {"type": "key", "key": "home"},
        {"type": "open_app", "app": "Notes"},
        {"type": "type_text", "text": "it's a test; rm -rf /", "clear": False},
        {"type": "long_press", "x": 540, "y": 1200, "ms": 800},
        {"type": "wait", "ms": 1500},
        {"type": "key", "key": "home"},
    ]
    for step in script:
        action = step(direct) if callable(step) else step
        direct.step(action)
        result = remote.step(action)
        assert result["command"]
        assert np.array_equal(remote.screenshot(), direct.screenshot()), action
        assert remote.ui_xml() == direct.ui_xml(), action
        assert remote.foreground()[0] == direct.foreground()[0]
        assert [e["text"] for e in remote.ui_elements()] == [e["text"] for e in direct.ui_elements()]
    assert served.phone.state_hash() == direct.state_hash()
    assert remote.screenshot(width=270).shape == (600, 270, 3)
    assert pixels(remote.screenshot_png()).shape == (2400, 1080, 3)


def test_what_a_real_phone_cannot_offer_raises_not_supported(served: Served) -> None:
    remote = AdbPhone(served.serial, port=served.adb.port)
    for call in (remote.state, remote.state_hash, remote.snapshot, remote.fork, lambda: AdbPhone.restore(b"x")):
        with pytest.raises(NotSupportedOnRealDevice):
            call()
    assert issubclass(NotSupportedOnRealDevice, phoneworld.PhoneWorldError)
    # A failing command is reported, not raised.
    result = remote.step({"type": "open_app", "app": "com.nope"})
    assert result["ok"] is False and "No activities" in result["note"]


def test_device_errors_are_typed(adb: PrivateAdbServer) -> None:
    with pytest.raises(phoneworld.DeviceNotFound):
        AdbPhone("127.0.0.1:1", port=adb.port)
    with Phone(seed=0).serve_adb() as closed:
        dead_port = closed.port
    with pytest.raises(phoneworld.DeviceDisconnected):
        AdbPhone("x", port=dead_port, timeout=2.0)
    phone = Phone(seed=0)
    served = Served(adb, phone)
    try:
        adb.connect(served.serial)
        remote = AdbPhone(served.serial, port=adb.port, timeout=1.0)
        served.server.set_stalled(True)
        start = time.monotonic()
        with pytest.raises(phoneworld.DeviceTimeout):
            remote.screenshot_png()
        assert time.monotonic() - start < 5.0
        served.server.set_stalled(False)
    finally:
        served.close()
    for cls in (phoneworld.DeviceNotFound, phoneworld.DeviceOffline, phoneworld.DeviceUnauthorized, phoneworld.DeviceTimeout, phoneworld.DeviceDisconnected):
        assert issubclass(cls, DeviceError)


def test_auth_mode_lets_known_keys_in_and_keeps_others_unauthorized(adb: PrivateAdbServer, tmp_path: Path) -> None:
    from adb_shell.auth.keygen import keygen

    keygen(str(tmp_path / "other"))
    stranger = Served(adb, Phone(seed=0), auth_keys=[str(tmp_path / "other.pub")])
    known = Served(adb, Phone(seed=0), auth_keys=[Path(adb.key_path).read_text()])
    anyone = Served(adb, Phone(seed=0), auth_keys="any")
    try:
        with pytest.raises(phoneworld.DeviceUnauthorized):
            AdbPhone(stranger.serial, port=adb.port, timeout=1.0, connect=True)
        assert f"{stranger.serial}\tunauthorized" in adb.run("devices").stdout.decode()
        for ok in (known, anyone):
            assert AdbPhone(ok.serial, port=adb.port, timeout=5.0, connect=True).size == (1080, 2400)
    finally:
        for s in (stranger, known, anyone):
            s.close()
    with pytest.raises(phoneworld.ConfigError, match=r"auth_keys\[0\]"):
        Phone(seed=0).serve_adb(auth_keys=["not a key"])


def test_server_object_closes_idempotently() -> None:
    phone = Phone(seed=0)
    server = phone.serve_adb()
    assert server.running and server.address == f"127.0.0.1:{server.port}" and server.port > 0
    server.close()
    server.close()
    assert not server.running
    with pytest.raises(phoneworld.PhoneWorldError, match="closed"):
        server.set_stalled(True)
    with phone.serve_adb(port=server.port) as again:  # the port is free again
        assert again.port == server.port
    assert not again.running
