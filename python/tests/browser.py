"""The one headless-Chromium helper every browser test uses: Debian's `chromium` driven through
its own `chromedriver` (the same package version, so no driver download), with the page's
console kept so a test can assert it logged no error."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
DRIVER = "chromedriver"


def _find(names: tuple[str, ...]) -> str:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError(f"none of {', '.join(names)} is installed: `make setup` installs Debian's chromium and chromium-driver")


class Browser:
    """A headless Chromium window of `width` x `height` CSS pixels."""

    def __init__(self, width: int = 1280, height: int = 1600) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = _find(CHROMIUM)
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", f"--window-size={width},{height}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path=_find((DRIVER,))), options=options)
        self.driver.set_page_load_timeout(60)

    def open(self, url_or_path: "str | Path") -> None:
        """Loads a URL (or a local file) and waits until the document and its scripts are done."""
        url = url_or_path.resolve().as_uri() if isinstance(url_or_path, Path) else url_or_path
        self.driver.get(url)
        self.wait(lambda: self.js("return document.readyState") == "complete")

    def wait(self, condition: Any, timeout: float = 10.0) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(self.driver, timeout).until(lambda _: condition())

    def js(self, script: str, *args: Any) -> Any:
        return self.driver.execute_script(script, *args)

    def find(self, css: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return str(self.find(css).text)

    def click(self, css: str) -> None:
        self.find(css).click()

    def press(self, key: str) -> None:
        """Sends a key (a `selenium.webdriver.common.keys.Keys` value) to the page."""
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(key).perform()

    def console_errors(self) -> list[str]:
        """Console errors and uncaught exceptions since the last call."""
        return [str(entry["message"]) for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def screenshot(self, css: "str | None" = None) -> np.ndarray:
        """The window (or one element) as an RGB array."""
        png = self.find(css).screenshot_as_png if css else self.driver.get_screenshot_as_png()
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))

    def close(self) -> None:
        self.driver.quit()


def pixels_of(image: np.ndarray, rgb: tuple[int, int, int], tolerance: int = 12) -> int:
    """How many pixels of `image` are within `tolerance` of the colour `rgb`."""
    return int((np.abs(image.astype(int) - np.array(rgb)).max(axis=2) <= tolerance).sum())
