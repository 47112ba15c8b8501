"""`python -m phoneworld.ray eval|rollouts --address ADDRESS ...`: the command line's `eval`
and `rollouts` on a Ray cluster, with the same options and the same output (what
`phoneworld eval --ray ADDRESS` hands over to).

Exit status: 0 done, 1 below `--min-success`, 2 a bad option, 130 interrupted (run the same
command again to resume).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Optional, Sequence

from .._core import PhoneWorldError
from ..report import run_folder, summary_line, write_report
from .runs import RunInterrupted, run_eval, run_rollouts


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m phoneworld.ray", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--address", default=None, help="the Ray cluster: auto, HOST:PORT or ray://HOST:PORT (default: a local one)")
    common.add_argument("--suite", default="phoneworld-v0")
    common.add_argument("--seeds", type=int, default=1)
    common.add_argument("--apps-dir", action="append", default=[], help="a folder of app bundles beside the bundled ones (repeatable)")
    common.add_argument("--suite-dir", action="append", default=[], help="a folder of task suites (repeatable)")
    common.add_argument("--appearance", default=None)
    common.add_argument("--interruptions", default=None, help="off, on, a count, or kind@step,...")
    common.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    common.add_argument("--chunk-size", type=int, default=8, help="episodes per Ray task")
    common.add_argument("--checkpoint", default=None, help="where finished chunks are kept for a resume")
    common.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    ev = commands.add_parser("eval", parents=[common], help="every template of a suite for N seeds with a built-in agent")
    ev.add_argument("--agent", default="oracle", help="oracle, noop, random or tree-only")
    ev.add_argument("--out-dir", default=None, help="write each episode's trajectory here")
    ev.add_argument("--min-success", type=float, default=None)
    ev.add_argument("--report", default=None, help="also write the run's HTML page here")
    ro = commands.add_parser("rollouts", parents=[common], help="verifier-confirmed trajectories played by the oracle")
    ro.add_argument("--out-dir", required=True)
    ro.add_argument("--detours", type=float, default=0.0)
    ro.add_argument("--image-format", default="jpeg")
    ro.add_argument("--image-size", default=None, help="WIDTHxHEIGHT")
    return parser


def _size(text: Optional[str]) -> Optional[tuple[int, int]]:
    if text is None:
        return None
    width, sep, height = text.lower().partition("x")
    if not sep or not width.strip().isdigit() or not height.strip().isdigit():
        raise PhoneWorldError(f"--image-size `{text}`: expected WIDTHxHEIGHT")
    return int(width), int(height)


def _appearances(text: Optional[str]) -> list[str]:
    return [name.strip() for name in (text or "").split(",") if name.strip()]


def _print_eval(report: dict[str, Any], json_out: bool) -> None:
    if json_out:
        return
    print(f"suite {report['suite']} ({report['seeds']} seeds), agent {report['agent']}")
    print(f"{'category':<12} {'episodes':>9} {'success':>9}")
    for category, v in report["by_category"].items():
        print(f"{category:<12} {v['episodes']:>9} {v['success_rate'] * 100:>8.1f}%")
    print(f"{'all':<12} {report['episodes']:>9} {report['success_rate'] * 100:>8.1f}%")
    for look, v in report.get("by_appearance", {}).items():
        print(f"{'appearance ' + look:<18} {v['episodes']:>9} {v['success_rate'] * 100:>8.1f}%")
    for f in report["failures"][:20]:
        print(f"  failed {f['template']} seed {f['seed']} at step {f['step']}: {f['reason']}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    common = {
        "address": args.address, "suite": args.suite, "seeds": args.seeds, "interruptions": args.interruptions,
        "apps_dirs": args.apps_dir, "suite_dirs": args.suite_dir, "chunk_size": args.chunk_size,
        "checkpoint": args.checkpoint, "progress": False if (args.no_progress or args.json) else None,
    }  # fmt: skip
    try:
        if args.command == "eval":
            with run_folder(args.out_dir, args.report) as out:
                text = run_eval(agent=args.agent, appearances=_appearances(args.appearance), out_dir=out, **common)
                report = json.loads(text)
                if args.json:
                    print(text)
                _print_eval(report, args.json)
                if args.report is not None and out is not None:
                    line = summary_line(args.report, write_report(out, args.report))
                    print(line, file=sys.stderr if args.json else sys.stdout)
            rates = [report["success_rate"], *(v["success_rate"] for v in report.get("by_appearance", {}).values())]
            return 1 if args.min_success is not None and min(rates) < args.min_success else 0
        text = run_rollouts(
            out_dir=args.out_dir, detours=args.detours, image_format=args.image_format, image_size=_size(args.image_size),
            appearance=args.appearance, **common,
        )  # fmt: skip
        if args.json:
            print(text)
        else:
            m = json.loads(text)
            print(f"{m['episodes']} of {m['attempted']} episodes kept ({m['with_detours']} with detours), {m['steps']} steps, in {args.out_dir}")
        return 0
    except RunInterrupted as err:
        print(err, file=sys.stderr)
        import ray

        ray.shutdown()
        return 130
    except PhoneWorldError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
