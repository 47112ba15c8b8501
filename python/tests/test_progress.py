"""Long runs show progress on a terminal (rate, ETA, per-category counts) and nothing when
the output is read by a program (`--json`, a pipe)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import phoneworld

def on_a_terminal(command: list[str]) -> str:
    """What `command` prints when its output is a terminal (`script` gives it one)."""
    if shutil.which("script") is None:
        pytest.skip("util-linux `script` is not installed")
    done = subprocess.run(["script", "-qec", " ".join(command), "/dev/null"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    return done.stdout


@pytest.mark.parametrize("command", ["eval", "verify"])
def test_the_command_line_shows_a_bar_on_a_terminal_and_none_with_json(cli: Path, two_tasks: Path, command: str) -> None:
    base = [str(cli), command, "--suite", "two", "--suite-dir", str(two_tasks), "--seeds", "2"]
    shown = on_a_terminal(base)
    assert f"{command} [" in shown and "ETA" in shown and "app 4/4" in shown, shown[-500:]
    quiet = on_a_terminal([*base, "--json"])
    assert "ETA" not in quiet and quiet.lstrip().startswith("{"), quiet[:300]
    piped = subprocess.run(base, capture_output=True, text=True, check=False)
    assert "ETA" not in piped.stdout + piped.stderr


def test_evaluate_shows_its_progress_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    def agent(obs: dict[str, Any]) -> Any:
        return None

    phoneworld.evaluate(agent, seeds=2, tasks=["clock_add_alarm"], config={"observe": ()}, progress=True)
    err = capsys.readouterr().err
    assert "evaluate" in err and "app 0/2" in err, err[-300:]
    phoneworld.evaluate(agent, seeds=2, tasks=["clock_add_alarm"], config={"observe": ()}, progress=False)
    assert capsys.readouterr().err == ""
