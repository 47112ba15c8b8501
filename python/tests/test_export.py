"""Reading recorded trajectories and exporting them as LLaMA-Factory JSON and Parquet.

fixtures/rollouts is real `phoneworld rollouts` output: the chat_send_message template, seed 0, played
by the oracle with 135x300 PNG screenshots (`phoneworld rollouts --suite-dir DIR --suite mini
--image-format png --image-size 135x300`, DIR/mini holding a copy of that template).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from phoneworld import actions, export
from phoneworld._core import PhoneWorldError

FIXTURE = Path(__file__).parent / "fixtures" / "rollouts"
EPISODE = FIXTURE / "chat_send_message-0"
ROOT = Path(__file__).resolve().parents[2]


def test_reads_a_rollouts_folder_and_an_episode_folder() -> None:
    [episode] = export.episodes(FIXTURE)
    assert export.episodes(EPISODE)[0] == episode
    assert episode.name == "chat_send_message-0"
    assert episode.task == "chat_send_message"
    assert episode.instruction == 'In Chatly, send "Can we move it to tomorrow?" to Priya Nair.'
    assert episode.device == (1080, 2400) and episode.seed == 0 and episode.success is True
    assert [s.action["type"] for s in episode.steps] == ["open_app", "tap", "tap", "type_text", "tap"]
    # Recorded coordinates are floats in device pixels; read back they are whole pixels.
    assert episode.steps[1].action == {"type": "tap", "x": 95, "y": 715}
    assert episode.steps[3].action == {"type": "type_text", "text": "Can we move it to tomorrow?", "clear": True}
    assert all(s.image is not None and s.image.is_file() for s in episode.steps)
    assert episode.steps[0].package == "com.phoneworld.launcher" and episode.steps[1].package == "com.phoneworld.chat"
    assert episode.steps[2].ui_elements and "bbox_pixels" in episode.steps[2].ui_elements[0]


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "runs" / EPISODE.name
    shutil.copytree(EPISODE, target)
    return target


def _rewrite_line(episode: Path, number: int, change: Any) -> None:
    path = episode / "steps.jsonl"
    lines = path.read_text().splitlines()
    lines[number - 1] = change(lines[number - 1])
    path.write_text("\n".join(lines) + "\n")


MALFORMED = [
    (lambda e: _rewrite_line(e, 2, lambda line: line[:-5]), "steps.jsonl:2: not JSON"),
    (
        lambda e: _rewrite_line(e, 3, lambda line: line.replace('"type":"tap"', '"type":"poke"')),
        "steps.jsonl:3: action: canonical: type must be one of",
    ),
    (lambda e: _rewrite_line(e, 4, lambda line: line.replace('"step":3', '"step":7')), "steps.jsonl:4: step is 7, expected 3"),
    (
        lambda e: _rewrite_line(e, 2, lambda line: line.replace('"x":94.5', '"x":5000')),
        "steps.jsonl:2: action: canonical: tap: x coordinate 5000 outside 0..1080",
    ),
    (lambda e: (e / "step_00002.png").unlink(), "steps.jsonl:3: image step_00002.png does not exist"),
    (lambda e: (e / "episode.json").write_text('{"task": "x"}'), "episode.json: device (width, height) is missing"),
    (lambda e: (e / "episode.json").write_text("[1, 2]"), "episode.json: expected a JSON object, not list"),
    (
        lambda e: (e / "episode.json").write_text('{"device": {"width": 1080, "height": 2400}, "seed": "zero"}'),
        "episode.json: seed must be a int",
    ),
    (lambda e: (e / "episode.json").unlink(), "steps.jsonl without episode.json"),
]


@pytest.mark.parametrize("damage, message", MALFORMED, ids=[m for _, m in MALFORMED])
def test_malformed_trajectories_name_the_file_and_line(tmp_path: Path, damage: Any, message: str) -> None:
    episode = _copy(tmp_path)
    damage(episode)
    with pytest.raises(export.TrajectoryError) as raised:
        export.episodes(episode.parent)
    assert message in str(raised.value)
    assert isinstance(raised.value, PhoneWorldError)


def test_empty_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(export.TrajectoryError, match="no episode folders"):
        export.episodes(tmp_path)


def _load(path: Path) -> List[Dict[str, Any]]:
    rows = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(rows, list)
    return rows


@pytest.mark.parametrize("fmt", actions.FORMATS)
def test_llamafactory_json_has_one_sample_per_step(tmp_path: Path, fmt: str) -> None:
    out = export.to_llamafactory(FIXTURE, tmp_path / "data" / "phone.json", fmt=fmt)
    rows = _load(out)
    [episode] = export.episodes(FIXTURE)
    assert len(rows) == len(episode.steps)
    for step, row in zip(episode.steps, rows):
        assert set(row) == {"messages", "images"}
        roles = [m["role"] for m in row["messages"]]
        assert roles == ["system", "user", "assistant"]
        tags = sum(m["content"].count("<image>") for m in row["messages"])
        assert tags == len(row["images"]) == 1
        assert row["images"] == [str(step.image)] and Path(row["images"][0]).is_absolute()
        assert episode.instruction is not None and episode.instruction in row["messages"][1]["content"]
        # The answer is the step's action in the format (clear is dropped where a format has no flag).
        answer = row["messages"][2]["content"]
        # qwen25vl's frame is the smart-resized stored screenshot (135x300 -> 140x308).
        image_size = (140, 308) if fmt == "qwen25vl" else None
        parsed = actions.parse_steps(answer if fmt not in ("canonical", "androidworld") else json.loads(answer), fmt, image_size=image_size)
        expected = step.action
        if expected["type"] == "type_text" and fmt in ("qwen25vl", "uitars"):
            expected = dict(expected, clear=False)
        if fmt == "androidworld" and expected["type"] == "type_text":
            parsed = parsed[:1]  # AndroidWorld's input_text also presses Enter
        [back] = parsed
        for key, value in expected.items():
            if isinstance(value, int) and key != "ms":
                extent = {"qwen25vl": (140, 308)}.get(fmt, (1000, 1000) if fmt in ("phonebuddy", "uitars") else (1080, 2400))
                axis = 0 if key.startswith("x") else 1
                assert abs(back[key] - value) <= (1080, 2400)[axis] / extent[axis] / 2 + 0.5, (fmt, key, back, expected)
            else:
                assert back[key] == value
    info = json.loads((tmp_path / "data" / "dataset_info.json").read_text())
    assert info == {
        "phone": {
            "file_name": "phone.json",
            "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images"},
            "tags": {
                "role_tag": "role",
                "content_tag": "content",
                "user_tag": "user",
                "assistant_tag": "assistant",
                "system_tag": "system",
            },
        }
    }


def test_history_lists_previous_actions_and_images(tmp_path: Path) -> None:
    out = export.to_llamafactory(FIXTURE, tmp_path / "gui.json", fmt="uitars", history_images=3, system_prompt="")
    rows = _load(out)
    assert [len(r["images"]) for r in rows] == [1, 2, 3, 3, 3]
    for row in rows:
        assert [m["role"] for m in row["messages"]] == ["user", "assistant"]
        assert row["messages"][0]["content"].count("<image>") == len(row["images"])
    last = rows[4]["messages"][0]["content"]
    assert "Step 1: open_app(app_name='Chatly')" in last
    assert "Step 3: <image> click(start_box=" in last and "Step 2: <image> click" not in last
    assert "Step 4: <image> type(content='Can we move it to tomorrow?')" in last
    assert last.endswith("# Current screen\n<image>")
    assert "# Previous actions\nNone" in rows[0]["messages"][0]["content"]
    images = [str(s.image) for s in export.episodes(FIXTURE)[0].steps]
    assert rows[4]["images"] == images[2:5]


def test_tool_call_history_is_one_line_per_step(tmp_path: Path) -> None:
    rows = _load(export.to_llamafactory(FIXTURE, tmp_path / "pb.json", fmt="phonebuddy"))
    user = rows[2]["messages"][1]["content"]
    assert 'Step 1: open_app({"package": "Chatly"})' in user
    assert 'Step 2: click({"points": [[88, 298]]})' in user


def test_dataset_info_keeps_other_entries(tmp_path: Path) -> None:
    (tmp_path / "dataset_info.json").write_text(json.dumps({"mine": {"file_name": "mine.json"}}))
    export.to_llamafactory(FIXTURE, tmp_path / "a.json", dataset_name="phone_a", system_prompt="")
    info = json.loads((tmp_path / "dataset_info.json").read_text())
    assert list(info) == ["mine", "phone_a"]
    assert "system_tag" not in info["phone_a"]["tags"]


def test_resized_frame_uses_the_stored_screenshot_size(tmp_path: Path) -> None:
    # The screenshots are 135x300; Qwen2.5-VL sees them resized to smart_resize(300, 135) = (308, 140).
    assert actions.smart_resize(300, 135) == (308, 140)
    rows = _load(export.to_llamafactory(FIXTURE, tmp_path / "q.json", fmt="qwen25vl"))
    answer = rows[1]["messages"][2]["content"]
    assert '"coordinate": [12, 92]' in answer  # (95, 715) of 1080x2400 in 140x308
    assert "The screen's resolution is 140x308." in rows[1]["messages"][0]["content"]
    explicit = _load(export.to_llamafactory(FIXTURE, tmp_path / "q2.json", fmt="qwen25vl", image_size=(1092, 2408)))
    assert '"coordinate": [96, 717]' in explicit[1]["messages"][2]["content"]


def _synthetic(tmp_path: Path, records: List[Dict[str, Any]], instruction: Optional[str] = "Drag the pin") -> Path:
    folder = tmp_path / "synthetic-0"
    folder.mkdir()
    meta: Dict[str, Any] = {"task": "maps_pin", "device": {"width": 1080, "height": 2400}}
    if instruction is not None:
        meta["instruction"] = instruction
    (folder / "episode.json").write_text(json.dumps(meta))
    for i, _ in enumerate(records):
        shutil.copy(EPISODE / "step_00000.png", folder / f"step_{i:05}.png")
    lines = [json.dumps({"step": i, "action": a, "image": f"step_{i:05}.png"}) for i, a in enumerate(records)]
    (folder / "steps.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_unrepresentable_steps_raise_or_are_skipped(tmp_path: Path) -> None:
    folder = _synthetic(
        tmp_path,
        [
            {"type": "drag", "x1": 100, "y1": 200, "x2": 900, "y2": 200},
            {"type": "finish", "status": "success"},
        ],
    )
    with pytest.raises(export.TrajectoryError, match=r"steps.jsonl:1: androidworld cannot express drag.*skip_unrepresentable=True"):
        export.to_llamafactory(folder, tmp_path / "aw.json", fmt="androidworld")
    rows = _load(export.to_llamafactory(folder, tmp_path / "aw.json", fmt="androidworld", skip_unrepresentable=True))
    assert len(rows) == 1
    assert json.loads(rows[0]["messages"][2]["content"]) == {"action_type": "status", "goal_status": "complete"}
    assert 'Step 1: {"type": "drag"' in rows[0]["messages"][1]["content"]


def test_trajectory_without_instruction_or_images_cannot_be_exported(tmp_path: Path) -> None:
    folder = _synthetic(tmp_path, [{"type": "wait", "ms": 1000}], instruction=None)
    with pytest.raises(export.TrajectoryError, match="episode.json: no instruction"):
        export.to_llamafactory(folder, tmp_path / "x.json")
    meta = json.loads((folder / "episode.json").read_text())
    (folder / "episode.json").write_text(json.dumps(dict(meta, instruction="Wait")))
    (folder / "steps.jsonl").write_text(json.dumps({"step": 0, "action": {"type": "wait", "ms": 1000}, "image": None}) + "\n")
    with pytest.raises(export.TrajectoryError, match="steps.jsonl:1: no screenshot"):
        export.to_llamafactory(folder, tmp_path / "x.json")


def test_image_tags_in_text_are_refused(tmp_path: Path) -> None:
    folder = _synthetic(tmp_path, [{"type": "wait", "ms": 1000}], instruction="Describe the <image> on screen")
    with pytest.raises(export.TrajectoryError, match="holds <image>"):
        export.to_llamafactory(folder, tmp_path / "x.json")


def test_bad_options(tmp_path: Path) -> None:
    with pytest.raises(export.TrajectoryError, match="history_images must be an integer of at least 1"):
        export.to_llamafactory(FIXTURE, tmp_path / "x.json", history_images=0)
    with pytest.raises(export.TrajectoryError, match="fmt must be one of"):
        export.to_llamafactory(FIXTURE, tmp_path / "x.json", fmt="cogagent")


def test_parquet_table(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = export.to_parquet(FIXTURE, tmp_path / "phone.parquet", fmt="uitars", history_images=2)
    table = pq.read_table(out)
    assert table.num_rows == 5
    assert str(table.schema.field("messages").type) == "list<element: struct<role: string, content: string>>"
    assert str(table.schema.field("images").type) == "list<element: struct<bytes: binary, path: string>>"
    rows = table.to_pylist()
    reference = list(export.samples(FIXTURE, fmt="uitars", history_images=2))
    for row, sample in zip(rows, reference):
        assert row["messages"] == sample.messages
        assert [i["bytes"] for i in row["images"]] == [p.read_bytes() for p in sample.images]
        assert row["images"][-1]["path"] == f"chat_send_message-0/step_{sample.step:05}.png"
        assert (row["episode"], row["step"], row["task"]) == ("chat_send_message-0", sample.step, "chat_send_message")
        assert json.loads(row["action"]) == sample.action
    assert [len(r["images"]) for r in rows] == [1, 2, 2, 2, 2]


def test_parquet_without_pyarrow_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(export.MissingDependencyError, match=r"pip install phoneworld\[parquet\]") as raised:
        export.to_parquet(FIXTURE, tmp_path / "x.parquet")
    assert isinstance(raised.value, PhoneWorldError)


def _cli() -> Optional[Path]:
    configured = os.environ.get("PHONEWORLD_BIN")
    candidates = (
        [Path(configured)] if configured else [ROOT / "target" / "release" / "phoneworld", ROOT / "target" / "debug" / "phoneworld"]
    )
    return next((c for c in candidates if c.is_file()), None)


def test_reads_what_the_cli_writes(tmp_path: Path) -> None:
    """`phoneworld run --out-dir` at a small device size: read back, frames in that device's pixels."""
    cli = _cli()
    if cli is None:
        pytest.skip("no phoneworld binary (cargo build -p phoneworld-cli, or set PHONEWORLD_BIN)")
    script = tmp_path / "actions.jsonl"
    script.write_text('{"type": "open_app", "app": "Clock"}\n{"type": "tap", "x": 135, "y": 300}\n{"type": "key", "key": "back"}\n')
    run = subprocess.run(
        [str(cli), "run", "--size", "270x600", "--actions", str(script), "--out-dir", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    [episode] = export.episodes(tmp_path / "run")
    assert episode.device == (270, 600) and episode.instruction is None and episode.task is None
    assert [s.action for s in episode.steps] == [
        {"type": "open_app", "app": "Clock"},
        {"type": "tap", "x": 135, "y": 300},
        {"type": "key", "key": "back"},
    ]
    assert export._image_size(episode.steps[0].image or Path()) == (270, 600)
    with pytest.raises(export.TrajectoryError, match="no instruction"):
        export.to_llamafactory(tmp_path / "run", tmp_path / "x.json")


def test_jpeg_screenshots_are_measured(tmp_path: Path) -> None:
    # A baseline JPEG header: SOI, an APP0 segment, then SOF0 with height 600 and width 270.
    data = b"\xff\xd8" + b"\xff\xe0\x00\x04ab" + b"\xff\xc0\x00\x0b\x08\x02\x58\x01\x0e\x01\x01\x11\x00" + b"\xff\xd9"
    path = tmp_path / "shot.jpg"
    path.write_bytes(data)
    assert export._image_size(path) == (270, 600)
    path.write_bytes(b"GIF89a")
    with pytest.raises(export.TrajectoryError, match="not a PNG or JPEG"):
        export._image_size(path)
