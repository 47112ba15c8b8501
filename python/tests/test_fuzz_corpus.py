"""The Python fuzz corpora as regression tests: every seed (`python/fuzz/corpus/seeds/`), every input a
fuzz run kept (`python/fuzz/corpus/<target>/`: crashes, hangs, new coverage) and the hostile inputs
(smaller than the fuzz runner's) go through the same checks the atheris targets run (python/fuzz/fuzz_actions.py):
`phoneworld.actions` raises nothing but ActionError, what it parses is complete and the phone takes
it, and what it writes parses back. Needs no atheris."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Tuple

import pytest

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
CORPUS = FUZZ / "corpus"


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("phoneworld_fuzz_actions", FUZZ / "fuzz_actions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    module._import_phoneworld(instrument=False)
    return module


harness = _harness()


# Inputs that still find a bug, with the targets they fail and the bug: they must keep failing until
# it is fixed, and then come off this list (a known input that passes fails the test, so the list
# stays true).
BOTH = ("python_actions", "python_roundtrip")
KNOWN: Dict[str, Tuple[Tuple[str, ...], str]] = {}


def _files(target: str) -> List[Path]:
    folders = [CORPUS / "seeds", CORPUS / target]
    return sorted(p for folder in folders if folder.is_dir() for p in folder.iterdir() if p.is_file())


@pytest.mark.parametrize("target", sorted(harness.TARGETS))
def test_corpus_replays(target: str) -> None:
    check = harness.TARGETS[target]
    files = _files(target)
    assert len(files) > 100, "the seeds are missing: python3 python/fuzz/make_seeds.py"
    known = {name for name, (targets, _) in KNOWN.items() if target in targets}
    failures, fixed = [], []
    for path in files:
        try:
            check(path.read_bytes())
            if path.name in known:
                fixed.append(path.name)
        except harness.Finding as err:
            if path.name not in known:
                failures.append(f"{path.relative_to(CORPUS)}: {err}")
    assert not failures, "\n".join(failures)
    assert not fixed, f"fixed, take them off KNOWN: {fixed}"


@pytest.mark.parametrize("target", sorted(harness.TARGETS))
def test_hostile_inputs(target: str) -> None:
    check = harness.TARGETS[target]
    # The fuzz runner runs them at a megabyte each; here at 4 KiB, to stay quick.
    for label, data in harness.hostile_inputs(4096):
        start = time.perf_counter()
        try:
            check(data)
        except harness.Finding as err:
            pytest.fail(f"{label}: {err}")
        assert time.perf_counter() - start < 2, f"{label} took {time.perf_counter() - start:.1f} s"


def test_corpus_stays_small() -> None:
    files = [p for p in CORPUS.rglob("*") if p.is_file()]
    assert all(p.stat().st_size <= 64 * 1024 for p in files), [p.name for p in files if p.stat().st_size > 64 * 1024]
    assert sum(p.stat().st_size for p in files) < 512 * 1024


def test_findings_are_reported() -> None:
    """An exception other than ActionError is a finding; ActionError is an answer."""

    def raises_type_error() -> None:
        raise TypeError("boom")

    def raises_action_error() -> None:
        raise harness.ActionError("bad input")

    assert harness._expect(raises_action_error)[0] is False
    with pytest.raises(harness.Finding, match="TypeError: boom"):
        harness._expect(raises_type_error)
