"""Runs spread over a Ray cluster: the episodes of `eval`, `rollouts` or `evaluate` go out in
chunks as Ray tasks, and come back merged in run order, so the report and the files are the
same bytes as the same run on one machine.

- A worker that dies mid-chunk (the process killed, its node gone) has the chunk re-run by Ray
  on another worker (`max_retries`); episodes are deterministic, so the result is unchanged.
- A few chunks per CPU of the cluster are in flight at a time; a node that joins mid-run
  raises that and takes the next ones.
- Each finished chunk is appended to a checkpoint file (after its files are written); a run
  stopped with Ctrl-C submits nothing more and raises `RunInterrupted`, and the same run
  started again resumes from the checkpoint. The checkpoint is removed when the run finishes.
- Trajectories are written on the worker into a scratch folder and travel back through Ray's
  object store: the workers need no shared filesystem for output (app and suite folders given
  with `apps_dirs` / `suite_dirs` must exist at the same path on every node).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import threading
import tempfile
from collections import Counter, deque
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import ray

from .. import _core
from .._core import PhoneWorldError
from ..config import PhoneConfig
from ..evaluate import Agent, play_job
from ..progress import Progress
from ..report import save_run_report

#: How often Ray re-runs a chunk whose worker died.
CHUNK_RETRIES = 3
#: Chunks submitted at once per CPU of the cluster.
IN_FLIGHT_PER_CPU = 2


class RunInterrupted(PhoneWorldError):
    """A run stopped before its end (Ctrl-C); `done` of `total` episodes are in `checkpoint`,
    and starting the same run again resumes from there."""

    def __init__(self, done: int, total: int, checkpoint: Optional[Path]) -> None:
        where = f"; run the same command again to resume from {checkpoint}" if checkpoint else ""
        super().__init__(f"interrupted: {done} of {total} episodes done{where}")
        self.done, self.total, self.checkpoint = done, total, checkpoint


def connect(address: Optional[str] = None) -> None:
    """Joins the Ray cluster at `address` (`auto`, `HOST:PORT`, `ray://...`), or starts a local
    one when None and `RAY_ADDRESS` is unset; does nothing when already connected."""
    if ray.is_initialized():
        return
    if address is None and not os.environ.get("RAY_ADDRESS"):
        ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    else:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)


# --- on the workers ---------------------------------------------------------------------------


def _files_below(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _node() -> str:
    return str(ray.get_runtime_context().get_node_id())


#: What a chunk brings back: its results in order, the files it wrote, the node it ran on.
Chunk = tuple[list[dict[str, Any]], dict[str, bytes], str]


@ray.remote(max_retries=CHUNK_RETRIES)
def _eval_chunk(spec: dict[str, Any], jobs: list[dict[str, Any]]) -> Chunk:
    with tempfile.TemporaryDirectory(prefix="phoneworld-chunk-") as scratch:
        out = Path(scratch) if spec["record"] else None
        results = _core.eval_episodes(
            jobs, spec["agent"], spec["suite"], spec["suite_dirs"], spec["apps_dirs"], out_dir=out, interruptions=spec["interruptions"]
        )
        return results, _files_below(out) if out else {}, _node()


@ray.remote(max_retries=CHUNK_RETRIES)
def _rollout_chunk(spec: dict[str, Any], jobs: list[dict[str, Any]]) -> Chunk:
    with tempfile.TemporaryDirectory(prefix="phoneworld-chunk-") as scratch:
        outcomes = _core.RolloutRun(**_rollout_options(spec)).play(jobs, scratch)
        return outcomes, _files_below(Path(scratch)), _node()


@ray.remote(max_retries=CHUNK_RETRIES)
def _agent_chunk(agent: Agent, cfg: PhoneConfig, jobs: list[dict[str, Any]], record: bool) -> Chunk:
    with tempfile.TemporaryDirectory(prefix="phoneworld-chunk-") as scratch:
        results = [play_job(agent, cfg, job["template"], job["seed"], scratch if record else None) for job in jobs]
        return results, _files_below(Path(scratch)) if record else {}, _node()


def _rollout_options(spec: dict[str, Any]) -> dict[str, Any]:
    keys = ("seeds", "detours", "image_format", "image_size", "appearance", "interruptions", "suite_dirs", "apps_dirs")
    return {"suite_name": spec["suite"], **{k: spec[k] for k in keys}}


# --- on the driver ----------------------------------------------------------------------------


class _Checkpoint:
    """Finished chunks of one run, a JSON line each after a header naming the run."""

    def __init__(self, path: Optional[Path], run: str) -> None:
        self.path, self.run = path, run

    def load(self) -> dict[int, list[Any]]:
        if self.path is None or not self.path.exists():
            return {}
        lines = self.path.read_text().splitlines()
        try:
            if not lines or json.loads(lines[0]).get("run") != self.run:
                return {}  # another run's: started afresh
            chunks = [json.loads(line) for line in lines[1:] if line.strip()]
        except json.JSONDecodeError:
            return {}  # cut off mid-line by a crash: the chunks are played again
        return {int(c["start"]): c["results"] for c in chunks}

    def begin(self, resumed: bool) -> None:
        if self.path is not None and not resumed:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"run": self.run}) + "\n")

    def add(self, start: int, results: list[Any]) -> None:
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps({"start": start, "results": results}) + "\n")

    def finish(self) -> None:
        if self.path is not None and self.path.exists():
            self.path.unlink()


def _run_id(kind: str, spec: dict[str, Any], jobs: Sequence[dict[str, Any]]) -> str:
    text = json.dumps({"kind": kind, "spec": spec, "jobs": list(jobs)}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _default_checkpoint(run: str, out_dir: Optional[Path]) -> Path:
    if out_dir is not None:
        return out_dir / ".phoneworld-progress.jsonl"
    return Path(tempfile.gettempdir()) / "phoneworld-runs" / f"{run}.jsonl"


def _drive(
    kind: str,
    submit: Callable[[list[dict[str, Any]]], Any],
    jobs: list[dict[str, Any]],
    run: str,
    *,
    chunk_size: int,
    out_dir: Optional[Path],
    checkpoint: Optional[Path],
    progress: Optional[bool],
    stats: Optional[dict[str, Any]] = None,
) -> list[dict[str, Any]]:
    """Plays `jobs` in chunks (`submit` starts one as a Ray task) and returns their results in
    run order, writing the files each chunk brings back under `out_dir`. `stats` gets
    `chunks_by_node`: how many chunks each Ray node played (resumed ones not counted)."""
    if chunk_size < 1:
        raise _core.ConfigError(f"chunk_size must be at least 1, not {chunk_size}")
    store = _Checkpoint(checkpoint, run)
    done = store.load()
    store.begin(resumed=bool(done))
    results: list[Optional[dict[str, Any]]] = [None] * len(jobs)
    waiting: deque[int] = deque()
    for start in range(0, len(jobs), chunk_size):
        if start in done:
            results[start : start + len(done[start])] = done[start]
        else:
            waiting.append(start)
    pending: dict[Any, int] = {}
    finished = sum(len(r) for r in done.values())
    ok_key = "kept" if kind == "rollouts" else "success"
    bar = Progress(kind, len(jobs), finished, progress)
    for chunk in done.values():
        bar.done(chunk, ok_key, shown=False)
    by_node: Counter[str] = Counter()
    stop = _StopOnInterrupt()
    try:
        while pending or waiting:
            # A few chunks per CPU of the cluster as it is now (a node that joins raises it):
            # enough to keep every worker busy, few enough that a stopped run leaves little
            # behind (in-flight chunks are not cancelled: Ray 2.60 can abort the driver when a
            # cancelled task's reply comes late).
            limit = IN_FLIGHT_PER_CPU * max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]
            while waiting and len(pending) < limit:
                start = waiting.popleft()
                pending[submit(jobs[start : start + chunk_size])] = start
            # Woken now and then: Ctrl-C during a blocking wait is seen by the flag, whatever
            # Ray's own code does with the signal.
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.25)
            if stop.asked:
                raise KeyboardInterrupt
            for ref in ready:
                start = pending.pop(ref)
                chunk_results, files, node = ray.get(ref)
                by_node[node] += 1
                if out_dir is not None:
                    for rel, data in files.items():
                        path = out_dir / rel
                        path.parent.mkdir(parents=True, exist_ok=True)
                        path.write_bytes(data)
                store.add(start, chunk_results)
                results[start : start + len(chunk_results)] = chunk_results
                finished += len(chunk_results)
                bar.done(chunk_results, ok_key)
    except KeyboardInterrupt:
        raise RunInterrupted(finished, len(jobs), store.path) from None
    finally:
        stop.restore()
        bar.close()
        if stats is not None:
            stats["chunks_by_node"] = dict(by_node)
    store.finish()
    return [r for r in results if r is not None]


class _StopOnInterrupt:
    """While a run waits on the cluster, SIGINT (Ctrl-C) sets `asked` instead of raising
    wherever it lands; the previous handler comes back with `restore`. Only the main thread
    can take signals: elsewhere (a run started from a thread) nothing is installed."""

    def __init__(self) -> None:
        self.asked = False
        self._previous: Any = None
        # A process told to ignore SIGINT (a shell's `&` job) keeps ignoring it.
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            self._previous = signal.signal(signal.SIGINT, self._ask)

    def _ask(self, signum: int, frame: Any) -> None:
        self.asked = True

    def restore(self) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


def _play_spec(
    kind: str,
    chunk: Any,
    spec: dict[str, Any],
    jobs: list[dict[str, Any]],
    out: Optional[Path],
    *,
    chunk_size: int,
    checkpoint: "str | Path | None",
    progress: Optional[bool],
    stats: Optional[dict[str, Any]],
) -> list[dict[str, Any]]:
    """`_drive` with the remote function `chunk(spec, jobs)`: the spec put in the object store
    once, the checkpoint where the run's options say."""
    run = _run_id(kind, spec, jobs)
    spec_ref = ray.put(spec)
    return _drive(
        kind,
        lambda part: chunk.remote(spec_ref, part),
        jobs,
        run,
        chunk_size=chunk_size,
        out_dir=out,
        checkpoint=Path(checkpoint) if checkpoint else _default_checkpoint(run, out),
        progress=progress,
        stats=stats,
    )


def run_eval(
    *,
    address: Optional[str] = None,
    suite: str = "phoneworld-v0",
    agent: str = "oracle",
    seeds: int = 1,
    appearances: Sequence[str] = (),
    interruptions: Optional[str] = None,
    apps_dirs: Sequence[str] = (),
    suite_dirs: Sequence[str] = (),
    out_dir: "str | Path | None" = None,
    chunk_size: int = 8,
    checkpoint: "str | Path | None" = None,
    progress: Optional[bool] = None,
    stats: Optional[dict[str, Any]] = None,
) -> str:
    """`phoneworld eval` with a built-in agent on the cluster; returns the JSON text
    `phoneworld eval --json` prints for the same run (with `out_dir`, the same trajectories)."""
    connect(address)
    apps, suites = [str(d) for d in apps_dirs], [str(d) for d in suite_dirs]
    jobs = _core.run_jobs(seeds, list(appearances), suite, suites, apps)
    name, suite_hash, apps_hash = _core.suite_hashes(suite, suites, apps)
    spec = {
        "agent": agent, "suite": suite, "suite_dirs": suites, "apps_dirs": apps, "interruptions": interruptions,
        "record": out_dir is not None, "suite_hash": suite_hash, "apps_hash": apps_hash,
    }  # fmt: skip
    out = Path(out_dir) if out_dir is not None else None
    results = _play_spec("eval", _eval_chunk, spec, jobs, out, chunk_size=chunk_size, checkpoint=checkpoint, progress=progress, stats=stats)
    text = _core.eval_report_text(jobs, results, agent, seeds, suite, suites, apps)
    if out is not None:
        save_run_report(out, text)
    return text


def run_rollouts(
    *,
    out_dir: "str | Path",
    address: Optional[str] = None,
    suite: str = "phoneworld-v0",
    seeds: int = 1,
    detours: float = 0.0,
    image_format: str = "jpeg",
    image_size: Optional[tuple[int, int]] = None,
    appearance: Optional[str] = None,
    interruptions: Optional[str] = None,
    apps_dirs: Sequence[str] = (),
    suite_dirs: Sequence[str] = (),
    chunk_size: int = 8,
    checkpoint: "str | Path | None" = None,
    progress: Optional[bool] = None,
    stats: Optional[dict[str, Any]] = None,
) -> str:
    """`phoneworld rollouts` on the cluster: the same episode folders and `manifest.json` under
    `out_dir`; returns the manifest as the JSON text `phoneworld rollouts --json` prints."""
    connect(address)
    apps, suites = [str(d) for d in apps_dirs], [str(d) for d in suite_dirs]
    jobs = _core.run_jobs(seeds, [], suite, suites, apps)
    _, suite_hash, apps_hash = _core.suite_hashes(suite, suites, apps)
    spec = {
        "suite": suite, "suite_dirs": suites, "apps_dirs": apps, "seeds": seeds, "detours": detours,
        "image_format": image_format, "image_size": tuple(image_size) if image_size else None, "appearance": appearance,
        "interruptions": interruptions, "suite_hash": suite_hash, "apps_hash": apps_hash,
    }  # fmt: skip
    merged = _core.RolloutRun(**_rollout_options(spec))  # the options checked before any worker starts
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    outcomes = _play_spec(
        "rollouts", _rollout_chunk, spec, jobs, out, chunk_size=chunk_size, checkpoint=checkpoint, progress=progress, stats=stats
    )
    return merged.manifest(outcomes, out)


def play_agent_jobs(
    agent: Agent,
    cfg: PhoneConfig,
    jobs: Sequence[tuple[str, int]],
    *,
    out_dir: "str | Path | None" = None,
    address: Optional[str] = None,
    chunk_size: int = 8,
    checkpoint: "str | Path | None" = None,
    progress: Optional[bool] = None,
) -> list[dict[str, Any]]:
    """`phoneworld.evaluate(..., backend="ray")`: each (task, seed) played with `agent` on the
    cluster; the results in order, the trajectories under `out_dir`."""
    connect(address)
    as_dicts = [{"template": task, "seed": int(seed), "appearance": None} for task, seed in jobs]
    out = Path(out_dir) if out_dir is not None else None
    agent_ref, cfg_ref = ray.put(agent), ray.put(cfg)
    run = _run_id("evaluate", {"agent": getattr(agent, "__qualname__", type(agent).__name__), "config": repr(cfg)}, as_dicts)
    return _drive(
        "evaluate",
        lambda chunk: _agent_chunk.remote(agent_ref, cfg_ref, chunk, out is not None),
        as_dicts,
        run,
        chunk_size=chunk_size,
        out_dir=out,
        checkpoint=Path(checkpoint) if checkpoint else None,
        progress=progress,
    )
