"""Write a synthetic DroidBot trace of many events, to measure reconstruction speed.

    python3 tools/big_trace.py OUT_DIR [--events 100000] [--screens 30]

Thirty screens of forty buttons each; every event taps a button and lands on the screen that
button leads to (the same one every time), chosen by a seeded generator.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

PACKAGE = "org.example.big"


def views(screen: int) -> list[dict]:
    root = {"temp_id": 0, "parent": -1, "children": [], "class": "android.widget.FrameLayout", "resource_id": None,
            "text": None, "content_description": None, "bounds": [[0, 0], [1080, 2400]], "clickable": False,
            "visible": True, "enabled": True, "package": PACKAGE}
    out = [root]
    for j in range(40):
        out.append({"temp_id": j + 1, "parent": 0, "children": [], "class": "android.widget.Button",
                    "resource_id": f"{PACKAGE}:id/s{screen}_b{j}", "text": f"Screen {screen} item {j}",
                    "content_description": None, "bounds": [[0, 60 + j * 55], [1080, 110 + j * 55]], "clickable": True,
                    "visible": True, "enabled": True, "package": PACKAGE})
        root["children"].append(j + 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--screens", type=int, default=30)
    args = parser.parse_args()
    (args.out / "states").mkdir(parents=True, exist_ok=True)
    (args.out / "events").mkdir(parents=True, exist_ok=True)
    for k in range(args.screens):
        state = {"tag": f"s{k:03d}", "state_str": f"state{k:03d}", "foreground_activity": f"{PACKAGE}/.A{k % 5}", "views": views(k)}
        (args.out / "states" / f"state_s{k:03d}.json").write_text(json.dumps(state))
    rng = random.Random(1)
    current = 0
    for e in range(args.events):
        j = rng.randrange(40)
        nxt = (current * 7 + j) % args.screens
        view = {"class": "android.widget.Button", "resource_id": f"{PACKAGE}:id/s{current}_b{j}",
                "text": f"Screen {current} item {j}", "bounds": [[0, 60 + j * 55], [1080, 110 + j * 55]]}
        event = {"tag": f"e{e:06d}", "start_state": f"state{current:03d}", "stop_state": f"state{nxt:03d}",
                 "event": {"event_type": "touch", "view": view}}
        (args.out / "events" / f"event_e{e:06d}.json").write_text(json.dumps(event))
        current = nxt


if __name__ == "__main__":
    main()
