"""`evaluate`: run any agent over a suite and get what `phoneworld eval --json` prints.

>>> import phoneworld
>>> report = phoneworld.evaluate(lambda obs: None, seeds=1, tasks=["clock_add_alarm"], config={"observe": ()})
>>> report["episodes"], report["success_rate"]
(1, 0.0)
"""

from __future__ import annotations

import inspect
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from ._core import ConfigError, eval_report, suite_tasks
from .config import PhoneConfig
from .progress import Progress
from .report import run_folder, save_run_report, write_report
from .env import PhoneEnv
from .wrappers import RecordTrajectory

Agent = Callable[..., Any]


def _takes_info(agent: Agent) -> bool:
    try:
        params = list(inspect.signature(agent).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)


def play_job(agent: Agent, cfg: PhoneConfig, task: str, seed: int, out_dir: "str | Path | None" = None) -> dict[str, Any]:
    """Plays one episode of `task` and `seed` with `agent`; returns its result as `eval` reports it."""
    with_info = _takes_info(agent)
    env: Any = PhoneEnv(task=task, config=cfg)
    if out_dir is not None:
        env = RecordTrajectory(env, out_dir)
    obs, info = env.reset(seed=seed)
    while True:
        action = agent(obs, info) if with_info else agent(obs)
        if action is None:
            break
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    result: dict[str, Any] = env.unwrapped.result()
    env.close()
    return result


def evaluate(
    agent: Agent,
    suite: str = "phoneworld-v0",
    seeds: Union[int, Sequence[int]] = 3,
    num_envs: int = 1,
    *,
    tasks: Optional[Sequence[str]] = None,
    config: "PhoneConfig | dict[str, Any] | None" = None,
    out_dir: "str | Path | None" = None,
    agent_name: str = "python",
    backend: str = "local",
    address: Optional[str] = None,
    chunk_size: int = 8,
    progress: Optional[bool] = None,
    report: "str | Path | None" = None,
) -> dict[str, Any]:
    """Plays every task template of `suite` (or `tasks`) for each seed (`seeds=N` means 0..N)
    with `agent`, a callable taking the observation (and the info, if it takes two arguments)
    and returning an action in any accepted format, or None to stop. Episodes run on
    `num_envs` phones at once (the engine releases the GIL while it steps). With `out_dir`,
    every episode's trajectory is written there, and the report beside them as `report.json`.
    With `report`, the run's HTML page is written there (as `phoneworld eval --report` does).
    Returns the report of `phoneworld eval --json`.

    `backend="ray"` spreads the episodes over a Ray cluster (`address`, or the one this
    process is connected to) in chunks of `chunk_size`; the agent is shipped to the workers
    (it must pickle), and the report is the same as the local one.

    `progress` shows a bar with rate, ETA and per-category successes on stderr (None: when
    stderr is a terminal; needs tqdm, which the `ray` extra brings).
    """
    cfg = PhoneConfig.from_kwargs(config, suite=suite)
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    templates = [t["id"] for t in suite_tasks(cfg.suite, list(cfg.suite_dirs), list(cfg.apps_dirs))]
    if tasks is not None:
        unknown = sorted(set(tasks) - set(templates))
        if unknown:
            raise ConfigError(f"no such tasks in suite {cfg.suite!r}: {', '.join(unknown)}")
        templates = [t for t in templates if t in set(tasks)]
    jobs = [(task, seed) for task in templates for seed in seed_list]
    if backend not in ("local", "ray"):
        raise ConfigError(f"backend must be 'local' or 'ray', not {backend!r}")
    with run_folder(out_dir, report) as run_dir:
        results = _play_jobs(agent, cfg, jobs, run_dir, backend, address, chunk_size, num_envs, progress)
        summary: dict[str, Any] = eval_report(results, agent_name, len(seed_list), cfg.suite, list(cfg.suite_dirs), list(cfg.apps_dirs))
        if run_dir is not None:
            save_run_report(run_dir, json.dumps(summary, separators=(",", ":")))
        if report is not None and run_dir is not None:
            write_report(run_dir, report)
    return summary


def _play_jobs(
    agent: Agent,
    cfg: PhoneConfig,
    jobs: list[tuple[str, int]],
    out_dir: Optional[Path],
    backend: str,
    address: Optional[str],
    chunk_size: int,
    num_envs: int,
    progress: Optional[bool],
) -> list[dict[str, Any]]:
    """Every job's result in order, played on `backend`."""
    if backend == "ray":
        from .ray.runs import play_agent_jobs

        return play_agent_jobs(agent, cfg, jobs, out_dir=out_dir, address=address, chunk_size=chunk_size, progress=progress)
    bar = Progress("evaluate", len(jobs), show=progress)

    def play(job: tuple[str, int]) -> dict[str, Any]:
        result = play_job(agent, cfg, job[0], job[1], out_dir)
        bar.done([result])
        return result

    try:
        if num_envs <= 1:
            return [play(job) for job in jobs]
        with ThreadPoolExecutor(max_workers=num_envs) as pool:
            return list(pool.map(play, jobs))
    finally:
        bar.close()
