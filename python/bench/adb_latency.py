"""ADB latency of a served mock phone at 1080x2400: a tap plus `screencap -p` through adbutils
and a private adb server (raw PNG bytes, no decoding), `echo` through adbutils, and the PNG
encode (serve-adb's default level) and decode times apart. Run: `make bench-adb`.

adbutils (2.x) sleeps 10 ms after half-closing every connection it opens
(`AdbConnection.close`), and `AdbDevice.shell` by serial opens two connections per call (a
`host:version` probe, then the shell), so each `d.shell(...)` carries 20 ms of the client's own
sleeps. The rows marked "adbutils as shipped" include them; the "round trip" rows use the same
adbutils calls on a device addressed by transport id with `stream=True`, timed until the output
is in hand, with the connection closed (and the client's sleep taken) after the clock stops.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from typing import Any, Callable

import adbutils  # type: ignore[import-untyped]
from adbutils import AdbDevice
from PIL import Image

from phoneworld import Phone, PrivateAdbServer

#: The Settings row that opens a subpage: tapping it changes the screen, so every screencap
#: encodes a fresh frame instead of reusing the cached PNG.
ROW = "Network & internet"


def center(phone: Phone, label: str) -> tuple[int, int]:
    for e in phone.ui_elements():
        if label in (e["text"], e["content_description"]):
            b = e["bbox_pixels"]
            return int((b["x_min"] + b["x_max"]) / 2), int((b["y_min"] + b["y_max"]) / 2)
    raise SystemExit(f"no element {label!r} on the screen")


def timed(runs: int, setup: Callable[[], Any], body: Callable[[], Any]) -> list[float]:
    """Milliseconds of `body` per run; `setup` runs untimed before each."""
    out = []
    for _ in range(runs):
        setup()
        start = time.perf_counter()
        body()
        out.append((time.perf_counter() - start) * 1000.0)
    return out


def stats(ms: list[float]) -> tuple[float, float]:
    ordered = sorted(ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()

    phone = Phone(seed=0, width=1080, height=2400)
    rows: list[tuple[str, list[float], str]] = []
    with PrivateAdbServer() as adb, phone.serve_adb() as server:
        serial = adb.connect(server.address)
        client = adbutils.AdbClient(host="127.0.0.1", port=adb.port, socket_timeout=10)
        device = client.device(serial)
        info = next(i for i in client.list(extended=True) if i.serial == serial)
        by_id = AdbDevice(client, transport_id=int(info.tags["transport_id"]))

        phone.step({"type": "open_app", "app": "Settings"})
        x, y = center(phone, ROW)
        settings = phone.foreground()

        def back_to_settings() -> None:
            # Untimed, through the Python API on the same device: back on the Settings list,
            # so the next tap changes the screen and screencap encodes a fresh frame.
            if phone.foreground() != settings:
                phone.step({"type": "key", "key": "back"})
            if phone.foreground() != settings:
                raise SystemExit("Back did not return to the Settings list")

        sizes: list[int] = []

        def shipped_tap_and_screencap() -> None:
            device.shell(["input", "tap", str(x), str(y)])
            sizes.append(len(device.shell(["screencap", "-p"], encoding=None)))

        def round_trip(command: list[str]) -> bytes:
            conn = by_id.shell(command, stream=True)
            data = conn.read_until_close(encoding=None)
            closing.append(conn)
            return bytes(data)

        closing: list[Any] = []

        def close_all() -> None:
            while closing:
                closing.pop().close()

        def round_trip_tap_and_screencap() -> None:
            round_trip(["input", "tap", str(x), str(y)])
            sizes.append(len(round_trip(["screencap", "-p"])))

        def reset_and_close() -> None:
            close_all()
            back_to_settings()

        rows.append(("tap + screencap -p, adbutils as shipped", timed(args.runs, back_to_settings, shipped_tap_and_screencap), "ms"))
        rows.append(("tap + screencap -p, adbutils round trip", timed(args.runs, reset_and_close, round_trip_tap_and_screencap), "ms"))
        close_all()
        rows.append(("echo hi, adbutils as shipped", timed(args.runs, lambda: None, lambda: device.shell("echo hi")), "ms"))
        rows.append(("echo hi, adbutils round trip", timed(args.runs, close_all, lambda: round_trip(["echo", "hi"])), "ms"))
        close_all()
        back_to_settings()
        pngs: list[bytes] = []

        def encode() -> None:
            pngs.append(phone.screenshot_png(compression="fast"))

        rows.append(("PNG encode, serve-adb default (fast)", timed(args.runs, lambda: None, encode), "ms"))
        png = pngs[-1]
        rows.append(("PNG decode (Pillow)", timed(args.runs, lambda: None, lambda: Image.open(io.BytesIO(png)).load()), "ms"))
    print(f"ADB latency, served Phone at 1080x2400, {args.runs} runs each (PNG {sum(sizes) // max(1, len(sizes)) // 1024} KiB on average)")
    print(f"{'what':<44} {'median':>9} {'p90':>9}")
    for name, ms, unit in rows:
        median, p90 = stats(ms)
        print(f"{name:<44} {median:>6.2f} {unit} {p90:>6.2f} {unit}")
    print("adbutils as shipped sleeps 10 ms per closed connection (two per shell call); round trips stop the clock when the output is in hand.")


if __name__ == "__main__":
    main()
