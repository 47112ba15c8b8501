"""Every template of the suite played through AndroidWorld's HTTP API, two devices of one server at
once: initialize instance 0, check that doing nothing scores 0.0, play the reference solution's
actions (`/task/expert_action`) through `/execute_action` until it answers null, and check the score.

With `upstream=true` the expert only uses what upstream's JSONAction can say (input_text always
presses Enter, scrolls by direction). The templates that cannot be solved that way are listed with
the reason in http_upstream_gaps.json; the set that fails must be exactly that list, and each listed
template must then be solved with the extension fields (`press_enter: false`, literal drags)."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest
import requests

from android_world.env import json_action as upstream_json_action  # vendored: tests/fixtures/android_world

import phoneworld

GAPS_FILE = Path(__file__).parent / "http_upstream_gaps.json"
MAX_ACTIONS = 200
DEVICES = 2
UPSTREAM_FIELDS = {"action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name", "keycode", "clear_text"}


@dataclass
class Outcome:
    """How one template went."""

    name: str
    initial_score: Any = None
    # None when solved; otherwise what went wrong.
    upstream: Optional[str] = "not played"
    upstream_actions: int = 0
    extension: Optional[str] = "not played"
    # Upstream-mode actions upstream's JSONAction could not have sent.
    foreign: list[str] = field(default_factory=list)


class Device:
    """One served device, driven with a keep-alive requests session."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = requests.Session()
        self.JSONAction = upstream_json_action.JSONAction

    def call(self, method: str, path: str, body: Any = None, **params: Any) -> requests.Response:
        return self.http.request(method, self.url + path, params=params, json=body, timeout=60)

    def score(self, name: str) -> Any:
        r = self.call("GET", "/task/score", task_type=name, task_idx=0)
        return r.json()["score"] if r.status_code == 200 else f"score answered {r.status_code}"

    def initialize(self, name: str) -> None:
        r = self.call("POST", "/task/initialize", task_type=name, task_idx=0)
        assert r.status_code == 200, f"initialize {name}: {r.status_code} {r.text}"

    def tear_down(self, name: str) -> None:
        r = self.call("POST", "/task/tear_down", task_type=name, task_idx=0)
        assert r.status_code == 200, f"tear_down {name}: {r.status_code} {r.text}"

    def play(self, outcome: Outcome, upstream: bool) -> tuple[Optional[str], int]:
        """Plays the expert's actions to the end: what went wrong (None if solved), and how many."""
        name = outcome.name
        for count in range(MAX_ACTIONS + 1):
            r = self.call("POST", "/task/expert_action", task_type=name, task_idx=0, upstream=upstream)
            if r.status_code != 200:
                return f"expert_action answered {r.status_code} after {count} actions", count
            action = r.json()["action"]
            if action is None:
                score = self.score(name)
                return (None if score == 1.0 else f"score {score} after {count} actions"), count
            if count == MAX_ACTIONS:
                break
            if upstream:
                try:
                    if not set(action) <= UPSTREAM_FIELDS:
                        raise TypeError(f"fields {sorted(set(action) - UPSTREAM_FIELDS)}")
                    self.JSONAction(**action)
                except (TypeError, ValueError) as e:
                    outcome.foreign.append(f"{action}: {e}")
            r = self.call("POST", "/execute_action", action)
            if r.status_code != 200:
                return f"execute_action answered {r.status_code} for {action}", count
        return f"the expert was not done after {MAX_ACTIONS} actions", MAX_ACTIONS

    def sweep(self, names: list[str], listed: set[str]) -> list[Outcome]:
        outcomes = []
        for name in names:
            outcome = Outcome(name)
            self.initialize(name)
            outcome.initial_score = self.score(name)
            outcome.upstream, outcome.upstream_actions = self.play(outcome, upstream=True)
            self.tear_down(name)
            if outcome.upstream is not None or name in listed:
                self.initialize(name)
                outcome.extension, _ = self.play(outcome, upstream=False)
                self.tear_down(name)
            outcomes.append(outcome)
        return outcomes


@dataclass
class Sweep:
    names: list[str]
    outcomes: dict[str, Outcome]
    gaps: dict[str, str]
    seconds: float


@pytest.fixture(scope="module")
def sweep() -> Sweep:
    gaps = json.loads(GAPS_FILE.read_text())
    start = time.monotonic()
    with phoneworld.serve_http(devices=DEVICES) as server:
        names = requests.get(server.url + "/suite/task_list", params={"max_index": -1}, timeout=60).json()["task_list"]
        devices = [Device(url) for url in server.device_urls]
        shares = [names[i::DEVICES] for i in range(DEVICES)]
        with ThreadPoolExecutor(DEVICES) as pool:
            results = list(pool.map(lambda d, share: d.sweep(share, set(gaps)), devices, shares))
        log = server.log()
    outcomes = {o.name: o for share in results for o in share}
    assert sorted(outcomes) == sorted(names), "every template was played"
    assert not any("panicked" in line for line in log), log
    return Sweep(names, outcomes, gaps, time.monotonic() - start)


def test_the_suite_has_every_template(sweep: Sweep) -> None:
    assert len(sweep.names) == len(set(sweep.names)) == 199, f"{len(sweep.names)} templates"


def test_doing_nothing_scores_zero_for_every_template(sweep: Sweep) -> None:
    scored = {n: o.initial_score for n, o in sweep.outcomes.items() if o.initial_score != 0.0}
    assert not scored, f"templates that score without any action: {scored}"


def test_the_templates_upstreams_actions_cannot_solve_are_exactly_the_listed_ones(sweep: Sweep) -> None:
    failing = {n: o.upstream for n, o in sweep.outcomes.items() if o.upstream is not None}
    unlisted = {n: why for n, why in failing.items() if n not in sweep.gaps}
    solved = sorted(set(sweep.gaps) - set(failing))
    assert not unlisted, f"fail with upstream's actions but are not in {GAPS_FILE.name}: {unlisted}"
    assert not solved, f"listed in {GAPS_FILE.name} but solved with upstream's actions (remove them): {solved}"


def test_the_listed_templates_are_solved_with_the_extension_fields(sweep: Sweep) -> None:
    unsolved = {n: sweep.outcomes[n].extension for n in sweep.gaps if n in sweep.outcomes and sweep.outcomes[n].extension is not None}
    assert not unsolved, f"listed templates the extension fields do not solve either: {unsolved}"


def test_the_listed_gaps_are_templates_with_reasons(sweep: Sweep) -> None:
    assert set(sweep.gaps) <= set(sweep.names), f"not templates of the suite: {sorted(set(sweep.gaps) - set(sweep.names))}"
    vague = [n for n, why in sweep.gaps.items() if not isinstance(why, str) or len(why) < 80]
    assert not vague, f"give each listed template the specific reason it fails: {vague}"


def test_upstream_mode_sends_only_what_upstreams_json_action_can_say(sweep: Sweep) -> None:
    foreign = {n: o.foreign[:3] for n, o in sweep.outcomes.items() if o.foreign}
    assert not foreign, f"actions upstream's client could not send: {foreign}"


def test_every_expert_stays_within_the_action_budget(sweep: Sweep) -> None:
    longest = max(sweep.outcomes.values(), key=lambda o: o.upstream_actions)
    assert longest.upstream_actions < MAX_ACTIONS, f"{longest.name}: {longest.upstream_actions} actions"
    print(f"\n{len(sweep.names)} templates on {DEVICES} devices in {sweep.seconds:.1f} s; longest {longest.name} ({longest.upstream_actions} actions)")
