//! Seeded random exploration: taps on things that react, scrolls, typing into focused
//! fields, back, home, recents and app switches. Same seed, same device: same actions.

use phoneworld_data::{Action, Key, Rng};

use phoneworld_phone::Device;
use phoneworld_phone::Foreground;

pub(crate) const WORDS: [&str; 12] = ["hello", "Alarm", "meeting", "42", "home", "Gym", "note", "Ada", "7:30", "test", "wifi", "café"];

/// The explorer's own random stream (apart from the device's).
#[derive(Debug, Clone)]
pub struct Monkey {
    rng: Rng,
    app: Option<String>,
}

impl Monkey {
    /// `app`: keep coming back to this package when the walk leaves it.
    pub fn new(seed: u64, app: Option<String>) -> Monkey {
        Monkey { rng: Rng::new(seed ^ 0x6d6f_6e6b_6579), app }
    }

    pub fn next_action(&mut self, device: &mut Device) -> Action {
        monkey_action(&mut self.rng, self.app.as_deref(), device)
    }
}

/// One random action for the device's current screen.
pub fn monkey_action(rng: &mut Rng, app: Option<&str>, device: &mut Device) -> Action {
    let (w, h) = (f64::from(device.config().width), f64::from(device.config().height));
    if let Some(app) = app {
        // Wandering off is part of the walk, but it comes back to its app soon.
        let away = device.store().foreground_app() != Some(app);
        if away && rng.below(3) != 0 {
            return Action::OpenApp { app: app.to_owned() };
        }
    }
    let focused = device.store().session.focus.is_some();
    let roll = rng.below(100);
    if focused && roll < 25 {
        let word = WORDS[rng.below(WORDS.len())];
        return Action::TypeText { text: word.to_owned(), clear: rng.below(3) == 0 };
    }
    match roll {
        0..=4 => return Action::Key { key: Key::Back },
        5 => return Action::Key { key: Key::Home },
        6 => return Action::Key { key: Key::Recents },
        7 if app.is_none() => {
            let apps = &device.catalog().apps;
            if !apps.is_empty() {
                return Action::OpenApp { app: apps[rng.below(apps.len())].package().to_owned() };
            }
        }
        8 => return Action::Key { key: Key::Enter },
        9 => return Action::Wait { ms: 1000 * (1 + rng.below(5) as u64) },
        10..=17 => {
            let x = rng.range(200, (w - 200.0) as i64) as f64;
            let y1 = rng.range((h * 0.3) as i64, (h * 0.8) as i64) as f64;
            let dy = rng.range(-900, 900) as f64;
            return Action::Swipe { x1: x, y1, x2: x, y2: (y1 - dy).clamp(0.0, h - 1.0), ms: 300 };
        }
        18 => return Action::Swipe { x1: w / 2.0, y1: 10.0, x2: w / 2.0, y2: h * 0.6, ms: 300 },
        _ => {}
    }
    // Tap (or now and then long-press or drag) something that reacts.
    let screen = device.laid_out();
    let targets: Vec<(f64, f64, bool, bool)> = screen
        .nodes
        .iter()
        .zip(&screen.reacts)
        .filter_map(|(n, reacts)| {
            if !reacts.tap && !reacts.long_press || !n.is_visible() {
                return None;
            }
            let [x1, y1, x2, y2] = n.visible_rect();
            Some((f64::from(x1 + x2) / 2.0, f64::from(y1 + y2) / 2.0, reacts.long_press, reacts.tap))
        })
        .collect();
    if targets.is_empty() || device.store().session.foreground == Foreground::Home && rng.below(10) == 0 {
        return Action::Tap { x: rng.range(0, w as i64 - 1) as f64, y: rng.range(0, h as i64 - 1) as f64 };
    }
    let (x, y, long, tap) = targets[rng.below(targets.len())];
    if long && (!tap || rng.below(4) == 0) {
        return Action::LongPress { x, y, ms: 800 };
    }
    if rng.below(12) == 0 {
        let dx = rng.range(-400, 400) as f64;
        return Action::Drag { x1: x, y1: y, x2: (x + dx).clamp(0.0, w - 1.0), y2: y, ms: 600 };
    }
    Action::Tap { x, y }
}
