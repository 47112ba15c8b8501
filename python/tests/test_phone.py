"""`phoneworld.Phone`: the device API from Python."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import phoneworld
from phoneworld import ActionError, ConfigError, Phone, PhoneWorldError, SnapshotError


def test_step_changes_the_screen_and_reports_it() -> None:
    phone = Phone(seed=0)
    before = phone.frame_hash()
    result = phone.step({"type": "open_app", "app": "Clock"})
    assert result["ok"] and result["package"] == "com.phoneworld.clock"
    assert phone.foreground() == ("com.phoneworld.clock", result["screen"])
    assert phone.frame_hash() != before


def test_screenshot_is_an_rgb_array_of_the_device_or_requested_size() -> None:
    phone = Phone(seed=0, width=720, height=1600)
    full = phone.screenshot()
    assert full.shape == (1600, 720, 3) and full.dtype == np.uint8 and full.flags["C_CONTIGUOUS"]
    assert full.std() > 0, "a real screen, not a blank buffer"
    small = phone.screenshot(width=180)
    assert small.shape == (400, 180, 3)
    png = phone.screenshot_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_ui_elements_use_androidworld_fields_and_xml_is_a_dump() -> None:
    phone = Phone(seed=0)
    phone.step({"type": "open_app", "app": "Settings"})
    elements = phone.ui_elements()
    assert elements and {"text", "content_description", "class_name", "bbox_pixels", "is_clickable", "resource_id"} <= set(elements[0])
    assert any(e["text"] == "Settings" for e in elements)
    xml = phone.ui_xml()
    assert xml.startswith("<?xml") and "android.widget" in xml
    assert "Settings" in phone.ui_tree()


def test_state_snapshot_restore_and_fork() -> None:
    phone = Phone(seed=3)
    phone.step({"type": "open_app", "app": "Clock"})
    state = phone.state()
    assert "com.phoneworld.clock" in state["apps"]
    data = phone.snapshot()
    copy = Phone.restore(data)
    assert copy.state_hash() == phone.state_hash() and copy.frame_hash() == phone.frame_hash()
    fork = phone.fork()
    fork.step({"type": "key", "key": "home"})
    assert fork.foreground()[0] == "com.phoneworld.launcher" and phone.foreground()[0] == "com.phoneworld.clock"
    twin = pickle.loads(pickle.dumps(phone))
    assert twin.state_hash() == phone.state_hash()


def test_a_trimmed_phone_continues_as_an_untrimmed_one() -> None:
    steps = [
        {"type": "open_app", "app": "Clock"},
        {"type": "tap", "x": 405, "y": 2180},
        {"type": "open_app", "app": "Settings"},
        {"type": "tap", "x": 540, "y": 700},
    ]
    kept, trimmed = Phone(seed=4), Phone(seed=4)
    for action in steps:
        kept.step(action)
        trimmed.screenshot(width=540, height=1200)
        trimmed.trim()
        trimmed.step(action)
        assert trimmed.state_hash() == kept.state_hash()
        assert np.array_equal(trimmed.screenshot(width=540, height=1200), kept.screenshot(width=540, height=1200))
    assert trimmed.frame_hash() == kept.frame_hash()
    assert trimmed.ui_elements() == kept.ui_elements()


def test_a_screenshot_view_shows_its_frame_for_as_long_as_it_is_held() -> None:
    steps = [
        {"type": "open_app", "app": "Clock"},
        {"type": "tap", "x": 405, "y": 2180},
        {"type": "open_app", "app": "Settings"},
        {"type": "swipe", "x1": 540, "y1": 1800, "x2": 540, "y2": 900},
    ]
    viewing, copying = Phone(seed=4), Phone(seed=4)
    held: list[tuple[np.ndarray, np.ndarray]] = []
    for action in steps:
        viewing.step(action)
        copying.step(action)
        for size in ((), (540, 1200)):
            view, copy = viewing.screenshot(*size, copy=False), copying.screenshot(*size)
            assert view.shape == copy.shape and view.dtype == np.uint8
            assert not view.flags.writeable
            with pytest.raises(ValueError):
                view[0, 0, 0] = 1
            assert np.array_equal(view, copy)
            held.append((view, copy))
    # Later steps drew new frames beside the held ones: each view still shows what it showed.
    for view, copy in held:
        assert np.array_equal(view, copy)
    assert viewing.frame_hash() == copying.frame_hash()


def test_corrupt_snapshot_names_the_offset() -> None:
    data = bytearray(Phone(seed=0).snapshot())
    data[-1] ^= 0xFF
    with pytest.raises(SnapshotError, match="offset 20"):
        Phone.restore(bytes(data))
    with pytest.raises(SnapshotError, match="magic"):
        Phone.restore(b"not a snapshot at all, not at all........................")


def test_bad_inputs_raise_the_hierarchy() -> None:
    phone = Phone()
    with pytest.raises(ActionError, match="missing field `y`"):
        phone.step({"type": "tap", "x": 3})
    with pytest.raises(ActionError):
        phone.step("{not json")
    with pytest.raises(ConfigError, match="out of range"):
        Phone(width=10, height=10)
    for cls in (ActionError, ConfigError, SnapshotError, phoneworld.ScriptError, phoneworld.NotSupportedOnRealDevice, phoneworld.DeviceError):
        assert issubclass(cls, PhoneWorldError)


def test_ui_element_columns_hold_the_elements_of_the_list_in_its_order() -> None:
    phone = Phone(seed=0)
    phone.step({"type": "open_app", "app": "Settings"})
    phone.step({"type": "swipe", "x1": 540, "y1": 1800, "x2": 540, "y2": 900})
    elements, columns = phone.ui_elements(), phone.ui_element_columns()
    n = len(elements)
    assert n > 10 and columns["bbox_pixels"].shape == (n, 4) and columns["bbox"].shape == (n, 4)
    for field in ("text", "content_description", "class_name", "hint_text", "resource_id", "package_name"):
        assert columns[field] == [e[field] for e in elements], field
    for flag in ("is_checked", "is_checkable", "is_clickable", "is_editable", "is_enabled", "is_focused", "is_focusable",
                 "is_long_clickable", "is_scrollable", "is_selected"):  # fmt: skip
        assert columns[flag].dtype == np.bool_ and columns[flag].tolist() == [e[flag] for e in elements], flag
    for key in ("bbox_pixels", "bbox"):
        boxes = [[e[key][k] for k in ("x_min", "y_min", "x_max", "y_max")] for e in elements]
        assert columns[key].tolist() == boxes, key


def test_a_noop_is_reported_not_raised() -> None:
    phone = Phone()
    result = phone.step({"type": "tap", "x": 540, "y": 5})
    assert result["ok"] is False and result["note"]


def test_ui_elements_have_exactly_androidworlds_fields() -> None:
    fields = {
        "text", "content_description", "class_name", "bbox", "bbox_pixels", "hint_text", "is_checked", "is_checkable",
        "is_clickable", "is_editable", "is_enabled", "is_focused", "is_focusable", "is_long_clickable", "is_scrollable",
        "is_selected", "is_visible", "package_name", "resource_name", "tooltip", "resource_id",
    }  # fmt: skip
    phone = Phone(seed=0)
    phone.step({"type": "open_app", "app": "Settings"})
    for element in phone.ui_elements():
        assert set(element) == fields
        box = element["bbox_pixels"]
        assert set(box) == {"x_min", "x_max", "y_min", "y_max"} and box["x_max"] > box["x_min"]
