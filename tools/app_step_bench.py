#!/usr/bin/env python3
"""Step cost of the bundled apps in two app trees, measured side by side with one binary.

    git archive <rev> apps layouts lib verifiers assets | tar -x -C /tmp/before
    python3 tools/app_step_bench.py /tmp/before . [--steps 1000] [--rounds 3]

For every app: a seeded monkey walk and an explorer walk of `--steps` steps (the walk observes
the screen at every step, so compose, views and layout are in it), timed under each tree
(`PHONEWORLD_ROOT`), the trees alternating, best of `--rounds`, pinned to one core when
`taskset` exists. Prints microseconds per step and the ratio after/before per walk and overall.
Build the CLI first: `cargo build --release -p phoneworld-cli`.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(__file__).resolve().parent.parent / "target" / "release" / "phoneworld"


def walk_seconds(root: Path, app: str, steps: int, explore: bool) -> float:
    command = [str(BIN), "monkey", "--app", app, "--seed", "3", "--steps", str(steps), "--json"]
    if explore:
        command.append("--explore")
    if shutil.which("taskset"):
        command = ["taskset", "-c", "1", *command]
    env = dict(os.environ, PHONEWORLD_ROOT=str(root.resolve()))
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="app tree measured first (apps/, layouts/, lib/, assets/)")
    parser.add_argument("after", type=Path, help="app tree compared with it")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not BIN.exists():
        sys.exit(f"{BIN} is missing: run `cargo build --release -p phoneworld-cli` first")
    listing = subprocess.run([str(BIN), "apps", "--json"], check=True, capture_output=True, env=dict(os.environ, PHONEWORLD_ROOT=str(args.after.resolve())))
    apps = [a["label"] for a in json.loads(listing.stdout)["apps"]]
    totals = {"before": 0.0, "after": 0.0}
    for app in apps:
        for explore in (False, True):
            best = {"before": float("inf"), "after": float("inf")}
            for _ in range(args.rounds):
                for name, root in (("before", args.before), ("after", args.after)):
                    best[name] = min(best[name], walk_seconds(root, app, args.steps, explore))
            for name in totals:
                totals[name] += best[name]
            per_step = {name: best[name] * 1e6 / args.steps for name in best}
            print(
                f"{app:12s} {'explore' if explore else 'monkey':8s} before {per_step['before']:7.0f} us/step  "
                f"after {per_step['after']:7.0f} us/step  ratio {best['after'] / best['before']:5.2f}"
            )
    walks = 2 * len(apps)
    print(
        f"all {walks} walks: before {totals['before'] * 1e6 / args.steps / walks:.0f} us/step, "
        f"after {totals['after'] * 1e6 / args.steps / walks:.0f} us/step, ratio {totals['after'] / totals['before']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
