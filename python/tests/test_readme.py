"""The README's Python quickstart runs as written."""

from __future__ import annotations

import contextlib
import io
import re

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quickstart_finishes_an_episode() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "README.md", "exec"), {})
    instruction, result = out.getvalue().splitlines()
    assert instruction.startswith("Set an alarm") and result == "1.0 True"
