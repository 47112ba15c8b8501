"""serve-http throughput, measured side by side in one run.

    .venv/bin/python python/bench/http_bench.py                      # ~2.5 minutes
    .venv/bin/python python/bench/http_bench.py --quick              # ~10 s smoke run
    .venv/bin/python python/bench/http_bench.py --json out/http_bench.json

One step is an action and a screenshot, from a mix of actions in which every step changes the screen
(so no screenshot is a cached one; `check_mix` makes sure before measuring):

(a) in-process: `Phone.step` + `screenshot()` (and + `screenshot_png()`, the PNG the server sends);
(b) HTTP: `POST /execute_action` + `GET /screenshot` as upstream's JSON pixels, from a
    `requests.Session` (keep-alive); the body is read, not parsed (one `json.loads` is timed apart);
(c) the same with `format=png`;
(d) scaling: 1 device, then 8 devices of one server, PNG screenshots, each device driven by its own
    client process over one keep-alive connection. The clients are raw-socket HTTP/1.1: they read the
    status line and Content-Length and discard the body, so what is measured is the server.

The server is `phoneworld.serve_http` in a child process of its own, so neither the GIL nor the
clients' work share its process. Each measurement runs for a fixed time after a warm-up. Client CPU
seconds (user + system, of the processes that drive it) stand next to the wall time, and the server's
CPU seconds over the same span, to show who was busy. Other work on the machine skews the scaling
rows most: the header gives the load average, and the CPU other processes used during (d) is shown.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import socket
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

# The action mix: every step changes the screen (checked by `check_mix`), so no screenshot is served
# from a cache. (bench.py's mix scrolls the Settings list, which now fits on the screen: its two
# swipes change nothing.) The same actions as canonical actions (in-process) and JSON actions.
MIX: List[Dict[str, Any]] = [
    {"type": "open_app", "app": "Contacts"},
    {"type": "swipe", "x1": 540, "y1": 1900, "x2": 540, "y2": 900, "ms": 300},
    {"type": "swipe", "x1": 540, "y1": 900, "x2": 540, "y2": 1900, "ms": 300},
    {"type": "open_app", "app": "Settings"},
    {"type": "tap", "x": 540, "y": 700},
    {"type": "key", "key": "back"},
    {"type": "open_app", "app": "Clock"},
    {"type": "tap", "x": 405, "y": 2180},
    {"type": "tap", "x": 135, "y": 2180},
    {"type": "key", "key": "home"},
]
JSON_MIX: List[Dict[str, Any]] = [
    {"action_type": "open_app", "app_name": "Contacts"},
    {"action_type": "scroll", "x": 540, "y": 1900, "x2": 540, "y2": 900, "duration": 300},
    {"action_type": "scroll", "x": 540, "y": 900, "x2": 540, "y2": 1900, "duration": 300},
    {"action_type": "open_app", "app_name": "Settings"},
    {"action_type": "click", "x": 540, "y": 700},
    {"action_type": "navigate_back"},
    {"action_type": "open_app", "app_name": "Clock"},
    {"action_type": "click", "x": 405, "y": 2180},
    {"action_type": "click", "x": 135, "y": 2180},
    {"action_type": "navigate_home"},
]
SCALE_DEVICES = 8


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


def machine_busy_seconds() -> Optional[float]:
    """CPU seconds every process of the machine has used (Linux /proc/stat), to tell how much of the
    CPU went to other work during a measurement; None elsewhere."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal ...
    ticks = [int(v) for v in fields[1:9]]
    busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
    return busy / os.sysconf("SC_CLK_TCK")


def check_mix() -> None:
    """Every action of the mix changes the frame, over several rounds."""
    import phoneworld

    phone = phoneworld.Phone(seed=0)
    previous = phone.frame_hash()
    for i in range(3 * len(MIX)):
        outcome = phone.step(MIX[i % len(MIX)])
        now = phone.frame_hash()
        if now == previous or not outcome.get("ok"):
            raise SystemExit(f"the bench's action mix is stale: step {i} {MIX[i % len(MIX)]} changes nothing ({outcome.get('note')})")
        previous = now


# --- the server, in a process of its own ---------------------------------------------------------------


def _server_main(conn: Any, devices: int, threads: int) -> None:
    import phoneworld

    server = phoneworld.serve_http(devices=devices, threads=threads)
    conn.send(server.url)
    while True:
        message = conn.recv()
        if message == "cpu":
            conn.send(cpu_seconds())
        elif message == "log":
            conn.send(server.log())
        else:
            break
    server.close()
    conn.send("closed")


class ServerProcess:
    def __init__(self, devices: int, threads: int) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_server_main, args=(child, devices, threads), name="phoneworld-serve-http", daemon=True)
        self.process.start()
        if not self.conn.poll(60):
            raise RuntimeError("the server process did not start within 60 s")
        self.url: str = self.conn.recv()
        host, port = self.url.split("//", 1)[1].split(":")
        self.host, self.port = host, int(port)

    def cpu(self) -> float:
        self.conn.send("cpu")
        return float(self.conn.recv())

    def log(self) -> List[str]:
        self.conn.send("log")
        return list(self.conn.recv())

    def close(self) -> None:
        try:
            self.conn.send("stop")
            self.conn.poll(10)
        finally:
            self.process.join(10)
            if self.process.is_alive():
                self.process.terminate()


# --- (a) in-process ------------------------------------------------------------------------------------


def in_process(seconds: float, warmup: float, png: bool) -> Dict[str, Any]:
    import phoneworld

    phone = phoneworld.Phone(seed=0)
    shot = phone.screenshot_png if png else phone.screenshot
    deadline = time.perf_counter() + warmup
    i = 0
    while time.perf_counter() < deadline or i < len(MIX):
        phone.step(MIX[i % len(MIX)])
        shot()
        i += 1
    steps, cpu0, start = 0, cpu_seconds(), time.perf_counter()
    while True:
        phone.step(MIX[(i + steps) % len(MIX)])
        image = shot()
        steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    size = len(image) if isinstance(image, bytes) else int(image.nbytes)
    return {"steps": steps, "wall_s": elapsed, "client_cpu_s": cpu_seconds() - cpu0, "bytes_per_screenshot": size, "requests": 0}


# --- (b), (c) requests.Session -------------------------------------------------------------------------


def via_requests(server: ServerProcess, seconds: float, warmup: float, png: bool) -> Dict[str, Any]:
    import requests

    base = server.url + "/emu0"
    params = {"wait_to_stabilize": "false", "format": "png"} if png else {"wait_to_stabilize": "false"}
    errors = 0
    last = b""
    with requests.Session() as session:

        def step(i: int) -> int:
            nonlocal last, errors
            a = session.post(base + "/execute_action", json=JSON_MIX[i % len(JSON_MIX)])
            s = session.get(base + "/screenshot", params=params)
            errors += (a.status_code != 200) + (s.status_code != 200)
            last = s.content
            return len(last)

        deadline = time.perf_counter() + warmup
        i = 0
        while time.perf_counter() < deadline or i < 2:
            step(i)
            i += 1
        steps, cpu0, server0, start = 0, cpu_seconds(), server.cpu(), time.perf_counter()
        size = 0
        while True:
            size = step(i + steps)
            steps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        client_cpu, server_cpu = cpu_seconds() - cpu0, server.cpu() - server0
    result: Dict[str, Any] = {
        "steps": steps,
        "wall_s": elapsed,
        "client_cpu_s": client_cpu,
        "server_cpu_s": server_cpu,
        "bytes_per_screenshot": size,
        "requests": 2 * steps,
        "errors": errors,
    }
    if not png:
        start = time.perf_counter()
        pixels = json.loads(last)["pixels"]
        result["client_json_loads_s"] = time.perf_counter() - start
        result["shape"] = [len(pixels), len(pixels[0]), len(pixels[0][0])]
    return result


# --- (d) raw-socket load generator ---------------------------------------------------------------------


class RawClient:
    """HTTP/1.1 over one keep-alive socket: sends a prepared request, reads the status line and the
    headers, and discards Content-Length bytes of body."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.pending = bytearray()
        self.scratch = memoryview(bytearray(1 << 20))

    def request(self, raw: bytes) -> Tuple[int, int]:
        """(status, body length)."""
        self.sock.sendall(raw)
        while True:
            end = self.pending.find(b"\r\n\r\n")
            if end >= 0:
                break
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.pending += chunk
        head = bytes(self.pending[:end])
        del self.pending[: end + 4]
        status = int(head[9:12])
        length = -1
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length < 0:
            raise ConnectionError(f"no Content-Length in the reply: {head[:200]!r}")
        buffered = min(length, len(self.pending))
        del self.pending[:buffered]
        remaining = length - buffered
        while remaining:
            n = self.sock.recv_into(self.scratch, min(remaining, len(self.scratch)))
            if n == 0:
                raise ConnectionError("the server closed the connection mid-body")
            remaining -= n
        return status, length

    def close(self) -> None:
        self.sock.close()


def _raw_requests(host: str, device: int) -> Tuple[List[bytes], bytes]:
    actions = []
    for action in JSON_MIX:
        body = json.dumps(action).encode()
        actions.append(
            f"POST /emu{device}/execute_action HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
    shot = f"GET /emu{device}/screenshot?wait_to_stabilize=false&format=png HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    return actions, shot


def _load_main(host: str, port: int, device: int, warmup: float, seconds: float, barrier: Any, results: Any) -> None:
    client = RawClient(host, port)
    actions, shot = _raw_requests(host, device)
    errors = size = 0
    i = 0

    def step() -> None:
        nonlocal errors, size, i
        status_a, _ = client.request(actions[i % len(actions)])
        status_s, size = client.request(shot)
        errors += (status_a != 200) + (status_s != 200)
        i += 1

    deadline = time.perf_counter() + warmup
    while time.perf_counter() < deadline or i < 2:
        step()
    barrier.wait()
    steps, cpu0, start = 0, cpu_seconds(), time.perf_counter()
    while True:
        step()
        steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    results.put({"device": device, "steps": steps, "wall_s": elapsed, "cpu_s": cpu_seconds() - cpu0, "errors": errors, "bytes": size})
    client.close()


def scaling(server: ServerProcess, devices: int, seconds: float, warmup: float) -> Dict[str, Any]:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(devices + 1)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_load_main, args=(server.host, server.port, d, warmup, seconds, barrier, results), name=f"load-{d}")
        for d in range(devices)
    ]
    for p in procs:
        p.start()
    barrier.wait(timeout=120)
    server0, machine0, start = server.cpu(), machine_busy_seconds(), time.perf_counter()
    per_client = [results.get(timeout=seconds + 120) for _ in procs]
    wall = time.perf_counter() - start
    server_cpu = server.cpu() - server0
    machine1 = machine_busy_seconds()
    for p in procs:
        p.join(30)
    steps = sum(r["steps"] for r in per_client)
    # Each client counted its steps over the same span from the same start; steps/s is their sum
    # over the span (the longest client's, which ends with its last step).
    span = max(r["wall_s"] for r in per_client)
    client_cpu = sum(r["cpu_s"] for r in per_client)
    other = None if machine0 is None or machine1 is None else max(0.0, machine1 - machine0 - server_cpu - client_cpu)
    return {
        "devices": devices,
        "steps": steps,
        "wall_s": span,
        "client_cpu_s": client_cpu,
        "server_cpu_s": server_cpu,
        "server_cpu_wall_s": wall,
        # CPU the rest of the machine used meanwhile (other processes; ~0 on an idle machine).
        "other_cpu_s": other,
        "bytes_per_screenshot": per_client[0]["bytes"],
        "requests": 2 * steps,
        "errors": sum(r["errors"] for r in per_client),
        "per_device_steps": [r["steps"] for r in sorted(per_client, key=lambda r: r["device"])],
    }


# --- report --------------------------------------------------------------------------------------------


def _rate(r: Dict[str, Any]) -> float:
    return float(r["steps"] / r["wall_s"]) if r["wall_s"] else 0.0


def table(results: Dict[str, Any]) -> str:
    env = results["environment"]
    rows = [
        ("a", "Phone.step + screenshot() in-process (numpy)"),
        ("a_png", "Phone.step + screenshot_png() in-process"),
        ("b", "HTTP action + screenshot JSON (requests, keep-alive)"),
        ("c", "HTTP action + screenshot PNG (requests, keep-alive)"),
        ("d1", "HTTP PNG, 1 device, 1 raw-socket client process"),
        (f"d{SCALE_DEVICES}", f"HTTP PNG, {SCALE_DEVICES} devices, {SCALE_DEVICES} client processes"),
    ]
    lines = [
        f"serve-http bench: {env['cpus']} CPUs, load average {env['load_before'][0]:.2f} before / {env['load_after'][0]:.2f} after "
        f"(1 min), server in its own process (threads={env['server_threads']}), {env['seconds']:g} s per row after "
        f"{env['warmup']:g} s warm-up",
        "",
        "| measurement | steps/s | HTTP req/s | ms/step | wall s | client CPU s | server CPU s | bytes/screenshot |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, label in rows:
        r = results.get(key)
        if r is None:
            continue
        rate = _rate(r)
        server = f"{r['server_cpu_s']:.2f}" if "server_cpu_s" in r else "-"
        req = f"{r['requests'] / r['wall_s']:.0f}" if r.get("requests") else "-"
        lines.append(
            f"| ({key}) {label} | {rate:.1f} | {req} | {1e3 / rate if rate else 0:.2f} | {r['wall_s']:.1f} | "
            f"{r['client_cpu_s']:.2f} | {server} | {r['bytes_per_screenshot']:,} |"
        )
    if "b" in results and "client_json_loads_s" in results["b"]:
        lines.append("")
        shape = "x".join(map(str, results["b"]["shape"]))
        lines.append(f"client json.loads of one JSON screenshot ({shape}): {results['b']['client_json_loads_s']:.2f} s (not in (b))")
    if "d1" in results and f"d{SCALE_DEVICES}" in results:
        ratio = results["scaling_ratio"]
        verdict = "meets" if ratio >= 1.6 else "misses"
        per = results[f"d{SCALE_DEVICES}"]["per_device_steps"]
        lines.append(
            f"scaling, {SCALE_DEVICES} devices vs 1: {ratio:.2f}x, the median of {len(results['scaling_ratios'])} rounds "
            f"({', '.join(f'{r:.2f}' for r in results['scaling_ratios'])}; {verdict} the 1.6x target on {env['cpus']} cores); "
            f"steps per device {min(per)}..{max(per)} in the first"
        )
    others = [(k, results[k]["other_cpu_s"]) for k in ("d1", f"d{SCALE_DEVICES}") if results.get(k, {}).get("other_cpu_s") is not None]
    if others:
        shown = ", ".join(f"({k}) {v:.1f} s of {results[k]['server_cpu_wall_s'] * env['cpus']:.0f}" for k, v in others)
        lines.append(f"CPU used by other processes during the scaling rows: {shown} CPU-seconds available")
    errors = sum(results[k].get("errors", 0) for k in results if isinstance(results[k], dict) and k != "environment")
    if errors:
        lines.append(f"WARNING: {errors} requests did not answer 200")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~10 s smoke run (1 s per row)")
    parser.add_argument("--seconds", type=float, default=None, help="measured seconds per row (default 12, quick 1)")
    parser.add_argument("--warmup", type=float, default=None, help="warm-up seconds per row (default 2, quick 0.3)")
    parser.add_argument("--threads", type=int, default=2, help="serve_http threads (HTTP answering)")
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--rounds", type=int, default=None, help="rounds of (1 device, 8 devices), alternating; the ratio is their median (default 3, quick 1)"
    )
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (1.0 if args.quick else 12.0)
    warmup = args.warmup if args.warmup is not None else (0.3 if args.quick else 2.0)

    results: Dict[str, Any] = {
        "environment": {
            "cpus": os.cpu_count(),
            "load_before": list(os.getloadavg()),
            "seconds": seconds,
            "warmup": warmup,
            "server_threads": args.threads,
            "python": sys.version.split()[0],
            "quick": args.quick,
        }
    }
    run_start = time.perf_counter()
    check_mix()
    results["a"] = in_process(seconds, warmup, png=False)
    results["a_png"] = in_process(seconds, warmup, png=True)
    server = ServerProcess(SCALE_DEVICES, args.threads)
    try:
        results["b"] = via_requests(server, seconds, warmup, png=False)
        results["c"] = via_requests(server, seconds, warmup, png=True)
        # One device's rate moves with where the scheduler puts its client and the server's
        # threads, so the two rows alternate over several rounds and the ratio is the median.
        ratios: List[float] = []
        rounds = args.rounds if args.rounds is not None else (1 if args.quick else 3)
        for _ in range(max(rounds, 1)):
            one = scaling(server, 1, seconds, warmup)
            many = scaling(server, SCALE_DEVICES, seconds, warmup)
            ratios.append(_rate(many) / _rate(one))
            if "d1" not in results:
                results["d1"], results[f"d{SCALE_DEVICES}"] = one, many
        results["server_log"] = server.log()
    finally:
        server.close()
    results["scaling_ratios"] = ratios
    results["scaling_ratio"] = sorted(ratios)[len(ratios) // 2]
    results["environment"]["load_after"] = list(os.getloadavg())
    results["environment"]["run_s"] = time.perf_counter() - run_start
    print(table(results))
    if results["server_log"]:
        print("server log:", *results["server_log"][-5:], sep="\n  ")
    print(f"(run took {results['environment']['run_s']:.0f} s)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
