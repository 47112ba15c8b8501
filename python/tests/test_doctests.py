"""The docstring examples of every module run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["phoneworld", "phoneworld.config", "phoneworld.env", "phoneworld.vector", "phoneworld.registration", "phoneworld.wrappers", "phoneworld.evaluate", "phoneworld.actions", "phoneworld.export"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0
