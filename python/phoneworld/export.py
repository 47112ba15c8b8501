"""Recorded trajectories read back, and exported as fine-tuning data.

A trajectory is what ``phoneworld rollouts``, ``phoneworld eval --out-dir`` and ``phoneworld run
--out-dir`` write: a folder per episode holding ``episode.json`` (task, instruction, device size,
outcome), ``steps.jsonl`` (one line per step: the canonical action, the screenshot taken before it,
the foreground app, the UI elements) and the screenshots. `episodes` reads one such folder or a folder
of them. `samples` turns every step into a chat sample (the instruction, the previous actions as text,
the current screenshot and optionally earlier ones; the answer is the step's action written in a model
format from `phoneworld.actions`); `to_llamafactory` writes them as LLaMA-Factory's multimodal ShareGPT
JSON with its ``dataset_info.json`` entry, and `to_parquet` as a Parquet table of messages and images.

>>> import json, pathlib, tempfile
>>> from phoneworld import export
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "clock_open-0"
>>> folder.mkdir()
>>> _ = (folder / "episode.json").write_text(json.dumps(
...     {"task": "clock_open", "instruction": "Open the clock", "device": {"width": 1080, "height": 2400}}))
>>> _ = (folder / "steps.jsonl").write_text(json.dumps(
...     {"step": 0, "action": {"type": "tap", "x": 540.0, "y": 1200.0}, "image": "step_00000.png"}) + "\\n")
>>> _ = (folder / "step_00000.png").write_bytes(b"\\x89PNG\\r\\n\\x1a\\n\\0\\0\\0\\rIHDR\\0\\0\\x01\\x0e\\0\\0\\x02\\x58")  # a 270x600 PNG header
>>> [(e.task, len(e.steps), e.steps[0].action) for e in export.episodes(folder)]
[('clock_open', 1, {'type': 'tap', 'x': 540, 'y': 1200})]
>>> out = export.to_llamafactory(folder, folder.parent / "sft" / "gui.json", fmt="uitars", system_prompt="")
>>> sample = json.loads(out.read_text())[0]
>>> sample["messages"][-1]
{'role': 'assistant', 'content': "Action: click(start_box='<|box_start|>(500,500)<|box_end|>')"}
>>> sample["messages"][0]["content"].count("<image>"), len(sample["images"])
(1, 1)
>>> sorted(json.loads((out.parent / "dataset_info.json").read_text())["gui"])
['columns', 'file_name', 'formatting', 'tags']
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import actions
from ._core import ActionError, PhoneWorldError

__all__ = [
    "Episode",
    "MissingDependencyError",
    "Sample",
    "Step",
    "TrajectoryError",
    "episodes",
    "samples",
    "to_llamafactory",
    "to_parquet",
]

PathLike = Union[str, Path]
Size = Tuple[int, int]


class TrajectoryError(PhoneWorldError):
    """A trajectory folder or file that cannot be read or exported (the file and line are in the message)."""


class MissingDependencyError(PhoneWorldError):
    """An optional dependency an exporter needs is not installed (the message says what to install)."""


@dataclass(frozen=True)
class Step:
    """One recorded step: the screen the agent saw and the action it took there."""

    index: int
    #: The canonical action, coordinates in whole device pixels.
    action: Dict[str, Any]
    #: The screenshot taken before the action, or None when the trajectory has no images.
    image: Optional[Path]
    package: str
    screen: str
    #: False when the action did nothing (`note` says why).
    ok: bool
    note: Optional[str]
    ui_elements: List[Dict[str, Any]]
    #: The whole steps.jsonl line.
    record: Dict[str, Any]


@dataclass(frozen=True)
class Episode:
    """One episode folder."""

    path: Path
    #: The task template id (None for `phoneworld run` trajectories, which play no task).
    task: Optional[str]
    instruction: Optional[str]
    seed: Optional[int]
    #: Device (width, height) in pixels: the frame of the recorded actions.
    device: Size
    #: The verifier's verdict, when the episode played a task.
    success: Optional[bool]
    steps: Tuple[Step, ...]
    #: The whole episode.json.
    record: Dict[str, Any]

    @property
    def name(self) -> str:
        return self.path.name


# --- reading --------------------------------------------------------------------------------------


def _read_json_object(path: Path) -> Dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise TrajectoryError(f"{path}: cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise TrajectoryError(f"{path}: not UTF-8 text (byte {err.start})") from None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise TrajectoryError(f"{path}: not JSON: {err}") from None
    if not isinstance(value, dict):
        raise TrajectoryError(f"{path}: expected a JSON object, not {type(value).__name__}")
    return value


def _optional(record: Dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = record.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool) != (kind is bool)):
        raise TrajectoryError(f"{where}: {key} must be a {kind.__name__}, not {value!r:.60}")
    return value


def _device(record: Dict[str, Any], where: str) -> Size:
    device = record.get("device")
    if not isinstance(device, dict):
        raise TrajectoryError(f"{where}: device (width, height) is missing")
    size = []
    for key in ("width", "height"):
        value = device.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise TrajectoryError(f"{where}: device.{key} must be a positive integer, not {value!r:.60}")
        size.append(value)
    return size[0], size[1]


def _read_step(line: str, number: int, index: int, folder: Path, device: Size, where: str) -> Step:
    here = f"{where}:{number}"
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as err:
        raise TrajectoryError(f"{here}: not JSON: {err}") from None
    if not isinstance(record, dict):
        raise TrajectoryError(f"{here}: expected a JSON object, not {type(record).__name__}")
    step = record.get("step")
    if step != index or isinstance(step, bool):
        raise TrajectoryError(f"{here}: step is {step!r:.30}, expected {index}")
    if "action" not in record:
        raise TrajectoryError(f"{here}: no action")
    try:
        action = actions.canonical(record["action"], screen=device)
    except ActionError as err:
        raise TrajectoryError(f"{here}: action: {err}") from None
    image_name = _optional(record, "image", str, here)
    image = None
    if image_name is not None:
        image = (folder / image_name).resolve()
        if not image.is_file():
            raise TrajectoryError(f"{here}: image {image_name} does not exist")
    result = record.get("result")
    if not isinstance(result, dict):
        result = {}
    ok = result.get("ok", True)
    note = result.get("note")
    elements = record.get("ui_elements") or []
    if not isinstance(elements, list):
        raise TrajectoryError(f"{here}: ui_elements must be a list")
    return Step(
        index=index,
        action=action,
        image=image,
        package=_optional(record, "package", str, here) or "",
        screen=_optional(record, "screen", str, here) or "",
        ok=bool(ok),
        note=note if isinstance(note, str) else None,
        ui_elements=elements,
        record=record,
    )


def _read_episode(folder: Path) -> Episode:
    meta_path = folder / "episode.json"
    record = _read_json_object(meta_path)
    where = str(meta_path)
    device = _device(record, where)
    outcome = record.get("outcome")
    if not isinstance(outcome, dict):
        outcome = {}
    success = outcome.get("success")
    if success is not None and not isinstance(success, bool):
        raise TrajectoryError(f"{where}: outcome.success must be true or false, not {success!r:.60}")
    steps_path = folder / "steps.jsonl"
    try:
        lines = steps_path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise TrajectoryError(f"{steps_path}: cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise TrajectoryError(f"{steps_path}: not UTF-8 text (byte {err.start})") from None
    steps: List[Step] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            steps.append(_read_step(line, number, len(steps), folder, device, str(steps_path)))
    return Episode(
        path=folder.resolve(),
        task=_optional(record, "task", str, where),
        instruction=_optional(record, "instruction", str, where),
        seed=_optional(record, "seed", int, where),
        device=device,
        success=success,
        steps=tuple(steps),
        record=record,
    )


def episodes(path: PathLike) -> List[Episode]:
    """The episodes in `path`: an episode folder (it holds ``episode.json``) or a folder of them,
    in name order. Malformed files raise `TrajectoryError` naming the file and line.

    >>> episodes("/nonexistent")
    Traceback (most recent call last):
    ...
    phoneworld.export.TrajectoryError: /nonexistent: no such folder
    """
    root = Path(path)
    if not root.is_dir():
        raise TrajectoryError(f"{root}: no such folder")
    if (root / "episode.json").exists():
        return [_read_episode(root)]
    found = []
    for child in sorted(p for p in root.iterdir() if p.is_dir()):
        if (child / "episode.json").exists():
            found.append(_read_episode(child))
        elif (child / "steps.jsonl").exists():
            raise TrajectoryError(f"{child}: steps.jsonl without episode.json (an episode that never finished?)")
    if not found:
        raise TrajectoryError(f"{root}: no episode folders (folders holding episode.json)")
    return found


# --- images ---------------------------------------------------------------------------------------


def _image_size(path: Path) -> Size:
    """(width, height) of a PNG or JPEG, read from its header."""
    try:
        with path.open("rb") as file:
            head = file.read(32)
            if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR" and len(head) >= 24:
                width, height = struct.unpack(">II", head[16:24])
                return int(width), int(height)
            if head.startswith(b"\xff\xd8"):
                return _jpeg_size(head + file.read(), path)
    except OSError as err:
        raise TrajectoryError(f"{path}: cannot read: {err.strerror or err}") from None
    raise TrajectoryError(f"{path}: not a PNG or JPEG image")


def _jpeg_size(data: bytes, path: Path) -> Size:
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            break
        marker = data[pos + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        # Start-of-frame markers (all but DHT, JPG and DAC) carry the size.
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC) and pos + 9 <= len(data):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return int(width), int(height)
        pos += 2 + length
    raise TrajectoryError(f"{path}: JPEG without a frame header")


# --- samples --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One fine-tuning sample: a step of an episode as chat messages and the images they refer to."""

    episode: str
    step: int
    task: Optional[str]
    instruction: str
    #: [{"role": "system"|"user"|"assistant", "content": str}]; user content holds one "<image>" per image.
    messages: List[Dict[str, str]]
    images: List[Path]
    #: The canonical action the assistant message writes.
    action: Dict[str, Any]


IMAGE_TAG = "<image>"


def _as_text(rendered: Union[str, Dict[str, Any]]) -> str:
    return rendered if isinstance(rendered, str) else json.dumps(rendered, ensure_ascii=False)


def _history_line(rendered: Union[str, Dict[str, Any]]) -> str:
    """A rendered action on one line: tool calls as name({arguments}), UI-TARS calls without 'Action: '."""
    if isinstance(rendered, dict):
        return json.dumps(rendered, ensure_ascii=False)
    if "<tool_call>" in rendered:
        calls = []
        for block in rendered.split("<tool_call>")[1:]:
            call = json.loads(block.split("</tool_call>")[0])
            calls.append(f"{call['name']}({json.dumps(call['arguments'], ensure_ascii=False)})")
        return "; ".join(calls)
    return rendered.replace("Action: ", "", 1).replace("\n\n", "; ")


@dataclass(frozen=True)
class _Options:
    fmt: str
    history_images: int
    system_prompt: Optional[str]
    screen: Optional[Size]
    coords: Optional[str]
    image_size: Optional[Size]
    variant: Optional[str]
    strict: bool
    skip_unrepresentable: bool


def _check_options(options: _Options) -> None:
    if options.fmt not in actions.FORMATS:
        raise TrajectoryError(f"fmt must be one of {', '.join(actions.FORMATS)}, not {options.fmt!r}")
    if not isinstance(options.history_images, int) or isinstance(options.history_images, bool) or options.history_images < 1:
        raise TrajectoryError(f"history_images must be an integer of at least 1 (the current screenshot), not {options.history_images!r}")


def _episode_samples(episode: Episode, options: _Options) -> Iterator[Sample]:
    if episode.instruction is None:
        raise TrajectoryError(f"{episode.path / 'episode.json'}: no instruction (a `phoneworld run` trajectory plays no task)")
    screen = options.screen or episode.device
    history: List[str] = []
    for step in episode.steps:
        where = f"{episode.path / 'steps.jsonl'}:{step.index + 1}"
        if step.image is None:
            raise TrajectoryError(f"{where}: no screenshot (record with images to export)")
        image_size = options.image_size
        coords = options.coords or actions.default_coords(options.fmt)
        if image_size is None and coords == "resized":
            width, height = _image_size(step.image)
            resized_h, resized_w = actions.smart_resize(height, width)
            image_size = (resized_w, resized_h)
        try:
            rendered: Optional[Union[str, Dict[str, Any]]] = actions.render(
                step.action,
                options.fmt,
                screen=screen,
                coords=coords,
                image_size=image_size,
                strict=options.strict,
                variant=options.variant,
            )
        except ActionError as err:
            if not options.skip_unrepresentable:
                raise TrajectoryError(f"{where}: {err} (pass skip_unrepresentable=True to leave such steps out)") from None
            rendered = None
        if rendered is not None:
            yield _sample(episode, step, rendered, history, options, screen, coords, image_size)
            history.append(_history_line(rendered))
        else:
            history.append(json.dumps(step.action, ensure_ascii=False))


def _sample(
    episode: Episode,
    step: Step,
    rendered: Union[str, Dict[str, Any]],
    history: Sequence[str],
    options: _Options,
    screen: Size,
    coords: str,
    image_size: Optional[Size],
) -> Sample:
    assert episode.instruction is not None and step.image is not None
    earlier = (
        [s for s in episode.steps[: step.index] if s.image is not None][-(options.history_images - 1) :]
        if options.history_images > 1
        else []
    )
    with_image = {s.index for s in earlier}
    lines = []
    for index, text in enumerate(history):
        lines.append(f"Step {index + 1}: {IMAGE_TAG + ' ' if index in with_image else ''}{text}")
    user = f"# Instruction\n{episode.instruction}\n\n# Previous actions\n" + ("\n".join(lines) if lines else "None")
    user += f"\n\n# Current screen\n{IMAGE_TAG}"
    answer = _as_text(rendered)
    for text in (episode.instruction, answer, *history):
        if IMAGE_TAG in text:
            raise TrajectoryError(
                f"{episode.path / 'steps.jsonl'}:{step.index + 1}: the text {text!r:.60} holds {IMAGE_TAG}, which marks images"
            )
    messages = []
    system = options.system_prompt
    if system is None:
        system = actions.system_prompt(options.fmt, screen=screen, coords=coords, image_size=image_size, variant=options.variant)
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": user})
    messages.append({"role": "assistant", "content": answer})
    images = [s.image for s in earlier if s.image is not None] + [step.image]
    return Sample(
        episode=episode.name,
        step=step.index,
        task=episode.task,
        instruction=episode.instruction,
        messages=messages,
        images=images,
        action=step.action,
    )


def samples(
    src: PathLike,
    *,
    fmt: str = "phonebuddy",
    history_images: int = 1,
    system_prompt: Optional[str] = None,
    screen: Optional[Size] = None,
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    variant: Optional[str] = None,
    strict: bool = False,
    skip_unrepresentable: bool = False,
) -> Iterator[Sample]:
    """One `Sample` per recorded step of every episode in `src`.

    The user message holds the instruction, the previous actions (written in `fmt`, one line each),
    the screenshots of the last ``history_images - 1`` previous steps beside their lines, and the
    current screenshot; the assistant message is the step's action rendered in `fmt` (see
    `phoneworld.actions.render`; `coords`, `image_size`, `variant` and `strict` are passed on, and
    `screen` overrides each episode's device size). With the ``resized`` frame and no `image_size`,
    coordinates are in the smart-resized size of each stored screenshot, the image the model sees.
    `system_prompt` None writes `phoneworld.actions.system_prompt` for the format, "" no system message.
    A step whose action the format cannot express raises `TrajectoryError` unless
    `skip_unrepresentable` (then it is left out, and its action appears in the history as canonical JSON).
    """
    options = _Options(fmt, history_images, system_prompt, screen, coords, image_size, variant, strict, skip_unrepresentable)
    _check_options(options)
    for episode in episodes(src):
        yield from _episode_samples(episode, options)


# --- writers --------------------------------------------------------------------------------------


def _dataset_entry(file_name: str, system: bool) -> Dict[str, Any]:
    tags = {"role_tag": "role", "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"}
    if system:
        tags["system_tag"] = "system"
    return {"file_name": file_name, "formatting": "sharegpt", "columns": {"messages": "messages", "images": "images"}, "tags": tags}


def to_llamafactory(
    src: PathLike,
    out_json: PathLike,
    *,
    fmt: str = "phonebuddy",
    history_images: int = 1,
    system_prompt: Optional[str] = None,
    screen: Optional[Size] = None,
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    variant: Optional[str] = None,
    strict: bool = False,
    skip_unrepresentable: bool = False,
    dataset_name: Optional[str] = None,
) -> Path:
    """Writes LLaMA-Factory's multimodal ShareGPT JSON: a list of ``{"messages": [{"role", "content"}],
    "images": [absolute paths]}``, one sample per step (see `samples` for the options), and adds the
    dataset's entry (named `dataset_name`, by default the file's stem) to ``dataset_info.json`` beside
    it, keeping the entries already there. Returns the path written."""
    out = Path(out_json)
    rows = []
    for sample in samples(
        src,
        fmt=fmt,
        history_images=history_images,
        system_prompt=system_prompt,
        screen=screen,
        coords=coords,
        image_size=image_size,
        variant=variant,
        strict=strict,
        skip_unrepresentable=skip_unrepresentable,
    ):
        rows.append({"messages": sample.messages, "images": [str(p) for p in sample.images]})
    info_path = out.parent / "dataset_info.json"
    info: Dict[str, Any] = _read_json_object(info_path) if info_path.exists() else {}
    info[dataset_name or out.stem] = _dataset_entry(out.name, system_prompt != "")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        info_path.write_text(json.dumps(info, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    except OSError as err:
        raise TrajectoryError(f"{out}: cannot write: {err.strerror or err}") from None
    return out


def to_parquet(
    src: PathLike,
    out_path: PathLike,
    *,
    fmt: str = "phonebuddy",
    history_images: int = 1,
    system_prompt: Optional[str] = None,
    screen: Optional[Size] = None,
    coords: Optional[str] = None,
    image_size: Optional[Size] = None,
    variant: Optional[str] = None,
    strict: bool = False,
    skip_unrepresentable: bool = False,
) -> Path:
    """Writes a Parquet table, one row per step (see `samples` for the options): ``messages``
    (list<struct<role: string, content: string>>), ``images`` (list<struct<bytes: binary, path:
    string>>, the layout of Hugging Face datasets' Image feature; paths are relative to `src`),
    ``episode``, ``step``, ``task``, ``instruction`` and ``action`` (the canonical action as JSON).
    Load it with ``datasets.load_dataset("parquet", data_files=...)`` and
    ``.cast_column("images", Sequence(Image()))`` to get PIL images. Needs pyarrow
    (``pip install phoneworld[parquet]``). Returns the path written."""
    try:
        import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
        import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        raise MissingDependencyError("to_parquet needs pyarrow: pip install phoneworld[parquet]") from None
    root = Path(src).resolve()
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema(
        [
            ("messages", pa.list_(message)),
            ("images", pa.list_(image)),
            ("episode", pa.string()),
            ("step", pa.int64()),
            ("task", pa.string()),
            ("instruction", pa.string()),
            ("action", pa.string()),
        ]
    )
    out = Path(out_path)
    columns: Dict[str, List[Any]] = {name: [] for name in schema.names}
    for sample in samples(
        src,
        fmt=fmt,
        history_images=history_images,
        system_prompt=system_prompt,
        screen=screen,
        coords=coords,
        image_size=image_size,
        variant=variant,
        strict=strict,
        skip_unrepresentable=skip_unrepresentable,
    ):
        shots = []
        for path in sample.images:
            try:
                data = path.read_bytes()
            except OSError as err:
                raise TrajectoryError(f"{path}: cannot read: {err.strerror or err}") from None
            shots.append({"bytes": data, "path": _relative(path, root)})
        columns["messages"].append(sample.messages)
        columns["images"].append(shots)
        columns["episode"].append(sample.episode)
        columns["step"].append(sample.step)
        columns["task"].append(sample.task)
        columns["instruction"].append(sample.instruction)
        columns["action"].append(json.dumps(sample.action, ensure_ascii=False))
    table = pa.Table.from_pydict(columns, schema=schema)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, out)
    except OSError as err:
        raise TrajectoryError(f"{out}: cannot write: {err}") from None
    return out


def _relative(path: Path, root: Path) -> str:
    base = root if root.is_dir() else root.parent
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()
