"""Agent frameworks that shell out to `adb` drive a served phone unmodified.

AppAgent and Mobile-Agent run `adb -s SERIAL ...` command strings through `subprocess` with a
shell, and parse what comes back with string splits and ElementTree. Their command strings are
replayed here as they issue them, against Debian's `adb`
and a private adb server, their output is parsed the way they parse it, and the served phone must
end up where the same canonical actions take a phone driven directly (its twin), with the
screen changes an agent would see: text landing in the field, Back and Home changing the
foreground, a swipe scrolling the list.
"""

from __future__ import annotations

import io
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterator, Optional

import numpy as np
import pytest
from PIL import Image

from phoneworld import Phone

#: AppAgent's config.yaml: screenshots and XML go to /sdcard; elements closer than this merge.
ANDROID_DIR = "/sdcard"
MIN_DIST = 30


class Served:
    """A phone served over ADB, its twin driven directly, and the shell the frameworks run in."""

    def __init__(self, adb: Any, workdir: Path) -> None:
        self.adb = adb
        self.phone = Phone(seed=0)
        self.twin = Phone(seed=0)
        self.server = self.phone.serve_adb()
        self.serial = adb.connect(self.server.address)
        self.workdir = workdir
        # `adb` on PATH talks to the private server, as a framework's bare `adb` would to the default one.
        self.env = {**adb.env, "ANDROID_ADB_SERVER_PORT": str(adb.port)}

    def run(self, command: str | list[str]) -> "subprocess.CompletedProcess[str]":
        """`subprocess.run(command, shell=..., capture_output=True, text=True)` as the frameworks
        do, with a timeout; output goes through files so an adb daemon can never hold a pipe."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            code = subprocess.run(
                command, shell=isinstance(command, str), stdout=out, stderr=err, env=self.env, cwd=self.workdir, timeout=30
            ).returncode
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess(command, code, out.read().decode(), err.read().decode())

    def both(self, action: dict[str, Any]) -> None:
        """The canonical action the last command stands for, applied to the twin."""
        self.twin.step(action)

    def assert_in_step(self) -> None:
        assert self.phone.state_hash() == self.twin.state_hash(), (self.phone.foreground(), self.twin.foreground())
        assert self.phone.frame_hash() == self.twin.frame_hash()

    def close(self) -> None:
        self.server.close()
        self.adb.run("disconnect", self.serial, timeout=10.0)


@pytest.fixture()
def served(adb: Any, tmp_path: Path) -> Iterator[Served]:
    s = Served(adb, tmp_path)
    try:
        yield s
    finally:
        s.close()


def rgb(png: bytes | Path) -> np.ndarray:
    source = png if isinstance(png, Path) else io.BytesIO(png)
    return np.asarray(Image.open(source).convert("RGB"))


def search_field_text(xml: str) -> str:
    field = [
        n
        for n in ET.fromstring(xml).iter("node")
        if n.get("resource-id") == "com.phoneworld.notes:id/search_field" and n.get("class") == "android.widget.EditText"
    ]
    assert len(field) == 1, "one search field on the screen"
    return field[0].get("text", "")


# --- AppAgent's side: its command strings and the way it reads their output, in our own code ---


def node_box(node: ET.Element) -> tuple[int, int, int, int]:
    """`bounds="[x1,y1][x2,y2]"` as four ints."""
    first, second = node.attrib["bounds"].strip("[]").split("][")
    x1, y1 = (int(v) for v in first.split(","))
    x2, y2 = (int(v) for v in second.split(","))
    return x1, y1, x2, y2


def center(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


class AndroidElement:
    """An element AppAgent numbers for the model: an id built from the node and its box."""

    def __init__(self, uid: str, box: tuple[int, int, int, int]) -> None:
        self.uid, self.box = uid, box


def appagent_name(node: ET.Element) -> str:
    """AppAgent's element name: the resource id (`:` and `/` replaced), or class and size; then a
    short content description."""
    x1, y1, x2, y2 = node_box(node)
    resource = node.get("resource-id", "")
    name = resource.replace(":", ".").replace("/", "_") if resource else f"{node.get('class')}_{x2 - x1}_{y2 - y1}"
    desc = node.get("content-desc", "")
    if desc and len(desc) < 20:
        name += "_" + desc.replace("/", "_").replace(" ", "").replace(":", "_")
    return name


def far_from(elements: list[AndroidElement], box: tuple[int, int, int, int]) -> bool:
    cx, cy = center(box)
    return all(((cx - ex) ** 2 + (cy - ey) ** 2) ** 0.5 > MIN_DIST for ex, ey in (center(e.box) for e in elements))


def elements_with(xml_path: str, flag: str) -> list[AndroidElement]:
    """Nodes whose `flag` is "true", named parent-name + own name + index, dropping any whose
    center lies within MIN_DIST of one already taken."""
    found: list[AndroidElement] = []

    def walk(node: ET.Element, parent: Optional[ET.Element]) -> None:
        if node.tag == "node" and node.get(flag) == "true":
            uid = appagent_name(node)
            if parent is not None and parent.tag == "node":
                uid = appagent_name(parent) + "_" + uid
            uid += "_" + node.get("index", "")
            if far_from(found, node_box(node)):
                found.append(AndroidElement(uid, node_box(node)))
        for child in node:
            walk(child, node)

    walk(ET.parse(xml_path).getroot(), None)
    return found


def appagent_elements(xml_path: str) -> list[AndroidElement]:
    """Clickable elements, then focusable ones not close to a clickable one."""
    clickable = elements_with(xml_path, "clickable")
    return clickable + [e for e in elements_with(xml_path, "focusable") if far_from(clickable, e.box)]


class AppAgentController:
    """AppAgent's controller: `adb -s SERIAL ...` strings run with a shell; output stripped, or
    "ERROR" on a non-zero exit."""

    def __init__(self, served: Served, device: str) -> None:
        self.served, self.device = served, device
        self.width, self.height = self.get_device_size()

    def adb(self, args: str) -> str:
        result = self.served.run(f"adb -s {self.device} {args}" if args != "devices" else "adb devices")
        return result.stdout.strip() if result.returncode == 0 else "ERROR"

    def list_all_devices(self) -> list[str]:
        out = self.adb("devices")
        return [] if out == "ERROR" else [line.split()[0] for line in out.split("\n")[1:]]

    def get_device_size(self) -> tuple[int, int]:
        out = self.adb("shell wm size")  # "Physical size: 1080x2400", read with split(": ")[1]
        if out == "ERROR":
            return 0, 0
        width, height = out.split(": ")[1].split("x")
        return int(width), int(height)

    def fetch(self, command: str, device_file: str, save_dir: str) -> str:
        """Runs `command` that writes `device_file`, pulls it into `save_dir`: the local path or "ERROR"."""
        local = os.path.join(save_dir, os.path.basename(device_file))
        if self.adb(f"shell {command} {device_file}") == "ERROR" or self.adb(f"pull {device_file} {local}") == "ERROR":
            return "ERROR"
        return local

    def get_screenshot(self, prefix: str, save_dir: str) -> str:
        return self.fetch("screencap -p", f"{ANDROID_DIR}/{prefix}.png", save_dir)

    def get_xml(self, prefix: str, save_dir: str) -> str:
        return self.fetch("uiautomator dump", f"{ANDROID_DIR}/{prefix}.xml", save_dir)

    def back(self) -> str:
        return self.adb("shell input keyevent KEYCODE_BACK")

    def tap(self, x: int, y: int) -> str:
        return self.adb(f"shell input tap {x} {y}")

    def text(self, text: str) -> str:
        # spaces become %s, apostrophes are dropped
        return self.adb("shell input text " + text.replace(" ", "%s").replace("'", ""))

    def long_press(self, x: int, y: int, duration: int = 1000) -> str:
        return self.adb(f"shell input swipe {x} {y} {x} {y} {duration}")

    def swipe(self, x: int, y: int, direction: str, dist: str = "medium", quick: bool = False) -> str:
        # a tenth of the width per unit; medium is two units, long three; vertical moves go twice as far
        unit = self.width // 10 * {"short": 1, "medium": 2, "long": 3}[dist]
        dx, dy = {"up": (0, -2 * unit), "down": (0, 2 * unit), "left": (-unit, 0), "right": (unit, 0)}[direction]
        return self.adb(f"shell input swipe {x} {y} {x + dx} {y + dy} {100 if quick else 400}")


def element_center(elem_list: list[AndroidElement], uid_part: str) -> tuple[int, int]:
    """What the model answers `tap(N)` with: the center of the one element whose id names it."""
    matches = [e for e in elem_list if uid_part in e.uid]
    assert len(matches) == 1, (uid_part, [e.uid for e in elem_list])
    return center(matches[0].box)


def test_appagent_command_sequence_drives_the_served_phone(served: Served) -> None:
    controller = AppAgentController(served, served.serial)
    assert served.serial in controller.list_all_devices()
    assert (controller.width, controller.height) == (1080, 2400)
    save_dir = str(served.workdir)

    # Round 1 on the home screen: the screenshot AppAgent labels and the elements it numbers.
    shot = controller.get_screenshot("1_before", save_dir)
    assert shot == os.path.join(save_dir, "1_before.png")
    assert np.array_equal(rgb(Path(shot)), served.phone.screenshot())
    xml_path = controller.get_xml("1", save_dir)
    assert xml_path == os.path.join(save_dir, "1.xml")
    assert Path(xml_path).read_text() == served.phone.ui_xml()
    elements = appagent_elements(xml_path)
    # Launcher icons have no resource id: class, size and content description name them.
    x, y = element_center(elements, "_Notes_")
    assert controller.tap(x, y) == ""
    served.both({"type": "tap", "x": x, "y": y})
    assert served.phone.foreground() == ("com.phoneworld.notes", "home")
    served.assert_in_step()

    # Round 2: the search button, by its resource id, then the search field.
    elements = appagent_elements(controller.get_xml("2", save_dir))
    x, y = element_center(elements, "com.phoneworld.notes.id_search_")
    controller.tap(x, y)
    served.both({"type": "tap", "x": x, "y": y})
    elements = appagent_elements(controller.get_xml("3", save_dir))
    x, y = element_center(elements, "com.phoneworld.notes.id_search_field")
    controller.tap(x, y)
    served.both({"type": "tap", "x": x, "y": y})
    # Spaces travel as %s and apostrophes are dropped, as AppAgent sends them.
    assert controller.text("Wi-Fi for guest's") != "ERROR"
    served.both({"type": "type_text", "text": "Wi-Fi for guests"})
    xml = Path(controller.get_xml("4", save_dir)).read_text()
    assert search_field_text(xml) == "Wi-Fi for guests"
    assert "Wi-Fi for guests" in [n.get("text") for n in ET.fromstring(xml).iter("node") if n.get("class") == "android.widget.TextView"]
    served.assert_in_step()

    # The first Back closes the keyboard, the second leaves the search screen.
    assert controller.back() != "ERROR"
    served.both({"type": "key", "key": "back"})
    assert served.phone.foreground() == ("com.phoneworld.notes", "search")
    assert controller.back() != "ERROR"
    served.both({"type": "key", "key": "back"})
    assert served.phone.foreground() == ("com.phoneworld.notes", "home")
    served.assert_in_step()

    # A medium swipe up (2 x width/10 x 2 = 432 px, 400 ms) scrolls the notes list by as much.
    before = appagent_elements(controller.get_xml("5", save_dir))
    assert controller.swipe(540, 1500, "up") != "ERROR"
    served.both({"type": "swipe", "x1": 540, "y1": 1500, "x2": 540, "y2": 1500 - 432, "ms": 400})
    after = appagent_elements(controller.get_xml("6", save_dir))
    assert element_center(after, "_NoteParkingspot_")[1] == element_center(before, "_NoteParkingspot_")[1] - 432
    served.assert_in_step()

    # A long press is a swipe that stays on the point for 1000 ms.
    x, y = element_center(after, "_NoteParkingspot_")
    assert controller.long_press(x, y) != "ERROR"
    served.both({"type": "long_press", "x": x, "y": y, "ms": 1000})
    menu = [n.get("text") for n in ET.parse(controller.get_xml("7", save_dir)).iter("node")]
    assert {"Pin", "Archive", "Make a copy"} <= set(menu)
    served.assert_in_step()
    shot = controller.get_screenshot("7_after", save_dir)
    assert np.array_equal(rgb(Path(shot)), served.twin.screenshot())


# --- Mobile-Agent's side: its command strings and the way it reads their output, in our own code


class MobileAgentController:
    """Mobile-Agent's controller: `adb -s SERIAL` as the adb path, commands run with a shell and
    their exit status ignored."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.adb_path = f"adb -s {served.serial}"

    def shell(self, command: str) -> str:
        return self.served.run(f"{self.adb_path} shell {command}").stdout

    def get_size(self) -> tuple[int, int]:
        # the last line of `wm size`, its last word split at "x"
        last = self.shell("wm size").strip().split("\n")[-1]
        width, height = last.split(" ")[-1].split("x")
        return int(width), int(height)

    def get_xml(self) -> None:
        # the dump goes to the default file, run as an argument list, then pulled
        self.served.run([*self.adb_path.split(), "shell", "uiautomator", "dump"])
        self.served.run([*self.adb_path.split(), "pull", "/sdcard/window_dump.xml", "./xml/window_dump.xml"])

    def get_screenshot(self) -> None:
        # remove the old file, capture, pull, keep a JPEG copy
        self.shell("rm /sdcard/screenshot.png")
        self.shell("screencap -p /sdcard/screenshot.png")
        self.served.run(f"{self.adb_path} pull /sdcard/screenshot.png ./screenshot")
        png = self.served.workdir / "screenshot" / "screenshot.png"
        Image.open(png).convert("RGB").save(png.with_suffix(".jpg"), "JPEG")
        png.unlink()

    def tap(self, x: int, y: int) -> None:
        self.shell(f"input tap {x} {y}")

    def type(self, text: str) -> None:
        # one command per character: %s for a space, Enter for a newline, letters and digits bare,
        # common punctuation quoted, anything else through ADBKeyboard's broadcast
        for char in text.replace("\\n", "\n"):
            if char == " ":
                self.shell("input text %s")
            elif char == "\n":
                self.shell("input keyevent 66")
            elif char.isascii() and char.isalnum():
                self.shell(f"input text {char}")
            elif char in "-.,!?@'°/:;()":
                self.shell(f'input text "{char}"')
            else:
                self.shell(f'am broadcast -a ADB_INPUT_TEXT --es msg "{char}"')

    def slide(self, x1: int, y1: int, x2: int, y2: int) -> None:
        self.shell(f"input swipe {x1} {y1} {x2} {y2} 500")

    def back(self) -> None:
        self.shell("input keyevent 4")

    def home(self) -> None:
        self.shell("am start -a android.intent.action.MAIN -c android.intent.category.HOME")

    def keyboard_shown(self) -> bool:
        """Whether `dumpsys input_method` says `mInputShown=true`."""
        for line in self.shell("dumpsys input_method").splitlines():
            if "mInputShown=" in line:
                return line.split("mInputShown=")[1].split()[0] == "true"
        return False


def xml_center(xml_path: Path, **attrs: str) -> tuple[int, int]:
    """The center of the one node with these attributes (`content_desc` for `content-desc`)."""
    wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
    nodes = [n for n in ET.parse(xml_path).iter("node") if all(n.get(k) == v for k, v in wanted.items())]
    assert len(nodes) == 1, (wanted, len(nodes))
    return center(node_box(nodes[0]))


def close_to(jpeg: Path, screen: np.ndarray) -> bool:
    pixels = rgb(jpeg).astype(np.int16)
    return pixels.shape == screen.shape and float(np.abs(pixels - screen.astype(np.int16)).mean()) < 4.0


def test_mobile_agent_command_sequence_drives_the_served_phone(served: Served) -> None:
    (served.workdir / "screenshot").mkdir()
    (served.workdir / "xml").mkdir()
    controller = MobileAgentController(served)
    for phone in (served.phone, served.twin):
        phone.step({"type": "open_app", "app": "Settings"})

    # Home through the launcher intent.
    controller.home()
    served.both({"type": "key", "key": "home"})
    assert served.phone.foreground()[0] == "com.phoneworld.launcher"
    assert controller.get_size() == (1080, 2400)
    controller.get_screenshot()
    jpeg = served.workdir / "screenshot" / "screenshot.jpg"
    assert close_to(jpeg, served.phone.screenshot())
    assert not (served.workdir / "screenshot" / "screenshot.png").exists()
    controller.get_xml()
    xml_path = served.workdir / "xml" / "window_dump.xml"
    assert xml_path.read_text() == served.phone.ui_xml()

    x, y = xml_center(xml_path, content_desc="Notes", clickable="true")
    controller.tap(x, y)
    served.both({"type": "tap", "x": x, "y": y})
    assert served.phone.foreground() == ("com.phoneworld.notes", "home")
    # The next round's screenshot replaces the last one (rm first, then screencap and pull).
    controller.get_screenshot()
    assert close_to(jpeg, served.phone.screenshot())
    served.assert_in_step()

    controller.get_xml()
    x, y = xml_center(xml_path, content_desc="Search notes")
    controller.tap(x, y)
    served.both({"type": "tap", "x": x, "y": y})
    assert not controller.keyboard_shown()
    controller.get_xml()
    x, y = xml_center(xml_path, resource_id="com.phoneworld.notes:id/search_field", **{"class": "android.widget.EditText"})
    controller.tap(x, y)
    served.both({"type": "tap", "x": x, "y": y})
    assert controller.keyboard_shown()

    # One character per call: letters and digits bare, %s for a space, punctuation quoted,
    # anything else through ADBKeyboard's broadcast, and a newline as Enter (keyevent 66).
    typed = "Café B-2, ok?"
    controller.type(typed + "\n")
    for char in typed:
        served.both({"type": "type_text", "text": char})
    served.both({"type": "key", "key": "enter"})
    controller.get_xml()
    assert search_field_text(xml_path.read_text()) == typed
    served.assert_in_step()

    # Back (keyevent 4) closes the keyboard, then leaves the search screen.
    controller.back()
    served.both({"type": "key", "key": "back"})
    assert not controller.keyboard_shown()
    if served.phone.foreground()[1] == "search":
        controller.back()
        served.both({"type": "key", "key": "back"})
    assert served.phone.foreground() == ("com.phoneworld.notes", "home")
    served.assert_in_step()

    # A slide scrolls the list by its length.
    controller.get_xml()
    before = xml_center(xml_path, content_desc="Note Parking spot")
    controller.slide(540, 1500, 540, 1100)
    served.both({"type": "swipe", "x1": 540, "y1": 1500, "x2": 540, "y2": 1100, "ms": 500})
    controller.get_xml()
    assert xml_center(xml_path, content_desc="Note Parking spot")[1] == before[1] - 400
    served.assert_in_step()

    controller.home()
    served.both({"type": "key", "key": "home"})
    assert served.phone.foreground()[0] == "com.phoneworld.launcher"
    served.assert_in_step()
