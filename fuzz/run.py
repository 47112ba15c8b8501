#!/usr/bin/env python3
"""Runs PhoneWorld's fuzz targets for a given time each and reports what they did.

The Rust targets (`TARGETS` of `phoneworld-fuzz`, asked from the harness binary with `--list`) run
under AFL++ (`cargo afl fuzz`, the persistent-mode harness in fuzz/afl); the Python targets
(python/fuzz/fuzz_actions.py) under atheris. Each runs `--seconds` from its saved corpus, `--jobs` at a
time. The report (a table, and out/fuzz/report.json) gives per target the executions, executions
per second, coverage, corpus size, and the crashes and hangs found. Every crashing or hanging input
is copied into the target's corpus folder (`crash-<hash>`, `hang-<hash>`), where the tests replay it
(`cargo test -p phoneworld-fuzz` for Rust targets, pytest's test_fuzz_corpus.py for Python ones).
With `--save-corpus` the inputs that found new coverage are minimised and the small ones merged into
the corpus folders as `cov-<hash>`.

    python3 fuzz/run.py --seconds 300 --jobs 2
    python3 fuzz/run.py --seconds 10 --targets expression,python_actions
    python3 fuzz/run.py --list

Standard library only. `make fuzz` installs cargo-afl, builds the AFL++ runtime and atheris first.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
AFL_PACKAGE = ROOT / "fuzz" / "afl" / "Cargo.toml"
AFL_TARGET_DIR = ROOT / "target" / "afl"
BINARY = AFL_TARGET_DIR / "release" / "phoneworld-fuzz-afl"
RUST_CORPUS = ROOT / "fuzz" / "corpus"
DICTS = ROOT / "fuzz" / "afl" / "dict"
PY_HARNESS = ROOT / "python" / "fuzz" / "fuzz_actions.py"
PY_CORPUS = ROOT / "python" / "fuzz" / "corpus"
PY_SEEDS = PY_CORPUS / "seeds"
MAX_SAVED_FILE = 64 * 1024

# AFL++ unattended, as root, on a machine nobody configured for it: no curses screen, no CPU
# frequency or core-dump checks, no pinning to a core another job may hold, seeds that crash or
# time out are skipped rather than fatal.
AFL_ENV = {
    "AFL_NO_UI": "1",
    "AFL_SKIP_CPUFREQ": "1",
    "AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES": "1",
    "AFL_NO_AFFINITY": "1",
    "AFL_IGNORE_SEED_PROBLEMS": "1",
    "AFL_NO_CRASH_README": "1",
    "AFL_FAST_CAL": "1",
}


@dataclass
class Job:
    name: str
    kind: str  # "afl" or "atheris"
    out: Path
    corpus: Path
    proc: "Optional[subprocess.Popen[bytes]]" = None
    log: Optional[Any] = None
    started: float = 0.0
    result: Dict[str, Any] = field(default_factory=dict)


def spawn(cmd: List[str], env: Dict[str, str], log: Any) -> "subprocess.Popen[bytes]":
    """A fuzzer in a session of its own (so it and its children can be stopped together)."""
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)


def say(text: str) -> None:
    print(text, flush=True)


def sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


def python_exe(arg: Optional[str]) -> str:
    if arg:
        return arg
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


# --- targets and build ---------------------------------------------------------------------------


def build() -> None:
    env = dict(os.environ, CARGO_TARGET_DIR=str(AFL_TARGET_DIR))
    cmd = ["cargo", "afl", "build", "--release", "--manifest-path", str(AFL_PACKAGE)]
    say("building the AFL++ harness: " + " ".join(cmd))
    # From the repository root, so .cargo/config.toml (the Lua hash seed in CFLAGS) applies.
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)


def map_size() -> str:
    """The coverage map the harness needs (AFL++ wants it said when it is large)."""
    done = subprocess.run([str(BINARY), "--list"], capture_output=True, text=True, env=dict(os.environ, AFL_DUMP_MAP_SIZE="1"))
    size = done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""
    return size if size.isdigit() else "262144"


def rust_targets() -> List[str]:
    out = subprocess.run([str(BINARY), "--list"], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def python_targets(python: str) -> List[str]:
    done = subprocess.run([python, str(PY_HARNESS), "--list"], capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        say(f"python targets unavailable ({python}: {done.stderr.strip()[-300:]})")
        return []
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


# --- starting and reading jobs -------------------------------------------------------------------


def start_afl(job: Job, seconds: int, timeout_ms: int, map_bytes: str) -> None:
    job.out.mkdir(parents=True)
    cmd = ["cargo", "afl", "fuzz", "-i", str(job.corpus), "-o", str(job.out), "-V", str(seconds), "-t", f"{timeout_ms}+"]
    dictionary = DICTS / f"{job.name}.dict"
    if dictionary.exists():
        cmd += ["-x", str(dictionary)]
    cmd += ["--", str(BINARY), job.name]
    env = dict(os.environ, **AFL_ENV, AFL_MAP_SIZE=map_bytes)
    job.log = open(job.out / "fuzz.log", "w")
    job.proc = spawn(cmd, env, job.log)


def start_atheris(job: Job, seconds: int, timeout_ms: int, python: str) -> None:
    queue, artifacts = job.out / "queue", job.out / "artifacts"
    queue.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(exist_ok=True)
    dirs = [str(queue), str(PY_SEEDS)] + ([str(job.corpus)] if job.corpus.is_dir() else [])
    cmd = [
        python,
        str(PY_HARNESS),
        job.name,
        # Fork mode: the fuzzing runs in child processes, so a finding is recorded and fuzzing goes
        # on; libFuzzer starts the children from this command line.
        "--argv0",
        f"{python} {PY_HARNESS} {job.name}",
        "-fork=1",
        "-ignore_crashes=1",
        "-ignore_timeouts=1",
        "-ignore_ooms=1",
        f"-max_total_time={seconds}",
        f"-timeout={max(1, timeout_ms // 1000)}",
        "-rss_limit_mb=4096",
        f"-max_len={MAX_SAVED_FILE}",
        f"-artifact_prefix={artifacts}/",
    ] + dirs
    job.log = open(job.out / "fuzz.log", "w")
    job.proc = spawn(cmd, dict(os.environ), job.log)


def run_hostile(job: Job, python: str, folder: Path, timeout_s: int) -> List[Dict[str, str]]:
    """The megabyte-sized hostile inputs through a Python target, once each, outside the fuzzer
    (which keeps its inputs under 64 KiB): a finding or a file still running after `timeout_s`."""
    remaining = sorted(str(p) for p in folder.iterdir())
    found: List[Dict[str, str]] = []
    while remaining:
        cmd = [python, str(PY_HARNESS), "--replay", f"--timeout={timeout_s}", job.name] + remaining
        try:
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s * len(remaining) + 120)
            lines = done.stdout.splitlines()
        except subprocess.TimeoutExpired as err:
            out = err.stdout or b""
            lines = (out.decode(errors="replace") if isinstance(out, bytes) else out).splitlines()
        answered, pending = set(), None
        for line in lines:
            if line.startswith("run "):
                pending = line[4:]
            elif line.startswith("ok "):
                answered.add(line[3:].rsplit(" ", 1)[0])
                pending = None
            elif line.startswith("finding "):
                path, _, message = line[8:].partition(": ")
                answered.add(path)
                found.append({"kind": "crash", "file": path, "message": message[:500]})
                pending = None
        if pending is not None:
            answered.add(pending)
            found.append({"kind": "hang", "file": pending, "message": f"still running after {timeout_s} s"})
        left = [f for f in remaining if f not in answered]
        if len(left) == len(remaining):
            found.append({"kind": "crash", "file": left[0], "message": "the replay ended without an answer: " + " ".join(lines[-2:])})
            left = left[1:]
        remaining = left
    for f in found:
        f["file"] = str(Path(f["file"]).relative_to(ROOT)) if f["file"].startswith(str(ROOT)) else f["file"]
    return found


def read_afl_stats(job: Job) -> Dict[str, Any]:
    stats: Dict[str, str] = {}
    path = job.out / "default" / "fuzzer_stats"
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            stats[key.strip()] = value.strip()

    def num(key: str) -> float:
        try:
            return float(stats.get(key, "0").rstrip("%"))
        except ValueError:
            return 0.0

    return {
        "execs_done": int(num("execs_done")),
        "execs_per_sec": round(num("execs_per_sec"), 1),
        "coverage": stats.get("bitmap_cvg", "?"),
        "edges_found": int(num("edges_found")),
        "total_edges": int(num("total_edges")),
        "corpus_count": int(num("corpus_count")),
        "saved_crashes": int(num("saved_crashes")),
        "saved_hangs": int(num("saved_hangs")),
        "stability": stats.get("stability", "?"),
        "run_time": int(num("run_time")),
        "stats_found": bool(stats),
    }


# libFuzzer's status lines: in-process "#N <event> cov: C ft: F corp: K/...", and fork mode's
# "#N: cov: C ft: F corp: K exec/s E oom/timeout/crash: O/T/X time: Ss job: J".
STATUS_LINE = re.compile(r"^#(\d+):?\s+(?:\S+\s+)?cov: (\d+) ft: (\d+) corp: (\d+)")


def read_atheris_log(job: Job) -> Dict[str, Any]:
    text = (job.out / "fuzz.log").read_text(errors="replace")
    execs, cov, ft, corp = 0, 0, 0, 0
    for line in text.splitlines():
        m = STATUS_LINE.match(line)
        if m:
            execs, cov, ft, corp = (int(g) for g in m.groups())
    elapsed = max(job.result.get("wall_time", 1.0), 1.0)
    artifacts = sorted((job.out / "artifacts").glob("*"))
    return {
        "execs_done": execs,
        "execs_per_sec": round(execs / elapsed, 1),
        "coverage": f"cov {cov}",
        "edges_found": cov,
        "features": ft,
        "corpus_count": corp,
        "saved_crashes": sum(1 for a in artifacts if a.name.startswith(("crash-", "oom-", "leak-"))),
        "saved_hangs": sum(1 for a in artifacts if a.name.startswith("timeout-")),
        "stability": "-",
        "run_time": int(elapsed),
        "stats_found": cov > 0 or execs > 0,
    }


# --- findings ------------------------------------------------------------------------------------


def keep(found: Path, folder: Path, prefix: str, also: List[Path]) -> Tuple[Path, bool]:
    """Copies a finding into a corpus folder as <prefix>-<hash>; False (and the file it is) when
    the folder, or one of `also` (the shared Python seeds), has it already."""
    data = found.read_bytes()
    target = folder / f"{prefix}-{sha(data)}"
    if target.exists():
        return target, False
    for known in [folder] + also:
        for p in known.iterdir() if known.is_dir() else []:
            if p.is_file() and p.stat().st_size == len(data) and p.read_bytes() == data:
                return p, False
    folder.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target, True


def afl_findings(job: Job) -> List[Tuple[str, Path]]:
    found = []
    for kind, sub in (("crash", "crashes"), ("hang", "hangs")):
        for path in sorted((job.out / "default" / sub).glob("id:*")):
            found.append((kind, path))
    return found


def atheris_findings(job: Job) -> List[Tuple[str, Path]]:
    found = []
    for path in sorted((job.out / "artifacts").glob("*")):
        if path.name.startswith("timeout-"):
            found.append(("hang", path))
        elif not path.name.startswith("slow-unit-"):
            found.append(("crash", path))
    return found


def panic_message(job: Job, path: Path, python: str) -> str:
    """Runs the input once outside the fuzzer and returns what it said (the panic, the exception)."""
    if job.kind == "afl":
        cmd, data = [str(BINARY), job.name], path.read_bytes()
    else:
        cmd, data = [python, str(PY_HARNESS), "--replay", "--timeout=50", job.name, str(path)], b""
    try:
        done = subprocess.run(cmd, cwd=ROOT, input=data, capture_output=True, timeout=60)
        text = (done.stdout + done.stderr).decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "still running after 60 s outside the fuzzer"
    lines = [line for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if "panicked at" in line:
            return " ".join(lines[i : i + 2])[:500]
    if job.kind == "atheris":
        for line in lines:
            if line.startswith("finding "):
                return line.partition(": ")[2][:500]
            if line.startswith("ok "):
                return f"no finding when run again outside the fuzzer ({line.rsplit(' ', 1)[-1]} s)"
        return " ".join(lines[-2:])[:500] if lines else f"exit {done.returncode}, nothing printed"
    return (lines[-1][:500] if lines else "") or f"exit {done.returncode}, no panic message (no longer crashes outside AFL++?)"


def collect_findings(job: Job, python: str) -> None:
    found = afl_findings(job) if job.kind == "afl" else atheris_findings(job)
    folder = job.corpus
    new, messages = [], []
    for kind, path in found:
        kept, is_new = keep(path, folder, kind, [PY_SEEDS] if job.kind == "atheris" else [])
        rel = str(kept.relative_to(ROOT))
        if is_new:
            new.append(rel)
        if kind == "crash":
            messages.append({"file": rel, "message": panic_message(job, kept, python)})
        else:
            messages.append({"file": rel, "message": "ran longer than the timeout"})
    for f in job.result.get("hostile", []):
        # Generated, a megabyte each: reported, not kept (`fuzz_actions.py --write-hostile` makes them).
        new.append(f["file"])
        messages.append({"file": f["file"], "message": f"{f['kind']}: {f['message']}"})
        job.result["saved_crashes" if f["kind"] == "crash" else "saved_hangs"] += 1
    job.result["new_findings"] = new
    job.result["findings"] = messages


# --- saving the corpus ---------------------------------------------------------------------------


def select_new(candidates: List[Path], folder: Path, budget_kb: int, max_files: int) -> List[Path]:
    """Small new inputs first, until the folder holds budget_kb or max_files saved ones."""
    folder.mkdir(parents=True, exist_ok=True)
    existing = {p.read_bytes() for p in folder.iterdir() if p.is_file()}
    saved = [p for p in folder.glob("cov-*")]
    used = sum(p.stat().st_size for p in saved)
    count = len(saved)
    chosen = []
    for path in sorted(candidates, key=lambda p: (p.stat().st_size, p.name)):
        data = path.read_bytes()
        if len(data) > MAX_SAVED_FILE or data in existing:
            continue
        if used + len(data) > budget_kb * 1024 or count >= max_files:
            break
        target = folder / f"cov-{sha(data)}"
        target.write_bytes(data)
        existing.add(data)
        chosen.append(target)
        used += len(data)
        count += 1
    return chosen


def save_afl_corpus(job: Job, budget_kb: int, max_files: int, map_bytes: str) -> List[Path]:
    queue = job.out / "default" / "queue"
    if not queue.is_dir():
        return []
    cmin = job.out / "cmin"
    env = dict(os.environ, **AFL_ENV, AFL_MAP_SIZE=map_bytes)
    cmd = ["cargo", "afl", "cmin", "-i", str(queue), "-o", str(cmin), "-t", "5000", "--", str(BINARY), job.name]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not cmin.is_dir():
        say(f"  {job.name}: cmin failed ({done.stderr.strip()[-300:]}); keeping the queue as it is")
        candidates = [p for p in queue.glob("id:*") if "orig:" not in p.name]
    else:
        candidates = [p for p in cmin.iterdir() if p.is_file() and "orig:" not in p.name]
    return select_new(candidates, job.corpus, budget_kb, max_files)


def save_atheris_corpus(job: Job, python: str, budget_kb: int, max_files: int) -> List[Path]:
    """libFuzzer's merge: the queue's inputs that add coverage to what is saved already."""
    queue = job.out / "queue"
    with tempfile.TemporaryDirectory() as tmp:
        merged = Path(tmp) / "merged"
        merged.mkdir()
        known = {}
        for folder in (PY_SEEDS, job.corpus):
            if folder.is_dir():
                for p in folder.iterdir():
                    if p.is_file():
                        shutil.copy(p, merged / p.name)
                        known[p.name] = True
        # libFuzzer runs argv[0] again for the merge: give it the interpreter and the script.
        argv0 = f"{python} {PY_HARNESS} {job.name}"
        flags = ["-merge=1", f"-max_len={MAX_SAVED_FILE}", f"-artifact_prefix={tmp}/"]
        cmd = [python, str(PY_HARNESS), job.name, "--argv0", argv0] + flags + [str(merged), str(queue)]
        if not queue.is_dir():
            return []
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            say(f"  {job.name}: merge failed ({done.stderr.strip()[-300:]}); nothing saved")
            return []
        candidates = [p for p in merged.iterdir() if p.name not in known]
        return select_new(candidates, job.corpus, budget_kb, max_files)


# --- the run -------------------------------------------------------------------------------------


def finish(job: Job, python: str) -> None:
    job.result["wall_time"] = round(time.time() - job.started, 1)
    if job.log:
        job.log.close()
    stats = read_afl_stats(job) if job.kind == "afl" else read_atheris_log(job)
    job.result.update(stats)
    rc = job.proc.returncode if job.proc else None
    job.result["exit_code"] = rc
    collect_findings(job, python)
    if not stats["stats_found"]:
        tail = (job.out / "fuzz.log").read_text(errors="replace").strip().splitlines()[-8:]
        job.result["status"] = "failed to run: " + " | ".join(tail)[-600:]
    elif job.result["new_findings"]:
        job.result["status"] = "new findings"
    elif job.kind == "atheris" and rc not in (0, None):
        job.result["status"] = f"exit {rc}"
    else:
        job.result["status"] = "ok"


def table(jobs: List[Job]) -> str:
    head = ("target", "engine", "time", "execs", "execs/s", "coverage", "corpus", "crashes", "hangs", "new", "status")
    rows = [head]
    for j in jobs:
        r = j.result
        if j.kind == "afl":
            cov = f"{r.get('coverage', '?')} ({r.get('edges_found', 0)}/{r.get('total_edges', 0)} edges)"
        else:
            cov = f"{r.get('edges_found', 0)} edges, {r.get('features', 0)} ft"
        rows.append(
            (
                j.name,
                j.kind,
                f"{r.get('wall_time', 0):.0f}s",
                str(r.get("execs_done", 0)),
                str(r.get("execs_per_sec", 0)),
                cov,
                str(r.get("corpus_count", 0)),
                str(r.get("saved_crashes", 0)),
                str(r.get("saved_hangs", 0)),
                str(len(r.get("new_findings", []))),
                str(r.get("status", "?"))[:60],
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=300, help="fuzzing time per target (default 300)")
    parser.add_argument("--jobs", type=int, default=2, help="targets fuzzed at once (default 2)")
    parser.add_argument("--targets", default="", help="comma-separated target names (default: all)")
    parser.add_argument("--timeout-ms", type=int, default=2000, help="an input running longer is a hang (default 2000)")
    parser.add_argument(
        "--hostile-timeout", type=int, default=10, help="seconds a megabyte hostile input may take in a Python target (0: skip them)"
    )
    parser.add_argument("--save-corpus", action="store_true", help="minimise what was found and merge it into the corpus folders")
    parser.add_argument("--corpus-kb", type=int, default=24, help="with --save-corpus: at most this many KiB of saved inputs per target")
    parser.add_argument("--corpus-files", type=int, default=48, help="with --save-corpus: at most this many saved inputs per target")
    parser.add_argument("--no-build", action="store_true", help="do not run cargo afl build first")
    parser.add_argument("--no-python", action="store_true", help="skip the Python targets")
    parser.add_argument("--python", default=None, help="the interpreter with phoneworld and atheris (default .venv/bin/python)")
    parser.add_argument("--out", default=str(ROOT / "out" / "fuzz"), help="where runs and report.json go (default out/fuzz)")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    args = parser.parse_args()
    python = python_exe(args.python)

    if not args.no_build:
        build()
    rust = rust_targets()
    afl_map = map_size()
    py = [] if args.no_python else python_targets(python)
    if args.list:
        for name in rust:
            say(f"{name}  (rust, AFL++, fuzz/corpus/{name})")
        for name in py:
            say(f"{name}  (python, atheris, python/fuzz/corpus/seeds + {name})")
        return 0
    wanted = [t for t in args.targets.split(",") if t] or rust + py
    unknown = [t for t in wanted if t not in rust + py]
    if unknown:
        say(f"unknown targets: {', '.join(unknown)} (known: {', '.join(rust + py)})")
        return 2

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    jobs = []
    for name in wanted:
        kind = "afl" if name in rust else "atheris"
        corpus = RUST_CORPUS / name if kind == "afl" else PY_CORPUS / name
        job_out = out / name
        if job_out.exists():
            shutil.rmtree(job_out)
        jobs.append(Job(name, kind, job_out, corpus))
    rounds = -(-len(jobs) // max(args.jobs, 1))
    say(f"fuzzing {len(jobs)} targets for {args.seconds} s each, {args.jobs} at a time (about {rounds * args.seconds} s in all)")

    start = time.time()
    py_jobs = [j for j in jobs if j.kind == "atheris"]
    if py_jobs and args.hostile_timeout > 0:
        hostile = out / "hostile"
        if hostile.exists():
            shutil.rmtree(hostile)
        subprocess.run([python, str(PY_HARNESS), "--write-hostile", str(hostile), str(1 << 20)], cwd=ROOT, check=True)
        for job in py_jobs:
            t = time.time()
            job.result["hostile"] = run_hostile(job, python, hostile, args.hostile_timeout)
            job.result["hostile_inputs"] = len(list(hostile.iterdir()))
            count, found = job.result["hostile_inputs"], len(job.result["hostile"])
            say(f"  {job.name}: {count} megabyte hostile inputs in {time.time() - t:.0f} s, {found} findings")

    pending, running = list(jobs), []  # type: List[Job], List[Job]
    try:
        while pending or running:
            while pending and len(running) < max(args.jobs, 1):
                job = pending.pop(0)
                job.started = time.time()
                if job.kind == "afl":
                    start_afl(job, args.seconds, args.timeout_ms, afl_map)
                else:
                    start_atheris(job, args.seconds, args.timeout_ms, python)
                say(f"  started {job.name} ({job.kind}), log {job.out / 'fuzz.log'}")
                running.append(job)
            time.sleep(1)
            for job in list(running):
                assert job.proc is not None
                if job.proc.poll() is None and time.time() - job.started > args.seconds + 300:
                    say(f"  {job.name} overran its time; stopping it")
                    os.killpg(job.proc.pid, signal.SIGTERM)
                    job.proc.wait()
                if job.proc.poll() is not None:
                    running.remove(job)
                    finish(job, python)
                    r = job.result
                    counts = f"{r['execs_done']} execs, {r['saved_crashes']} crashes, {r['saved_hangs']} hangs"
                    say(f"  done {job.name}: {counts}, {r['status']}")
    except KeyboardInterrupt:
        for job in running:
            if job.proc and job.proc.poll() is None:
                os.killpg(job.proc.pid, signal.SIGTERM)
                job.proc.wait()
        say("interrupted")
        return 130

    saved: Dict[str, List[str]] = {}
    if args.save_corpus:
        say("saving the corpus (minimised, files up to 64 KiB)")
        for job in jobs:
            if job.kind == "afl":
                kept = save_afl_corpus(job, args.corpus_kb, args.corpus_files, afl_map)
            else:
                kept = save_atheris_corpus(job, python, args.corpus_kb, args.corpus_files)
            saved[job.name] = [str(p.relative_to(ROOT)) for p in kept]
            job.result["saved_to_corpus"] = saved[job.name]
            say(f"  {job.name}: {len(kept)} inputs added to {job.corpus.relative_to(ROOT)}")

    report = {
        "seconds_per_target": args.seconds,
        "jobs": args.jobs,
        "total_time": round(time.time() - start, 1),
        "targets": {j.name: dict(j.result, engine=j.kind, corpus=str(j.corpus.relative_to(ROOT))) for j in jobs},
    }
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    say("")
    say(table(jobs))
    say("")
    total_execs = sum(j.result.get("execs_done", 0) for j in jobs)
    say(f"{len(jobs)} targets, {total_execs} executions, {report['total_time']:.0f} s in all; report: {out / 'report.json'}")
    findings = [(j, f) for j in jobs for f in j.result.get("findings", [])]
    new = [f for j in jobs for f in j.result.get("new_findings", [])]
    if findings:
        say("")
        say("findings (each copied into its corpus folder, so the tests replay it: `cargo test -p phoneworld-fuzz`")
        say("for Rust targets, `pytest python/tests/test_fuzz_corpus.py` for Python ones):")
        for job, f in findings:
            mark = "new" if f["file"] in new else "known"
            say(f"  {mark} {job.name}: {f['file']}: {f['message'][:300]}")
    else:
        say("no crashes or hangs")
    failed = [j.name for j in jobs if j.result.get("status", "").startswith("failed")]
    if failed:
        say(f"targets that did not run: {', '.join(failed)}")
    return 1 if new or failed else 0


if __name__ == "__main__":
    sys.exit(main())
