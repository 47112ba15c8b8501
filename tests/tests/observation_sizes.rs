//! Observations at a reduced size. A size that scales both sides by one factor (540x1200 and
//! 270x600 of the 1080x2400 phone) is drawn at that size: the same picture as the full frame
//! filtered down, deterministic, redrawing only what changed, with layout and hit targets in
//! device coordinates untouched. Snapshots hold the frame hashes at the three sizes; a PNG of
//! the 270x600 frame goes to `snapshots/png` for people to look at.

use phoneworld_data::{Action, Key};
use phoneworld_render::Frame;
use phoneworld_tests::{snapshots_dir, Harness};

const SIZES: [(u32, u32); 3] = [(1080, 2400), (540, 1200), (270, 600)];

/// Mean absolute difference per channel, 0..255.
fn mean_difference(a: &Frame, b: &Frame) -> f64 {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let total: u64 = a.pixels.iter().zip(&b.pixels).map(|(x, y)| u64::from(x.abs_diff(*y))).sum();
    total as f64 / a.pixels.len() as f64
}

fn assert_sizes(h: &mut Harness, name: &str) {
    let (package, screen) = h.device.foreground();
    let mut text = format!("{package}/{screen}\n");
    for (w, h_px) in SIZES {
        let frame = h.device.frame_scaled(w, h_px);
        assert_eq!((frame.width, frame.height, frame.pixels.len()), (w, h_px, (w * h_px * 4) as usize));
        text.push_str(&format!("{w}x{h_px} {}\n", frame.hash()));
        if w < 1080 {
            let filtered = h.device.frame().downscale(w, h_px);
            let difference = mean_difference(&h.device.frame_scaled(w, h_px), &filtered);
            assert!(difference < 4.0, "{name} at {w}x{h_px} differs from the filtered frame by {difference:.2} per channel");
        }
    }
    let dir = snapshots_dir().join("png");
    std::fs::create_dir_all(&dir).expect("snapshots/png");
    std::fs::write(dir.join(format!("size_{name}.png")), h.device.frame_scaled(270, 600).to_png()).expect("write png");
    insta::with_settings!({
        snapshot_path => snapshots_dir().join("sizes"),
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn screens_drawn_at_two_reduced_sizes() {
    let mut h = Harness::new(0);
    assert_sizes(&mut h, "launcher");
    h.open("Settings");
    assert_sizes(&mut h, "settings_main");
    let mut h = Harness::new(0);
    h.open("Clock");
    assert_sizes(&mut h, "clock_alarms");
    let mut h = Harness::new(0);
    h.open("Gallery");
    assert_sizes(&mut h, "gallery_photos");
}

#[test]
fn a_reduced_frame_redrawn_band_by_band_is_the_one_drawn_afresh() {
    let mut h = Harness::new(3);
    h.open("Contacts");
    let steps = [
        Action::Tap { x: 540.0, y: 700.0 },
        Action::Key { key: Key::Back },
        Action::Swipe { x1: 540.0, y1: 1800.0, x2: 540.0, y2: 900.0, ms: 300 },
        Action::Tap { x: 540.0, y: 300.0 },
        Action::TypeText { text: "an".into(), clear: false },
        Action::Key { key: Key::Home },
    ];
    let first = h.device.frame_scaled(540, 1200);
    for action in steps {
        h.act(action);
        let kept = h.device.frame_scaled(540, 1200).hash();
        let fresh = h.device.fork().frame_scaled(540, 1200).hash();
        assert_eq!(kept, fresh, "after {}", h.results.last().map_or("", |r| r.action.as_str()));
        // Layout and hit targets stay at device coordinates whatever size is observed.
        assert_eq!(h.device.ui_elements(), h.device.fork().ui_elements());
    }
    assert_ne!(first.hash(), h.device.frame_scaled(540, 1200).hash());
    assert!(
        std::sync::Arc::ptr_eq(&h.device.frame_scaled(540, 1200), &h.device.frame_scaled(540, 1200)),
        "an unchanged screen is drawn once"
    );
}

#[test]
fn a_size_of_another_aspect_is_the_frame_box_filtered() {
    let mut h = Harness::new(0);
    h.open("Settings");
    let square = h.device.frame_scaled(512, 512);
    assert_eq!(square.hash(), h.device.frame().downscale(512, 512).hash());
    // Going back to a drawn size after a filtered one draws it whole again.
    let half = h.device.frame_scaled(540, 1200);
    assert_eq!(half.hash(), h.device.fork().frame_scaled(540, 1200).hash());
}
