"""Eval run folders and their page: `report.json` beside the trajectories (what `phoneworld
report` reads), and `write_report`, the self-contained HTML page it writes.

>>> from pathlib import Path
>>> with run_folder(None, "report.html") as run:
...     Path(run).is_dir()
True
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from ._core import write_report

REPORT_FILE = "report.json"

__all__ = ["REPORT_FILE", "run_folder", "save_run_report", "summary_line", "write_report"]


def save_run_report(out_dir: Union[str, Path], report_text: str) -> Path:
    """Writes a run's report (the JSON text `phoneworld eval --json` prints) into its folder."""
    path = Path(out_dir) / REPORT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report_text + "\n", encoding="utf-8")
    return path


@contextmanager
def run_folder(out_dir: "Union[str, Path, None]", report: "Union[str, Path, None]") -> Iterator[Optional[Path]]:
    """Where a run writes its trajectories: `out_dir`, or, when only a page was asked for, a
    temporary folder gone after the page is written; None when neither was asked for."""
    if out_dir is not None:
        yield Path(out_dir)
    elif report is not None:
        with tempfile.TemporaryDirectory(prefix="phoneworld-eval-") as scratch:
            yield Path(scratch)
    else:
        yield None


def summary_line(out: "Union[str, Path]", summary: dict[str, Any]) -> str:
    """What the command lines print after writing a page."""
    return (
        f"report: {out} ({summary['episodes']} episodes, {summary['recorded']} with frames, {summary['steps']} steps, "
        f"{summary['distinct_frames']} distinct frames, {summary['bytes'] / 1e6:.1f} MB)"
    )
