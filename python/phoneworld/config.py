"""Env configuration as plain, picklable data: the same object builds single and vector envs."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence, Tuple

from ._core import ConfigError

ACTION_FORMATS = ("auto", "canonical", "androidworld", "phonebuddy", "qwen25vl", "uitars")
OBSERVATIONS = ("screenshot", "ui_tree")


@dataclass(frozen=True)
class PhoneConfig:
    """What an env observes and how it reads actions.

    >>> PhoneConfig(obs_size=(540, 1200), observe=("ui_tree",)).observe
    ('ui_tree',)
    """

    suite: str = "phoneworld-v0"
    #: Device pixels (width, height).
    screen: Tuple[int, int] = (1080, 2400)
    #: Screenshot size (width, height), drawn at that size in Rust (box-filtered when the aspect
    #: differs from the device's); None keeps the device size.
    obs_size: Optional[Tuple[int, int]] = None
    #: Which observations: "screenshot", "ui_tree" (the instruction is always there).
    observe: Tuple[str, ...] = ("screenshot", "ui_tree")
    #: UI elements in info (AndroidWorld's UIElement fields); False skips building them.
    ui_elements: bool = True
    #: Format of the actions `step` accepts; "auto" detects it per action.
    action_format: str = "auto"
    #: Coordinate frame of actions: None uses the format's own ("pixel", "norm1000", "norm1", "resized").
    coords: Optional[str] = None
    #: (width, height) of the resized image the model saw, for coords="resized".
    image_size: Optional[Tuple[int, int]] = None
    #: "sparse": the verifier's 1/0 at the end; "shaped": also the change in sub-goal progress each step.
    reward: str = "sparse"
    #: Overrides each task's step budget.
    max_steps: Optional[int] = None
    #: The phone's look for every episode: a profile ("default", "dark", "large_text", "small_phone",
    #: "large_phone", "compact", "accent_green_24h", "dark_large") or "random" (drawn from the seed).
    #: It may change the device's resolution; observations keep `obs_size` (or `screen`) whatever it is.
    appearance: Optional[str] = None
    apps_dirs: Tuple[str, ...] = field(default_factory=tuple)
    suite_dirs: Tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.action_format not in ACTION_FORMATS:
            raise ConfigError(f"action_format must be one of {', '.join(ACTION_FORMATS)}, not {self.action_format!r}")
        unknown = [o for o in self.observe if o not in OBSERVATIONS]
        if unknown:
            raise ConfigError(f"observe may hold {', '.join(OBSERVATIONS)}; unknown: {', '.join(map(str, unknown))}")
        if self.reward not in ("sparse", "shaped"):
            raise ConfigError(f"reward must be 'sparse' or 'shaped', not {self.reward!r}")
        object.__setattr__(self, "observe", tuple(self.observe))
        object.__setattr__(self, "screen", tuple(self.screen))
        object.__setattr__(self, "apps_dirs", tuple(str(Path(p)) for p in self.apps_dirs))
        object.__setattr__(self, "suite_dirs", tuple(str(Path(p)) for p in self.suite_dirs))

    @classmethod
    def from_kwargs(cls, config: "PhoneConfig | dict[str, Any] | None" = None, **kwargs: Any) -> "PhoneConfig":
        """A config from another config or a dict, with keyword overrides."""
        base: dict[str, Any] = {}
        if isinstance(config, PhoneConfig):
            base = dataclasses.asdict(config)
        elif isinstance(config, dict):
            base = dict(config)
        elif config is not None:
            raise ConfigError(f"config must be a PhoneConfig or a dict, not {type(config).__name__}")
        base.update(kwargs)
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(base) - names)
        if unknown:
            raise ConfigError(f"unknown config keys: {', '.join(unknown)} (known: {', '.join(sorted(names))})")
        return cls(**base)

    @property
    def screenshot_size(self) -> Optional[Tuple[int, int]]:
        """(width, height) of observed screenshots, None when screenshots are off."""
        if "screenshot" not in self.observe:
            return None
        return tuple(self.obs_size) if self.obs_size else tuple(self.screen)  # type: ignore[return-value]

    def core_settings(self) -> dict[str, Any]:
        """The settings dict the Rust core takes."""
        obs_w, obs_h = self.obs_size if self.obs_size else (None, None)
        return {
            "suite": self.suite,
            "suite_dirs": list(self.suite_dirs),
            "apps_dirs": list(self.apps_dirs),
            "width": int(self.screen[0]),
            "height": int(self.screen[1]),
            "obs_width": obs_w,
            "obs_height": obs_h,
            "screenshot": "screenshot" in self.observe,
            "ui_tree": "ui_tree" in self.observe,
            "ui_elements": self.ui_elements,
            "reward": self.reward,
            "max_steps": self.max_steps,
            "appearance": self.appearance,
        }


def parse_action(
    action: Any, config: PhoneConfig, ui_elements: Optional[Sequence[dict[str, Any]]], screen: Optional[Tuple[int, int]] = None
) -> Any:
    """A model's action in any accepted format as canonical action(s); raises ActionError.

    `screen` is the device's size in play (an appearance may change it), `config.screen` by default."""
    if isinstance(action, dict) and config.action_format in ("auto", "canonical") and "type" in action:
        return action  # canonical already: the Rust core validates it
    from . import actions

    steps = actions.parse_steps(
        action,
        config.action_format,
        screen=screen or config.screen,
        coords=config.coords,
        image_size=config.image_size,
        ui_elements=list(ui_elements) if ui_elements is not None else None,
    )
    return steps[0] if len(steps) == 1 else steps
