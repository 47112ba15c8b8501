"""Agent frameworks that shell out to `adb` drive a served phone unmodified.

AppAgent (`and_controller.py`) and Mobile-Agent (`controller.py`) run `adb -s SERIAL ...` command
strings through `subprocess` with a shell, and parse what comes back with string splits and
ElementTree. Their command strings are replayed here as they issue them, against Debian's `adb`
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
from typing import Any, Iterator

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


# --- AppAgent (scripts/and_controller.py), unmodified apart from running in this shell ----------


class AndroidElement:
    def __init__(self, uid: str, bbox: tuple[tuple[int, int], tuple[int, int]], attrib: str) -> None:
        self.uid = uid
        self.bbox = bbox
        self.attrib = attrib


def get_id_from_element(elem: ET.Element) -> str:
    bounds = elem.attrib["bounds"][1:-1].split("][")
    x1, y1 = map(int, bounds[0].split(","))
    x2, y2 = map(int, bounds[1].split(","))
    elem_w, elem_h = x2 - x1, y2 - y1
    if "resource-id" in elem.attrib and elem.attrib["resource-id"]:
        elem_id = elem.attrib["resource-id"].replace(":", ".").replace("/", "_")
    else:
        elem_id = f"{elem.attrib['class']}_{elem_w}_{elem_h}"
    if "content-desc" in elem.attrib and elem.attrib["content-desc"] and len(elem.attrib["content-desc"]) < 20:
        content_desc = elem.attrib["content-desc"].replace("/", "_").replace(" ", "").replace(":", "_")
        elem_id += f"_{content_desc}"
    return elem_id


def traverse_tree(xml_path: str, elem_list: list[AndroidElement], attrib: str, add_index: bool = False) -> None:
    path: list[ET.Element] = []
    for event, elem in ET.iterparse(xml_path, ["start", "end"]):
        if event == "start":
            path.append(elem)
            if attrib in elem.attrib and elem.attrib[attrib] == "true":
                parent_prefix = ""
                if len(path) > 1:
                    parent_prefix = get_id_from_element(path[-2])
                bounds = elem.attrib["bounds"][1:-1].split("][")
                x1, y1 = map(int, bounds[0].split(","))
                x2, y2 = map(int, bounds[1].split(","))
                center = (x1 + x2) // 2, (y1 + y2) // 2
                elem_id = get_id_from_element(elem)
                if parent_prefix:
                    elem_id = parent_prefix + "_" + elem_id
                if add_index:
                    elem_id += f"_{elem.attrib['index']}"
                close = False
                for e in elem_list:
                    bbox = e.bbox
                    center_ = (bbox[0][0] + bbox[1][0]) // 2, (bbox[0][1] + bbox[1][1]) // 2
                    dist = (abs(center[0] - center_[0]) ** 2 + abs(center[1] - center_[1]) ** 2) ** 0.5
                    if dist <= MIN_DIST:
                        close = True
                        break
                if not close:
                    elem_list.append(AndroidElement(elem_id, ((x1, y1), (x2, y2)), attrib))
        if event == "end":
            path.pop()


class AppAgentController:
    """AppAgent's AndroidController and execute_adb, with `subprocess.run` going through `served`."""

    def __init__(self, served: Served, device: str) -> None:
        self.served = served
        self.device = device
        self.screenshot_dir = ANDROID_DIR
        self.xml_dir = ANDROID_DIR
        self.width, self.height = self.get_device_size()
        self.backslash = "\\"

    def execute_adb(self, adb_command: str) -> str:
        result = self.served.run(adb_command)
        if result.returncode == 0:
            return result.stdout.strip()
        return "ERROR"

    def list_all_devices(self) -> list[str]:
        device_list = []
        result = self.execute_adb("adb devices")
        if result != "ERROR":
            devices = result.split("\n")[1:]
            for d in devices:
                device_list.append(d.split()[0])
        return device_list

    def get_device_size(self) -> tuple[int, int]:
        adb_command = f"adb -s {self.device} shell wm size"
        result = self.execute_adb(adb_command)
        if result != "ERROR":
            width, height = map(int, result.split(": ")[1].split("x"))
            return width, height
        return 0, 0

    def get_screenshot(self, prefix: str, save_dir: str) -> str:
        cap_command = f"adb -s {self.device} shell screencap -p " f"{os.path.join(self.screenshot_dir, prefix + '.png').replace(self.backslash, '/')}"
        pull_command = (
            f"adb -s {self.device} pull "
            f"{os.path.join(self.screenshot_dir, prefix + '.png').replace(self.backslash, '/')} "
            f"{os.path.join(save_dir, prefix + '.png')}"
        )
        result = self.execute_adb(cap_command)
        if result != "ERROR":
            result = self.execute_adb(pull_command)
            if result != "ERROR":
                return os.path.join(save_dir, prefix + ".png")
            return result
        return result

    def get_xml(self, prefix: str, save_dir: str) -> str:
        dump_command = f"adb -s {self.device} shell uiautomator dump " f"{os.path.join(self.xml_dir, prefix + '.xml').replace(self.backslash, '/')}"
        pull_command = (
            f"adb -s {self.device} pull "
            f"{os.path.join(self.xml_dir, prefix + '.xml').replace(self.backslash, '/')} "
            f"{os.path.join(save_dir, prefix + '.xml')}"
        )
        result = self.execute_adb(dump_command)
        if result != "ERROR":
            result = self.execute_adb(pull_command)
            if result != "ERROR":
                return os.path.join(save_dir, prefix + ".xml")
            return result
        return result

    def back(self) -> str:
        return self.execute_adb(f"adb -s {self.device} shell input keyevent KEYCODE_BACK")

    def tap(self, x: int, y: int) -> str:
        return self.execute_adb(f"adb -s {self.device} shell input tap {x} {y}")

    def text(self, input_str: str) -> str:
        input_str = input_str.replace(" ", "%s")
        input_str = input_str.replace("'", "")
        return self.execute_adb(f"adb -s {self.device} shell input text {input_str}")

    def long_press(self, x: int, y: int, duration: int = 1000) -> str:
        return self.execute_adb(f"adb -s {self.device} shell input swipe {x} {y} {x} {y} {duration}")

    def swipe(self, x: int, y: int, direction: str, dist: str = "medium", quick: bool = False) -> str:
        unit_dist = int(self.width / 10)
        if dist == "long":
            unit_dist *= 3
        elif dist == "medium":
            unit_dist *= 2
        if direction == "up":
            offset = 0, -2 * unit_dist
        elif direction == "down":
            offset = 0, 2 * unit_dist
        elif direction == "left":
            offset = -1 * unit_dist, 0
        elif direction == "right":
            offset = unit_dist, 0
        else:
            return "ERROR"
        duration = 100 if quick else 400
        return self.execute_adb(f"adb -s {self.device} shell input swipe {x} {y} {x+offset[0]} {y+offset[1]} {duration}")


def appagent_elements(xml_path: str) -> list[AndroidElement]:
    """AppAgent's task_executor: clickable elements, then focusable ones not close to any of them."""
    clickable_list: list[AndroidElement] = []
    focusable_list: list[AndroidElement] = []
    traverse_tree(xml_path, clickable_list, "clickable", True)
    traverse_tree(xml_path, focusable_list, "focusable", True)
    elem_list = clickable_list.copy()
    for elem in focusable_list:
        bbox = elem.bbox
        center = (bbox[0][0] + bbox[1][0]) // 2, (bbox[0][1] + bbox[1][1]) // 2
        close = False
        for e in clickable_list:
            bbox = e.bbox
            center_ = (bbox[0][0] + bbox[1][0]) // 2, (bbox[0][1] + bbox[1][1]) // 2
            dist = (abs(center[0] - center_[0]) ** 2 + abs(center[1] - center_[1]) ** 2) ** 0.5
            if dist <= MIN_DIST:
                close = True
                break
        if not close:
            elem_list.append(elem)
    return elem_list


def element_center(elem_list: list[AndroidElement], uid_part: str) -> tuple[int, int]:
    """What the model answers `tap(N)` with: the center of the one element whose id names it."""
    matches = [e for e in elem_list if uid_part in e.uid]
    assert len(matches) == 1, (uid_part, [e.uid for e in elem_list])
    (x1, y1), (x2, y2) = matches[0].bbox
    return (x1 + x2) // 2, (y1 + y2) // 2


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


# --- Mobile-Agent (MobileAgent/controller.py), unmodified apart from running in this shell ------


class MobileAgentController:
    """Mobile-Agent's controller functions; `adb_path` is `adb -s SERIAL`, and `subprocess.run`
    goes through `served` (same arguments, a timeout, the private server)."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.adb_path = f"adb -s {served.serial}"

    def get_size(self) -> tuple[int, int]:
        command = self.adb_path + " shell wm size"
        result = self.served.run(command)
        resolution_line = result.stdout.strip().split("\n")[-1]
        width, height = map(int, resolution_line.split(" ")[-1].split("x"))
        return width, height

    def get_xml(self) -> None:
        # Mobile-Agent passes [adb_path, 'shell', 'uiautomator', 'dump']: the path split in words.
        self.served.run([*self.adb_path.split(), "shell", "uiautomator", "dump"])
        self.served.run([*self.adb_path.split(), "pull", "/sdcard/window_dump.xml", "./xml/window_dump.xml"])

    def get_screenshot(self) -> None:
        command = self.adb_path + " shell rm /sdcard/screenshot.png"
        self.served.run(command)
        command = self.adb_path + " shell screencap -p /sdcard/screenshot.png"
        self.served.run(command)
        command = self.adb_path + " pull /sdcard/screenshot.png ./screenshot"
        self.served.run(command)
        image_path = str(self.served.workdir / "screenshot" / "screenshot.png")
        save_path = str(self.served.workdir / "screenshot" / "screenshot.jpg")
        image = Image.open(image_path)
        image.convert("RGB").save(save_path, "JPEG")
        os.remove(image_path)

    def tap(self, x: int, y: int) -> None:
        command = self.adb_path + f" shell input tap {x} {y}"
        self.served.run(command)

    def type(self, text: str) -> None:
        text = text.replace("\\n", "_").replace("\n", "_")
        for char in text:
            if char == " ":
                command = self.adb_path + " shell input text %s"
                self.served.run(command)
            elif char == "_":
                command = self.adb_path + " shell input keyevent 66"
                self.served.run(command)
            elif "a" <= char <= "z" or "A" <= char <= "Z" or char.isdigit():
                command = self.adb_path + f" shell input text {char}"
                self.served.run(command)
            elif char in "-.,!?@'°/:;()":
                command = self.adb_path + f' shell input text "{char}"'
                self.served.run(command)
            else:
                command = self.adb_path + f' shell am broadcast -a ADB_INPUT_TEXT --es msg "{char}"'
                self.served.run(command)

    def slide(self, x1: int, y1: int, x2: int, y2: int) -> None:
        command = self.adb_path + f" shell input swipe {x1} {y1} {x2} {y2} 500"
        self.served.run(command)

    def back(self) -> None:
        command = self.adb_path + " shell input keyevent 4"
        self.served.run(command)

    def home(self) -> None:
        command = self.adb_path + " shell am start -a android.intent.action.MAIN -c android.intent.category.HOME"
        self.served.run(command)

    def keyboard_shown(self) -> bool:
        """Mobile-Agent v2's keyboard check: `mInputShown=` of `dumpsys input_method`."""
        output = self.served.run(self.adb_path + " shell dumpsys input_method").stdout
        for line in output.splitlines():
            if "mInputShown=" in line:
                return line.split("mInputShown=")[1].split()[0] == "true"
        return False


def xml_center(xml_path: Path, **attrs: str) -> tuple[int, int]:
    """The center of the one node with these attributes (`content_desc` for `content-desc`)."""
    wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
    nodes = [n for n in ET.parse(xml_path).iter("node") if all(n.get(k) == v for k, v in wanted.items())]
    assert len(nodes) == 1, (wanted, len(nodes))
    bounds = nodes[0].attrib["bounds"][1:-1].split("][")
    x1, y1 = map(int, bounds[0].split(","))
    x2, y2 = map(int, bounds[1].split(","))
    return (x1 + x2) // 2, (y1 + y2) // 2


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
