"""`phoneworld studio` in headless Chromium: the live phone answers the mouse, a saved file is
reloaded, a problem shows with its line and goes when fixed, a task recorded by doing it
verifies, and a request from elsewhere is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import ROOT

ADD = "Add one"


@pytest.fixture(scope="module")
def studio(cli: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A studio on a copy of the tutorial's Tally app, on a free port."""
    app = tmp_path_factory.mktemp("studio") / "tally"
    shutil.copytree(ROOT / "examples" / "tally", app)
    process = subprocess.Popen([str(cli), "--json", "studio", str(app), "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        started = json.loads(process.stdout.readline())
        base = f"http://{started['address']}"
        yield {"url": started["url"], "base": base, "token": started["url"].split("token=")[1], "app": app}
    finally:
        process.kill()
        process.wait()


def status(url: str, headers: dict[str, str]) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
            return int(response.status)
    except urllib.error.HTTPError as err:
        return int(err.code)


def test_a_request_without_the_token_or_from_another_origin_or_host_is_refused(studio: dict[str, Any]) -> None:
    panels, token = f"{studio['base']}/api/panels", studio["token"]
    assert status(panels, {"x-studio-token": token}) == 200
    assert status(panels, {}) == 403
    assert status(f"{panels}?token=wrong", {}) == 403
    assert status(panels, {"x-studio-token": token, "Origin": "http://evil.example"}) == 403
    assert status(panels, {"x-studio-token": token, "Host": "evil.example"}) == 403
    assert status(f"{studio['base']}/api/file?path={studio['app'].parent}/../etc/passwd", {"x-studio-token": token}) == 404
    # The live socket too: a page elsewhere cannot open it with the token.
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    assert status(f"{studio['base']}/api/live?token={token}", {**upgrade, "Origin": "http://evil.example"}) == 403
    assert status(f"{studio['base']}/api/live", upgrade) == 403


def open_page(browser: Any, studio: dict[str, Any]) -> None:
    browser.open(studio["url"])
    browser.wait(lambda: ADD in browser.text("#elements"))
    # The element list can arrive before the screen's image has loaded (it has no height yet).
    browser.wait(lambda: browser.js("const s = document.getElementById('screen'); return s.complete && s.naturalHeight > 0"))


def element(browser: Any, text: str) -> dict[str, Any]:
    found = browser.js("return studio.panels.elements.find(e => e.text === arguments[0]) || null", text)
    assert found is not None, f"no element `{text}` on the phone"
    return dict(found)


def tap(browser: Any, text: str) -> None:
    """Clicks the phone's screen where the element reading `text` is drawn."""
    from selenium.webdriver.common.action_chains import ActionChains

    box = element(browser, text)["bbox_pixels"]
    screen = browser.find("#screen")
    size = browser.js("return studio.panels.size")
    scale = screen.rect["width"] / size["width"]
    x = (box["x_min"] + box["x_max"]) / 2 * scale - screen.rect["width"] / 2
    y = (box["y_min"] + box["y_max"]) / 2 * scale - screen.rect["height"] / 2
    version = browser.js("return studio.version")
    ActionChains(browser.driver).move_to_element_with_offset(screen, int(x), int(y)).click().perform()
    browser.wait(lambda: browser.js("return studio.version") > version)


def test_a_click_on_the_phone_taps_it_and_the_inspector_finds_the_element(browser: Any, studio: dict[str, Any]) -> None:
    open_page(browser, studio)
    before = browser.screenshot("#screen")
    tap(browser, ADD)
    browser.wait(lambda: '"count": 1' in browser.text("#state"))
    browser.wait(lambda: "1 tap so far" in browser.text("#vm"))
    browser.wait(lambda: (browser.screenshot("#screen") != before).any())
    # Hovering an element of the tree outlines it on the phone and lists its fields.
    from selenium.webdriver.common.action_chains import ActionChains

    row = browser.js("return [...document.querySelectorAll('#elements li')].find(li => li.textContent.includes(arguments[0]))", ADD)
    ActionChains(browser.driver).move_to_element(row).perform()
    assert browser.js("return document.getElementById('highlight').hidden") is False
    assert "is_clickable" in browser.text("#element-fields")
    assert browser.console_errors() == []


def edit(path: Path, old: str, new: str) -> str:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return text


def test_a_saved_layout_is_reloaded_keeping_the_state(browser: Any, studio: dict[str, Any]) -> None:
    open_page(browser, studio)
    layout = studio["app"] / "screens" / "main.ron"
    original = edit(layout, f'"{ADD}"', '"Add 1"')
    try:
        browser.wait(lambda: "Add 1" in browser.text("#elements"))
        assert "state kept" in browser.text("#notice")
    finally:
        layout.write_text(original)
    browser.wait(lambda: ADD in browser.text("#elements"))


def test_a_mistake_is_reported_with_its_line_and_suggestion_then_cleared_when_fixed(browser: Any, studio: dict[str, Any]) -> None:
    open_page(browser, studio)
    layout = studio["app"] / "screens" / "main.ron"
    original = edit(layout, 'align: "center"', 'align: "cetner"')
    try:
        browser.wait(lambda: "main.ron:7:" in browser.text("#problems"))
        assert "did you mean `center`?" in browser.text("#problems")
        assert browser.text("#problem-count") == "1"
        assert "not reloaded" in browser.text("#notice")
    finally:
        layout.write_text(original)
    browser.wait(lambda: browser.text("#problem-count") == "0")
    assert browser.text("#problems") == ""


def test_a_task_recorded_by_doing_it_is_saved_and_verifies(browser: Any, studio: dict[str, Any]) -> None:
    open_page(browser, studio)
    browser.click("#record-start")
    browser.wait(lambda: "recording: 1 step" in browser.text("#recording"))
    tap(browser, ADD)
    tap(browser, ADD)
    browser.wait(lambda: "recording: 3 step" in browser.text("#recording"))
    browser.click("#record-stop")
    browser.wait(lambda: browser.js("return document.querySelectorAll('input.offer').length") >= 2)
    offers = browser.js("return [...document.querySelectorAll('#offers li')].map(li => li.textContent)")
    count = next(i for i, text in enumerate(offers) if 'path: "count"' in text and "value: 2" in text)
    browser.js("document.querySelectorAll('input.offer')[arguments[0]].click()", count)
    browser.find("#task-id").send_keys("tally_add_two")
    browser.find("#task-instruction").send_keys("Add two to the tally")
    browser.click("#record-save")
    browser.wait(lambda: "saved" in browser.text("#desk-message"))
    saved = studio["app"] / "verifiers" / "tally" / "tally_add_two.ron"
    text = saved.read_text()
    assert 'Tap("Add one"),\n        Tap("Add one"),' in text and 'Equals(app: "com.example.tally", path: "count", value: 2)' in text
    browser.wait(lambda: browser.js("return document.getElementById('templates').value") == "tally_add_two")
    browser.click("#verify")
    browser.wait(lambda: '"ok": true' in browser.text("#verify-result"), timeout=60)
    assert browser.console_errors() == []
