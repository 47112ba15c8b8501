//! `bench_report`: measures every performance target of PhoneWorld with `std::time::Instant`
//! (median of N iterations, best median over R rounds, since the machine may be shared), runs
//! a plain memcpy of a full frame in the same process for the ratios, and prints a table.
//! This is the table the README quotes; the divan benches (`cargo bench -p phoneworld-bench`)
//! are for developers.
//!
//! `cargo run --release -p phoneworld-bench --bin report [-- --rounds R --iters N]` (`--steps`:
//! the steps without a frame only; `--loop KIND --n N`: one case's loop untimed, for `perf`)
//! (pin it to one core with `taskset -c 1` for steadier numbers; the engine is single-threaded).
//!
//! Which caches are warm in each measurement is said in its row's note:
//! - the glyph and shape-mask caches are process-wide and warm everywhere (a warm-up runs first);
//! - "step" rows: the view of the screen before the step is cached (the hit test uses it), the
//!   view after it is built from scratch (compose, flex layout, a11y), no frame. The engine's
//!   per-thread memo of laid-out text (phoneworld-layout `text_cache`) is warm (the two tabs
//!   alternate, so every text was laid out before), except in the "text cold" row, which
//!   runs each step on a fresh thread;
//! - "render" rows: the view is laid out (untimed), the frame cache is cold (the screen changed,
//!   so `frame()` rasterizes everything into the previous frame's buffer);
//! - "unchanged" rows: the view and the frame are cached; `frame()` checks the content hash
//!   and returns the `Arc`.

/// The allocator the phoneworld binary and the Python module use, so the figures are theirs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use phoneworld_bench::{
    bundled_catalog, busy_device, maps_pan_device, measure_memory, median_ns, median_timed, python_mix_device, screen_stats, scroll_device,
    switch_actions, tab_actions, thumbnails_device, typical_catalog, typical_device, typing_device, FRAME_BYTES, MIB,
};
use phoneworld_phone::{Device, Program, ScriptHost, ScriptLimits, APPS_KEPT};

enum Target {
    /// At most this many ns.
    Ns(f64),
    /// At most this many times the memcpy of a frame.
    Memcpy(f64),
    None,
}

struct Row {
    name: &'static str,
    ns: f64,
    target: Target,
    note: String,
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Best (lowest) median over `rounds` rounds.
fn best(rounds: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..rounds).map(|_| f()).fold(f64::INFINITY, f64::min)
}

/// A step up to its UI elements, the actions taken in turn: the best median of `rounds`.
fn step_to_elements(d: &mut Device, actions: &[phoneworld_data::Action], rounds: usize, iters: usize) -> f64 {
    let mut k = 0usize;
    best(rounds, || {
        median_ns(iters, 20, || {
            d.step(&actions[k % actions.len()]);
            black_box(d.ui_elements());
            k += 1;
        })
    })
}

/// A step timed in parts, best median of `rounds` rounds each: step() (hit test, Lua, store),
/// screen_hash() (compose the view tree and hash it), prepare_view() (lay it out) and
/// ui_elements() (read the laid-out tree).
fn split_step(d: &mut Device, actions: &[phoneworld_data::Action], rounds: usize, iters: usize) -> [f64; 4] {
    split_step_by(d, actions, rounds, iters, phoneworld_bench::median)
}

/// As `split_step`, with `summary` (a median, or a mean for a mix of unlike steps) over each
/// round's times.
fn split_step_by(
    d: &mut Device,
    actions: &[phoneworld_data::Action],
    rounds: usize,
    iters: usize,
    summary: fn(&mut [u128]) -> f64,
) -> [f64; 4] {
    let mut best_parts = [f64::INFINITY; 4];
    let mut k = 0usize;
    for _ in 0..rounds {
        let mut parts: [Vec<u128>; 4] = Default::default();
        for _ in 0..iters {
            let t0 = Instant::now();
            d.step(&actions[k % actions.len()]);
            let t1 = Instant::now();
            black_box(d.screen_hash());
            let t2 = Instant::now();
            d.prepare_view();
            let t3 = Instant::now();
            black_box(d.ui_elements());
            let t4 = Instant::now();
            for (p, (a, b)) in parts.iter_mut().zip([(t0, t1), (t1, t2), (t2, t3), (t3, t4)]) {
                p.push((b - a).as_nanos());
            }
            k += 1;
        }
        for (b, p) in best_parts.iter_mut().zip(&mut parts) {
            *b = b.min(summary(p));
        }
    }
    best_parts
}

/// The mean of a round's times: a mix of unlike steps costs its mean per step, as Python's
/// figures (steps over seconds) count it.
fn mean(times: &mut [u128]) -> f64 {
    times.iter().sum::<u128>() as f64 / times.len().max(1) as f64
}

fn push_split(rows: &mut Vec<Row>, parts: [f64; 4]) {
    let names = [
        ("  of which step() (hit test, Lua, store)", "view before the step cached"),
        ("  of which screen_hash() (compose)", "view tree built from the store and hashed"),
        ("  of which prepare_view() (layout)", "the composed tree laid out"),
        ("  of which ui_elements()", "view warm"),
    ];
    for ((name, note), ns) in names.into_iter().zip(parts) {
        rows.push(Row { name, ns, target: Target::None, note: note.into() });
    }
}

fn main() {
    if std::env::args().any(|a| a == "--memory-child") {
        let r = measure_memory(arg("--devices", 100), std::env::args().any(|a| a == "--trim"));
        println!("{} {} {} {}", r.devices, r.rss_before, r.rss_after, r.snapshot_bytes);
        return;
    }
    // `--loop step|toggle|scroll|type|mix|render N`: only that loop (tab switches, row toggles,
    // scrolls, typed characters, the Python bench's mix, tab switches
    // rendered), N times, untimed; for `perf record`.
    if let Some(kind) = std::env::args().skip_while(|a| a != "--loop").nth(1) {
        let n = arg(&kind, 0).max(arg("--n", 2000));
        let catalog = typical_catalog();
        let (mut d, actions) = match kind.as_str() {
            "scroll" => scroll_device(&catalog),
            "type" => typing_device(&catalog),
            "mix" => python_mix_device(&catalog),
            _ => {
                let mut d = typical_device(&catalog);
                let actions = if kind == "toggle" { switch_actions(&mut d) } else { tab_actions(&mut d).to_vec() };
                (d, actions)
            }
        };
        for i in 0..n {
            d.step(&actions[i % actions.len()]);
            black_box(d.ui_elements());
            if kind == "render" {
                black_box(d.frame());
            }
        }
        return;
    }
    let rounds = arg("--rounds", 5);
    let iters = arg("--iters", 301);
    let catalog = typical_catalog();
    let mut rows: Vec<Row> = Vec::new();

    // ------------------------------------------------------------------ memcpy of a frame
    let src = vec![0x5au8; FRAME_BYTES];
    let mut dst = vec![0u8; FRAME_BYTES];
    let memcpy = best(rounds, || {
        median_ns(iters, 5, || {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    });
    rows.push(Row {
        name: "memcpy of a 1080x2400 RGBA frame",
        ns: memcpy,
        target: Target::None,
        note: format!("{FRAME_BYTES} bytes, copy_from_slice"),
    });

    // ------------------------------------------------------------------ steps, no rendering
    let mut d = typical_device(&catalog);
    let stats = screen_stats(&mut d);
    let tabs = tab_actions(&mut d);
    let step_tabs = step_to_elements(&mut d, &tabs, rounds, iters * 4);
    rows.push(Row {
        name: "step (tab switch) → UI elements",
        ns: step_tabs,
        target: Target::Ns(100e3),
        note: "alternate tab taps; Lua on_change; view rebuilt; text-layout memo warm; no frame".into(),
    });

    // The same step, split: step() / screen_hash() (compose) / prepare_view() (layout) /
    // ui_elements().
    let parts = split_step(&mut d, &tabs, rounds, iters * 4);
    push_split(&mut rows, parts);
    // The tab shown next, alternating from here (both loops above took an even number of steps).
    let mut i = 0usize;

    // The same step on a thread that has never laid out text: the engine's per-thread memo of
    // laid-out text (phoneworld-layout `text_cache`) is cold, as on a screen never seen before.
    let step_text_cold = best(rounds, || {
        median_timed(iters, 3, || {
            let a = &tabs[i % 2];
            i += 1;
            let dev = &mut d;
            std::thread::scope(|s| {
                s.spawn(move || {
                    let t = Instant::now();
                    dev.step(a);
                    black_box(dev.ui_elements());
                    t.elapsed().as_nanos()
                })
                .join()
                .expect("bench thread")
            })
        })
    });
    rows.push(Row {
        name: "step (tab switch) → UI elements, text cold",
        ns: step_text_cold,
        target: Target::Ns(100e3),
        note: "as above on a fresh thread: the per-thread text-layout memo is cold".into(),
    });

    let mut d2 = typical_device(&catalog);
    let switches = switch_actions(&mut d2);
    let step_switch = step_to_elements(&mut d2, &switches, rounds, iters * 4);
    rows.push(Row {
        name: "step (toggle a row switch) → UI elements",
        ns: step_switch,
        target: Target::Ns(40e3),
        note: "taps the 10 switches in turn; Lua on_change; no frame".into(),
    });
    push_split(&mut rows, split_step(&mut d2, &switches, rounds, iters * 4));
    for (name, note, (mut device, actions)) in [
        (
            "step (scroll the Contacts list) → UI elements",
            "swipes of 60 px down ×10, 57 up ×10, 57 down ×10, 60 up ×10; no frame",
            scroll_device(&catalog),
        ),
        ("step (type a character) → UI elements", "\"a\" typed into a note's title ×19, then cleared; no frame", typing_device(&catalog)),
    ] {
        let ns = step_to_elements(&mut device, &actions, rounds, iters * 4);
        rows.push(Row { name, ns, target: Target::None, note: note.into() });
        push_split(&mut rows, split_step(&mut device, &actions, rounds, iters * 4));
    }
    // The Python bench's mix of unlike steps: means, as its steps per second count them.
    let (mut device, actions) = python_mix_device(&catalog);
    let parts = split_step_by(&mut device, &actions, rounds, iters * 3, mean);
    rows.push(Row {
        name: "step (the Python bench mix) → UI elements",
        ns: parts.iter().sum(),
        target: Target::None,
        note: "make bench-python's 9 actions in turn, in Rust; means, not medians; no frame".into(),
    });
    push_split(&mut rows, parts);
    // `--steps`: the steps without a frame only (a quick check of the layout path).
    if std::env::args().any(|a| a == "--steps") {
        print_rows(&rows, memcpy);
        return;
    }

    // ------------------------------------------------------------------ rendering
    // A tab switch with its view laid out (untimed), then `observe` of the changed screen timed.
    let mut changed_screen = |d: &mut Device, observe: &dyn Fn(&mut Device)| {
        best(rounds, || {
            median_timed(iters, 5, || {
                d.step(&tabs[i % 2]);
                d.prepare_view();
                i += 1;
                let t = Instant::now();
                observe(d);
                t.elapsed().as_nanos()
            })
        })
    };
    let render_changed = changed_screen(&mut d, &|d| {
        black_box(d.frame());
    });
    rows.push(Row {
        name: "frame() of a changed screen (render)",
        ns: render_changed,
        target: Target::Ns(3e6),
        note: "glyph+mask caches warm, view laid out (untimed), frame cache cold, buffer reused".into(),
    });
    rows.push(Row { name: "  same, as a multiple of memcpy", ns: render_changed, target: Target::Memcpy(6.0), note: String::new() });

    // The size RL observations ask for most: a changed screen drawn at 540x1200, and an
    // unchanged one (the reduced frame is kept until the screen changes).
    let half_changed = changed_screen(&mut d, &|d| {
        black_box(d.frame_scaled(540, 1200));
    });
    rows.push(Row {
        name: "frame_scaled(540x1200), changed screen",
        ns: half_changed,
        target: Target::None,
        note: "as `frame()` of a changed screen, drawn at half scale into its own buffer".into(),
    });
    black_box(d.frame_scaled(540, 1200));
    let half_unchanged = best(rounds, || {
        median_ns(iters, 5, || {
            black_box(d.frame_scaled(540, 1200));
        })
    });
    rows.push(Row {
        name: "frame_scaled(540x1200), unchanged screen",
        ns: half_unchanged,
        target: Target::Memcpy(0.25),
        note: "the kept reduced frame; target: a memcpy of it (a quarter of a full one)".into(),
    });

    // Images: 12 photo thumbnails against the same grid of placeholders, measured side by side
    // in each round. Decoded images and their scaled copies are warm (decoded once per catalog,
    // scaled once per size): a changed frame blends the cached copies through their corners.
    // Only a button changes, so the whole frame is redrawn on purpose (not only its bands).
    let (mut photos, flip_photos) = thumbnails_device(&catalog, false);
    let (mut empty, flip_empty) = thumbnails_device(&catalog, true);
    let changed_frame = |d: &mut Device, flip: &phoneworld_data::Action| {
        median_timed(iters, 5, || {
            d.step(flip);
            d.prepare_view();
            d.redraw_whole_frame();
            let t = Instant::now();
            let f = d.frame();
            let ns = t.elapsed().as_nanos();
            black_box(&f);
            ns
        })
    };
    let (mut with_photos, mut with_placeholders) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        with_photos = with_photos.min(changed_frame(&mut photos, &flip_photos));
        with_placeholders = with_placeholders.min(changed_frame(&mut empty, &flip_empty));
    }
    rows.push(Row {
        name: "frame() of 12 photo thumbnails (changed)",
        ns: with_photos,
        target: Target::Ns(1.5 * with_placeholders),
        note: "fixture thumbnails; decoded and scaled copies warm; target: 1.5× the row below".into(),
    });
    rows.push(Row {
        name: "  same grid of placeholders (changed)",
        ns: with_placeholders,
        target: Target::None,
        note: "the 12 images' src empty: grey boxes with an icon".into(),
    });

    // Maps: a pan step shows cached tiles at another offset (tiles are drawn once per city,
    // zoom, theme and route), so the frame is copies of tile rows plus the pins and buttons.
    // Bands whose commands did not change (the sheet, the bars) are not drawn again.
    let (mut maps, pans) = maps_pan_device(&catalog);
    let mut k = 0usize;
    let mut pan_frame = |whole: bool| {
        median_timed(iters, 5, || {
            maps.step(&pans[k % 2]);
            k += 1;
            maps.prepare_view();
            if whole {
                maps.redraw_whole_frame();
            }
            let t = Instant::now();
            let f = maps.frame();
            let ns = t.elapsed().as_nanos();
            black_box(&f);
            ns
        })
    };
    let (mut pan, mut pan_whole) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        pan = pan.min(pan_frame(false));
        pan_whole = pan_whole.min(pan_frame(true));
    }
    rows.push(Row {
        name: "frame() of a map pan step (Maps home)",
        ns: pan,
        target: Target::Memcpy(3.0),
        note: "drag 64 px; map tiles cached, view laid out (untimed); the changed bands drawn; target: 3× a frame memcpy".into(),
    });
    rows.push(Row {
        name: "  same, every pixel drawn",
        ns: pan_whole,
        target: Target::None,
        note: "as above with the whole frame redrawn (no band reuse)".into(),
    });

    let render_fresh = best(rounds, || {
        median_timed(iters, 5, || {
            d.clear_frame_cache();
            let t = Instant::now();
            let f = d.frame();
            let ns = t.elapsed().as_nanos();
            black_box(&f);
            ns
        })
    });
    rows.push(Row {
        name: "frame() after clear_frame_cache()",
        ns: render_fresh,
        target: Target::None,
        note: "as above but the 9.9 MB buffer is allocated anew (first frame of a device)".into(),
    });

    let _ = d.frame();
    let unchanged = best(rounds, || {
        median_ns(iters * 10, 20, || {
            black_box(d.frame());
        })
    });
    rows.push(Row {
        name: "frame() of an unchanged screen",
        ns: unchanged,
        target: Target::Memcpy(1.5),
        note: "view and frame cached: hash check + Arc clone".into(),
    });
    let unchanged_copy = best(rounds, || {
        median_ns(iters, 5, || {
            let f = d.frame();
            dst.copy_from_slice(&f.pixels);
            black_box(&mut dst);
        })
    });
    rows.push(Row {
        name: "frame() of an unchanged screen + copy out",
        ns: unchanged_copy,
        target: Target::Memcpy(1.5),
        note: "as above, then the pixels copied into a caller's buffer".into(),
    });

    // ------------------------------------------------------------------ snapshots
    let busy = busy_device(&catalog);
    let snapshot_len = busy.snapshot().len();
    let snap_restore = best(rounds, || {
        median_ns(iters * 2, 10, || {
            let bytes = busy.snapshot();
            black_box(Device::restore(Arc::clone(&catalog), &bytes, ScriptLimits::default()).expect("restores"));
        })
    });
    rows.push(Row {
        name: "snapshot() + restore()",
        ns: snap_restore,
        target: Target::Ns(200e3),
        note: format!(
            "both apps open, 3 screens pushed; snapshot {snapshot_len} bytes ({:.1} KiB, target ≤ 64 KiB)",
            snapshot_len as f64 / 1024.0
        ),
    });
    let snap_only = best(rounds, || median_ns(iters * 2, 10, || drop(black_box(busy.snapshot()))));
    rows.push(Row { name: "  of which snapshot()", ns: snap_only, target: Target::None, note: String::new() });
    let bytes = busy.snapshot();
    let restore_view = best(rounds, || {
        median_ns(iters, 5, || {
            let mut r = Device::restore(Arc::clone(&catalog), &bytes, ScriptLimits::default()).expect("restores");
            r.prepare_view();
            black_box(r.ui_elements());
        })
    });
    rows.push(Row {
        name: "restore() + first UI elements",
        ns: restore_view,
        target: Target::None,
        note: "restore is lazy: the first observation composes and lays out".into(),
    });

    // ------------------------------------------------------------------ scripts loaded again
    // A device keeps the scripts of the APPS_KEPT apps it used last. Cycling a host through
    // one app more than that loads each app's scripts again on its turn (the one used least
    // recently is unloaded and collected first); through APPS_KEPT apps, nothing is loaded.
    let bundled = bundled_catalog();
    let programs: Vec<&Program> = bundled.apps.iter().map(|a| &a.program).collect();
    let cycle_apps = |n: usize| {
        let mut host = ScriptHost::new(ScriptLimits::default()).expect("a script host");
        let mut k = 0usize;
        best(rounds, || {
            median_ns(iters / 4, 5, || {
                host.ensure_loaded(programs[k % n]).expect("the bundled apps load");
                k += 1;
            })
        })
    };
    rows.push(Row {
        name: "an app's scripts loaded again",
        ns: cycle_apps(APPS_KEPT + 1),
        target: Target::None,
        note: format!(
            "bundled apps in turn, {} of them: a device keeps {APPS_KEPT} apps' scripts (through {APPS_KEPT}: {})",
            APPS_KEPT + 1,
            fmt_ns(cycle_apps(APPS_KEPT))
        ),
    });

    // ------------------------------------------------------------------ memory (own process)
    let memory_child = |trim: bool| {
        let exe = std::env::current_exe().ok()?;
        let mut command = std::process::Command::new(exe);
        command.arg("--memory-child");
        if trim {
            command.arg("--trim");
        }
        let text = String::from_utf8_lossy(&command.output().ok()?.stdout).to_string();
        let v: Vec<f64> = text.split_whitespace().filter_map(|s| s.parse().ok()).collect();
        (v.len() == 4).then(|| (v[0], v[1], v[2], v[3]))
    };
    let memory = memory_child(false);
    let idle_memory = memory_child(true);

    // memcpy again now the process is warm: the baseline is the best of both passes.
    let memcpy = memcpy.min(best(rounds, || {
        median_ns(iters, 5, || {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    }));
    rows[0].ns = memcpy;

    // ------------------------------------------------------------------ the table
    println!("PhoneWorld bench_report — best median of {rounds} rounds × {iters}+ iterations, release, one thread");
    println!(
        "typical screen (fixture com.phoneworld.bench.typical): {} UI elements, {} glyphs of text ({} with spaces; plus 20 avatar initials and icons)",
        stats.ui_elements, stats.glyphs, stats.chars
    );
    println!();
    print_rows(&rows, memcpy);
    let snap_ok = if snapshot_len <= 64 * 1024 { "yes" } else { "NO" };
    println!(
        "{:<44} {:>11} {:>9} {:>15} {:>5}  busy device",
        "snapshot size",
        format!("{:.1} KiB", snapshot_len as f64 / 1024.0),
        "",
        "≤ 64 KiB",
        snap_ok
    );
    print_memory("memory per device (RSS)", memory, 2.0, "every bundled app opened, no frame");
    print_memory(
        "  the same devices trimmed (idle)",
        idle_memory,
        2.0,
        "each trimmed after opening the apps: Lua host, layouts, caches dropped",
    );
    println!("(frames are apart from these: a device that renders keeps its 1080x2400 frame, 9.9 MiB, and its last reduced one, 2.5 MiB at 540x1200; trim drops both)");
}

fn print_rows(rows: &[Row], memcpy: f64) {
    println!("{:<44} {:>11} {:>9} {:>15} {:>5}  warm caches / notes", "measurement", "median", "×memcpy", "target", "ok");
    println!("{}", "-".repeat(130));
    for r in rows {
        let ratio = r.ns / memcpy;
        let (target, ok) = match r.target {
            Target::Ns(t) => (format!("≤ {}", fmt_ns(t)), if r.ns <= t { "yes" } else { "NO" }),
            Target::Memcpy(m) => (format!("≤ {m}× memcpy"), if ratio <= m { "yes" } else { "NO" }),
            Target::None => (String::new(), ""),
        };
        println!("{:<44} {:>11} {:>9.3} {:>15} {:>5}  {}", r.name, fmt_ns(r.ns), ratio, target, ok, r.note);
    }
}

/// One memory row from a child's (devices, RSS before, RSS after, snapshot bytes).
fn print_memory(name: &str, measured: Option<(f64, f64, f64, f64)>, target_mib: f64, what: &str) {
    match measured {
        Some((n, before, after, snap)) => {
            let per = (after - before) / n / MIB;
            let ok = if per <= target_mib { "yes" } else { "NO" };
            println!(
                "{:<44} {:>11} {:>9} {:>15} {:>5}  {n} devices, {what}; RSS {:.1} → {:.1} MiB; snapshot {snap} B",
                name,
                format!("{per:.3} MiB"),
                "",
                format!("≤ {target_mib} MiB"),
                ok,
                before / MIB,
                after / MIB
            );
        }
        None => println!("{name}: the child process failed (run --bin memory)"),
    }
}
