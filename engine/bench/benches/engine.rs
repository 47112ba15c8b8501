//! Divan benchmarks of the engine (for developers; the README quotes `--bin report`).
//!
//! `cargo bench -p phoneworld-bench` (one thread). Devices come from `phoneworld_bench`, on the
//! fixture app `engine/bench/fixtures/typical` (a top bar, two tabs, a list of 10 rows with an
//! avatar, two lines of text and a switch: ~40 widgets, ~800 glyphs). The process-wide glyph
//! and shape-mask caches are warm in every benchmark (each device is stepped and rendered
//! before timing starts), and so is the engine's per-thread memo of laid-out text (the
//! fixture's two screens were laid out before). Every doc comment says which other caches are
//! warm.
//!
//! Targets: step to UI elements ≤ 100 µs; render of a changed screen ≤ 3 ms and ≤ 6×
//! `memcpy_frame`; unchanged frame ≤ 1.5× `memcpy_frame`; snapshot + restore ≤ 200 µs.

use std::cell::RefCell;
use std::hint::black_box;
use std::sync::{Arc, LazyLock};

use divan::Bencher;
use phoneworld_bench::{busy_device, switch_actions, tab_actions, typical_catalog, typical_device, FRAME_BYTES};
use phoneworld_phone::{Catalog, Device, ScriptLimits};

static CATALOG: LazyLock<Arc<Catalog>> = LazyLock::new(typical_catalog);

fn main() {
    divan::main();
}

/// The fixture device, stepped through both tabs and rendered once so every process-wide
/// cache (glyphs, shape masks) holds what the benchmark will draw.
fn warm_typical() -> (Device, [phoneworld_data::Action; 2]) {
    let mut d = typical_device(&CATALOG);
    let tabs = tab_actions(&mut d);
    for a in tabs.iter().chain(tabs.iter()) {
        d.step(a);
        black_box(d.ui_elements());
        black_box(d.frame());
    }
    (d, tabs)
}

/// The baseline: a plain `copy_from_slice` of one 1080x2400 RGBA frame (10 368 000 bytes).
/// Compare `render_changed_screen` and `frame_unchanged_*` with it.
#[divan::bench]
fn memcpy_frame(bencher: Bencher) {
    let src = vec![0x5au8; FRAME_BYTES];
    let mut dst = vec![0u8; FRAME_BYTES];
    bencher.bench_local(|| {
        dst.copy_from_slice(black_box(&src));
        black_box(&mut dst);
    });
}

/// A step that changes the screen, up to the UI element list, no rendering: taps alternate
/// between the two tabs (each runs the `tab_changed` Lua handler and shows the other list).
/// Warm: the view of the screen before the step (the hit test uses it) and the engine's
/// per-thread memo of laid-out text (both tabs were shown before). Cold: the view after the
/// step (compose, flex layout, accessibility tree). `report` also measures it with the text
/// memo cold. Target ≤ 100 µs.
#[divan::bench]
fn step_tab_to_ui_elements(bencher: Bencher) {
    let (mut d, tabs) = warm_typical();
    let mut i = 0usize;
    bencher.bench_local(|| {
        d.step(&tabs[i % 2]);
        i += 1;
        d.ui_elements()
    });
}

/// As `step_tab_to_ui_elements`, but each step toggles one row's switch (the 10 in turn;
/// Lua `row_toggled`), a smaller change of the same screen (no text changes). Same caches as
/// `step_tab_to_ui_elements`. Target ≤ 100 µs.
#[divan::bench]
fn step_switch_to_ui_elements(bencher: Bencher) {
    let (mut d, _) = warm_typical();
    let switches = switch_actions(&mut d);
    let mut i = 0usize;
    bencher.bench_local(|| {
        d.step(&switches[i % switches.len()]);
        i += 1;
        d.ui_elements()
    });
}

/// Only `prepare_view()` (compose + layout) of the fixture screen, every cache of the device
/// dropped first with `clear_caches()` (view, previous layout, frame all cold; the per-thread
/// text-layout memo stays warm); the Lua handler and hit test are not in it.
#[divan::bench]
fn prepare_view_cold(bencher: Bencher) {
    let (mut d, _) = warm_typical();
    bencher.bench_local(|| {
        d.clear_caches();
        d.prepare_view();
    });
}

/// `ui_elements()` alone with the view warm (laid out): the accessibility walk and the
/// element list.
#[divan::bench]
fn ui_elements_warm(bencher: Bencher) {
    let (mut d, _) = warm_typical();
    d.prepare_view();
    bencher.bench_local(|| d.ui_elements());
}

/// Rendering the full 1080x2400 frame of a screen that changed: before each timed `frame()`
/// a tab tap and `prepare_view()` run untimed, so the view is laid out, the glyph and mask
/// caches are warm, and the frame cache is cold (the content hash differs; the previous
/// frame's buffer is reused). Target ≤ 3 ms and ≤ 6× `memcpy_frame`.
#[divan::bench(sample_size = 1, sample_count = 200)]
fn render_changed_screen(bencher: Bencher) {
    let (d, tabs) = warm_typical();
    let d = RefCell::new(d);
    let mut i = 0usize;
    bencher
        .with_inputs(|| {
            let mut d = d.borrow_mut();
            d.step(&tabs[i % 2]);
            d.prepare_view();
            i += 1;
        })
        .bench_local_values(|()| d.borrow_mut().frame());
}

/// As `render_changed_screen` but with `clear_frame_cache()` instead of a step: the same
/// screen is rendered into a newly allocated buffer (the first frame of a device).
#[divan::bench(sample_size = 1, sample_count = 200)]
fn render_after_clear_frame_cache(bencher: Bencher) {
    let (d, _) = warm_typical();
    let d = RefCell::new(d);
    bencher.with_inputs(|| d.borrow_mut().clear_frame_cache()).bench_local_values(|()| d.borrow_mut().frame());
}

/// `frame()` of an unchanged screen: view and frame caches warm, so it checks the content
/// hash and clones the `Arc<Frame>`. Target ≤ 1.5× `memcpy_frame`.
#[divan::bench]
fn frame_unchanged(bencher: Bencher) {
    let (mut d, _) = warm_typical();
    black_box(d.frame());
    bencher.bench_local(|| d.frame());
}

/// `frame()` of an unchanged screen plus copying its pixels into the caller's buffer (what a
/// consumer that needs its own copy pays): view and frame caches warm. Target ≤ 1.5×
/// `memcpy_frame`.
#[divan::bench]
fn frame_unchanged_copy_out(bencher: Bencher) {
    let (mut d, _) = warm_typical();
    black_box(d.frame());
    let mut dst = vec![0u8; FRAME_BYTES];
    bencher.bench_local(|| {
        let f = d.frame();
        dst.copy_from_slice(&f.pixels);
        black_box(&mut dst);
    });
}

/// `snapshot()` then `Device::restore()` of a device with both bundled apps open and screens
/// pushed (Settings › Network, › Sound; Clock › Clock settings). No cache matters: a snapshot
/// is the store; a restored device builds its view lazily (not included). Target ≤ 200 µs.
#[divan::bench]
fn snapshot_restore(bencher: Bencher) {
    let busy = busy_device(&CATALOG);
    bencher.bench_local(|| {
        let bytes = busy.snapshot();
        Device::restore(Arc::clone(&CATALOG), &bytes, ScriptLimits::default()).expect("restores")
    });
}

/// `snapshot()` alone of the same busy device.
#[divan::bench]
fn snapshot_only(bencher: Bencher) {
    let busy = busy_device(&CATALOG);
    bencher.bench_local(|| busy.snapshot());
}
