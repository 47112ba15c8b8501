"""Progress of long runs: a tqdm bar on stderr with rate, ETA and per-category counts, shown
when asked or when stderr is a terminal; nothing otherwise (logs and pipes stay clean)."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any, Iterable, Optional


class Progress:
    """Counts finished episodes per category (`ok` of `all`) on a bar of `total`."""

    def __init__(self, what: str, total: int, initial: int = 0, show: Optional[bool] = None) -> None:
        self.counts: Counter[str] = Counter()
        self.bar: Any = None
        if show is False or (show is None and not sys.stderr.isatty()):
            return
        try:
            from tqdm import tqdm
        except ImportError:  # tqdm comes with the ray extra; without it, no bar
            return
        self.bar = tqdm(total=total, initial=initial, unit="episode", desc=what, file=sys.stderr, dynamic_ncols=True)

    def done(self, results: Iterable[dict[str, Any]], ok_key: str = "success", shown: bool = True) -> None:
        """Counts `results` (dicts with `category` and `ok_key`); `shown=False` only counts
        (episodes resumed from a checkpoint, already on the bar)."""
        n = 0
        for r in results:
            self.counts[f"{r.get('category', '?')} ok"] += bool(r.get(ok_key))
            self.counts[f"{r.get('category', '?')} all"] += 1
            n += 1
        if self.bar is not None and shown:
            self.bar.update(n)
        if self.bar is not None:
            categories = sorted({key.rsplit(" ", 1)[0] for key in self.counts})
            self.bar.set_postfix_str(" ".join(f"{c} {self.counts[c + ' ok']}/{self.counts[c + ' all']}" for c in categories), refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
