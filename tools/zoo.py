"""Rebuild every trace under a folder into out/zoo/, check and verify each app, and write one
fidelity table (Markdown and JSON, per app and overall) and a contact sheet of original vs
rebuilt screens.

    python3 tools/zoo.py TRACES_DIR [--out out/zoo] [--bin target/release/phoneworld] [--seeds 20]

A trace is any folder the importers recognise (DroidBot, DroidTask, LlamaTouch, Rico,
PhoneWorld trajectories); a folder holding one is not searched further.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

try:  # numpy and Pillow, from the dev requirements; without them the zoo goes on without it.
    import visual_gap
except ImportError:
    visual_gap = None  # type: ignore[assignment]

MARKERS = ("events", "eventStructs.txt", "gestures.json", "steps.jsonl")


def trace_folders(root: Path) -> list[Path]:
    """Folders that hold a trace, sorted; a trace's own sub-folders are not searched."""
    found: list[Path] = []
    for folder in sorted(p for p in [root, *root.rglob("*")] if p.is_dir()):
        if any(folder.is_relative_to(f) for f in found):
            continue
        if any((folder / m).exists() for m in MARKERS):
            found.append(folder)
    return found


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def rebuild(binary: str, trace: Path, out: Path, seeds: int) -> dict:
    row: dict = {"trace": str(trace), "out": str(out)}
    done = run([binary, "reconstruct", str(trace), "--out", str(out), "--force", "--json"])
    if done.returncode != 0:
        row["error"] = (done.stderr or done.stdout).strip().splitlines()[-1:]
        return row
    summary = json.loads(done.stdout)
    fidelity = summary["fidelity"]
    tasks = summary["tasks"]
    demos = [t for t in tasks if t["kind"] == "demonstration"]
    demos_left = [t for t in summary["tasks_left_out"] if t.get("kind", "demonstration") == "demonstration"]
    row.update(
        app=summary["app"],
        screens=summary["screen_count"],
        judged=fidelity["judged"],
        transition_accuracy=fidelity["transition_accuracy"],
        baseline=fidelity["baseline"]["transition_accuracy"],
        element_recall=fidelity["element_recall"],
        visual_similarity=fidelity["visual_similarity"],
        memory=fidelity["memory"],
        tasks=len(tasks),
        demonstrations=len(demos),
        demonstrations_in_traces=len(demos) + len(demos_left),
        split=summary.get("split"),
    )
    check = run([binary, "check", str(out)])
    row["check"] = "ok" if check.returncode == 0 else (check.stdout + check.stderr).strip().splitlines()[-1:]
    verify = run(
        [binary, "verify", "--apps-dir", str(out), "--suite-dir", str(out / "verifiers"), "--suite", summary["suite"], "--seeds", str(seeds)]
    )
    row["verify"] = "ok" if verify.returncode == 0 else (verify.stdout + verify.stderr).strip().splitlines()[-1:]
    if fidelity["visual_similarity"] is not None:
        # The pairs visual similarity scored, for the contact sheet (and for anyone to check).
        run([binary, "replay", str(trace), "--app", str(out), "--out-dir", str(out / "frames")])
        row["frames"] = str(out / "frames")
    return row


def contact_sheet(rows: list[dict], path: Path, per_trace: int = 5, thumb: tuple[int, int] = (135, 300)) -> bool:
    """One row per trace with screenshots: up to `per_trace` screens, each the original above
    the rebuilt frame. Needs Pillow (a dependency of the dev requirements); False without it."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        return False
    strips = []
    for r in rows:
        pairs = sorted(Path(r["frames"]).glob("trace_*/screen_*.original.png"))[:per_trace] if r.get("frames") else []
        if pairs:
            strips.append((r["name"], [(p, p.with_name(p.name.replace(".original.", ".rebuilt."))) for p in pairs]))
    if not strips:
        return False
    w, h = thumb
    label_h = 18
    sheet = Image.new("RGB", (w * per_trace, len(strips) * (2 * h + label_h)), "white")
    draw = ImageDraw.Draw(sheet)
    for i, (name, pairs) in enumerate(strips):
        top = i * (2 * h + label_h)
        draw.text((4, top + 2), name, fill="black")
        for j, (original, rebuilt) in enumerate(pairs):
            for k, image in enumerate((original, rebuilt)):
                with Image.open(image) as img:
                    sheet.paste(img.convert("RGB").resize(thumb), (j * w, top + label_h + k * h))
    sheet.save(path)
    return True


def pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.1f}%"


def remembered(memory: dict) -> str:
    """The memory measure as a share and its counts: `75.0% (3/4)`, or n/a with no changed revisit."""
    if not memory["changed_revisits"]:
        return "n/a"
    return f"{pct(memory['reproduced'] / memory['changed_revisits'])} ({memory['reproduced']}/{memory['changed_revisits']})"


def mean(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return sum(values) / len(values) if values else None


def markdown(rows: list[dict], overall: dict) -> str:
    lines = [
        "# Reconstruction zoo",
        "",
        "Every trace rebuilt with `phoneworld reconstruct`, its app checked and its tasks verified.",
        "Transition accuracy is self-replay; the baseline is an app where nothing ever changes.",
        "Memory: of the revisits where a checked value, a field or a typed text shows differently, the share the rebuilt app reproduces.",
        "",
        "| trace | screens | judged | transition accuracy | baseline | element recall | visual similarity | memory | tasks | demonstrations | check | verify |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | failed: {' '.join(r['error'])} | | | | | | | | | | |")
            continue
        lines.append(
            f"| {r['name']} | {r['screens']} | {r['judged']} | {pct(r['transition_accuracy'])} | {pct(r['baseline'])} | "
            f"{pct(r['element_recall'])} | {pct(r['visual_similarity'])} | {remembered(r['memory'])} | {r['tasks']} | "
            f"{r['demonstrations']}/{r['demonstrations_in_traces']} | {r['check'] if r['check'] == 'ok' else 'problems'} | "
            f"{r['verify'] if r['verify'] == 'ok' else 'problems'} |"
        )
    split_rows = [r for r in rows if r.get("split")]
    lines_split = [
        "",
        "Split measure: every other demonstration (or trace) held back, the app rebuilt without it, and it replayed there.",
        "",
        "| trace | held back | transition accuracy | baseline | own verifier passes |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in split_rows:
        a = r["split"]["aggregate"]
        lines_split.append(
            f"| {r['name']} | {r['split']['held_back']} | {pct(a['transition_accuracy'])} | {pct(a['baseline'])} | {a['verified']} of {a['demonstrations']} |"
        )
    lines.append(
        f"| **mean** | | | **{pct(overall['transition_accuracy'])}** | {pct(overall['baseline'])} | "
        f"{pct(overall['element_recall'])} | {pct(overall['visual_similarity'])} | {remembered(overall['memory'])} | {overall['tasks']} | "
        f"{overall['demonstrations']}/{overall['demonstrations_in_traces']} | | |"
    )
    lines += ["", f"Traces at or below their baseline: {overall['at_or_below_baseline'] or 'none'}."]
    if split_rows:
        s = overall["split"]
        lines += lines_split
        lines.append(
            f"| **all** | {s['held_back']} | **{pct(s['transition_accuracy'])}** | {pct(s['baseline'])} | {s['verified']} of {s['demonstrations']} |"
        )
    lines.append("")
    return "\n".join(lines)


def progress_bar(total: int):  # type: ignore[no-untyped-def]
    """The package's progress bar on a terminal, when the package is built; else None (a line
    per trace)."""
    try:
        from phoneworld.progress import Progress
    except ImportError:
        return None
    bar = Progress("zoo", total)
    return bar if bar.bar is not None else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", type=Path)
    parser.add_argument("--out", type=Path, default=Path("out/zoo"))
    parser.add_argument("--bin", default="target/release/phoneworld")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    if not args.traces.is_dir():
        print(f"{args.traces}: not a folder of traces", file=sys.stderr)
        return 2
    rows = []
    folders = trace_folders(args.traces)
    bar = progress_bar(len(folders))
    for trace in folders:
        name = str(trace.relative_to(args.traces)) if trace != args.traces else trace.name
        name = name.replace("/", "_") or trace.name
        if bar is None:
            print(f"rebuilding {name} ...", file=sys.stderr, flush=True)
        row = rebuild(args.bin, trace, args.out / name, args.seeds)
        row["name"] = name
        rows.append(row)
        if bar is not None:
            # Per kind of trace (its folder's first word), rebuilt and verified or not.
            bar.done([{"category": name.split("_")[0].split("-")[0], "success": row.get("verify") == "ok"}])
    if bar is not None:
        bar.close()
    built = [r for r in rows if "error" not in r]
    overall = {k: mean(built, k) for k in ("transition_accuracy", "baseline", "element_recall", "visual_similarity")}
    for k in ("tasks", "demonstrations", "demonstrations_in_traces"):
        overall[k] = sum(r[k] for r in built)
    # Pooled over every changed revisit of every trace (a trace with one revisit weighs one).
    overall["memory"] = {k: sum(r["memory"][k] for r in built) for k in ("changed_revisits", "reproduced")}
    overall["failed"] = [r["name"] for r in rows if "error" in r]
    splits = [r["split"]["aggregate"] for r in built if r.get("split")]
    judged = sum(a["judged"] for a in splits)
    overall["split"] = {
        "held_back": sum(r["split"]["held_back"] for r in built if r.get("split")),
        "transition_accuracy": sum(a["transition_accuracy"] * a["judged"] for a in splits) / judged if judged else None,
        "baseline": sum(a["baseline"] * a["judged"] for a in splits) / judged if judged else None,
        "verified": sum(a["verified"] for a in splits),
        "demonstrations": sum(a["demonstrations"] for a in splits),
    }
    overall["at_or_below_baseline"] = [r["name"] for r in built if r["transition_accuracy"] <= r["baseline"]]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "fidelity.json").write_text(json.dumps({"overall": overall, "traces": rows}, indent=2))
    (args.out / "fidelity.md").write_text(markdown(rows, overall))
    # Where the visual similarity of every judged screen is lost (tools/visual_gap.py).
    gap = visual_gap.visual_gap([Path(r["frames"]) for r in built if r.get("frames")]) if visual_gap else None
    if gap is not None:
        overall["visual_gap"] = gap
        (args.out / "fidelity.json").write_text(json.dumps({"overall": overall, "traces": rows}, indent=2))
        with (args.out / "fidelity.md").open("a") as md:
            md.write("\n" + visual_gap.markdown(gap))
    if contact_sheet(built, args.out / "contact_sheet.png"):
        print(f"contact sheet: {args.out / 'contact_sheet.png'} (per trace: originals above, rebuilt below)", file=sys.stderr)
    print((args.out / "fidelity.md").read_text())
    return 0 if not overall["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
