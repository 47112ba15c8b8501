//! Systematic exploration, as GUI explorers of real apps do it: on each screen, try every
//! widget that takes touches once, type into each field, scroll each list until it stops
//! moving and open the rows it brought into view; when a screen has nothing left, go back
//! the way that leads to a screen with something left (known from the walk so far), and
//! only when nothing is left anywhere, act at random. It reads only what the accessibility
//! tree shows (classes, ids, texts, bounds, flags) and the foreground app and screen, the
//! way an explorer reads the activity on a real phone. Same seed, same device: same actions.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use phoneworld_data::{Action, Key, Rng};
use phoneworld_layout::{A11y, Placed};

use crate::monkey::{monkey_action, WORDS};
use phoneworld_phone::Device;
use phoneworld_phone::Overlay;

/// Classes of scrolling lists (their rows are told apart by their texts).
const LISTS: [&str; 3] = ["androidx.recyclerview.widget.RecyclerView", "android.widget.ListView", "android.widget.GridView"];

/// Consecutive scrolls looking for rows seen earlier on a screen before giving up on them.
const MAX_SEARCH_SCROLLS: u32 = 12;

/// What the explorer can do with one widget.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Gesture {
    Tap,
    LongPress,
    /// Swipe the list up by most of its height (shows what is below).
    ScrollDown,
    ScrollUp,
}

/// A widget of the current screen the explorer may act on.
#[derive(Debug, Clone)]
struct Target {
    /// What names the widget across visits: resource id, class and label.
    key: String,
    gesture: Gesture,
    rect: [f32; 4],
    /// Fields are filled first, then choices made, then buttons pressed: a form's Submit
    /// leads on only once the form is filled.
    order: Order,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Order {
    Field,
    Choice,
    Other,
}

impl Target {
    fn tried_key(&self) -> String {
        format!("{:?} {}", self.gesture, self.key)
    }

    fn action(&self) -> Action {
        let [x1, y1, x2, y2] = self.rect.map(f64::from);
        let (x, y) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
        let (top, bottom) = (y1 + (y2 - y1) * 0.2, y1 + (y2 - y1) * 0.8);
        match self.gesture {
            Gesture::Tap => Action::Tap { x, y },
            Gesture::LongPress => Action::LongPress { x, y, ms: 800 },
            Gesture::ScrollDown => Action::Swipe { x1: x, y1: bottom, x2: x, y2: top, ms: 300 },
            Gesture::ScrollUp => Action::Swipe { x1: x, y1: top, x2: x, y2: bottom, ms: 300 },
        }
    }
}

/// The current screen as the explorer sees it.
struct Screen {
    /// Foreground package and screen, and the dialog or sheet over it.
    signature: String,
    /// Everything shown: a scroll that does not change it reached the list's end.
    content: u64,
    targets: Vec<Target>,
    /// The focused text field's key and hint, if any.
    focused: Option<(String, String)>,
    in_app: bool,
}

/// The last action, to learn where it led.
#[derive(Debug, Clone)]
struct Last {
    signature: String,
    tried_key: String,
    content: u64,
    /// The list scroll it was, if any.
    scroll: Option<Gesture>,
}

/// A seeded systematic explorer (see the module docs).
#[derive(Debug, Clone)]
pub struct Explorer {
    rng: Rng,
    app: Option<String>,
    /// (screen signature, tried key) pairs done.
    tried: BTreeSet<(String, String)>,
    /// Tried keys seen on each screen but not tried yet (rows seen before scrolling away).
    pending: BTreeMap<String, BTreeSet<String>>,
    /// Where each tried key led from each screen (the latest time).
    edges: BTreeMap<String, BTreeMap<String, String>>,
    /// Screen contents from which scrolling down changed nothing.
    list_ends: BTreeSet<u64>,
    /// Contents from which scrolling up changed nothing.
    list_tops: BTreeSet<u64>,
    searching: u32,
    last: Option<Last>,
}

const BACK: &str = "Back";

impl Explorer {
    /// `app`: explore this package, opening it again whenever the walk leaves it.
    pub fn new(seed: u64, app: Option<String>) -> Explorer {
        Explorer {
            rng: Rng::new(seed ^ 0x6578_706c_6f72),
            app,
            tried: BTreeSet::new(),
            pending: BTreeMap::new(),
            edges: BTreeMap::new(),
            list_ends: BTreeSet::new(),
            list_tops: BTreeSet::new(),
            searching: 0,
            last: None,
        }
    }

    pub fn next_action(&mut self, device: &mut Device) -> Action {
        let screen = self.observe(device);
        self.learn(&screen);
        if !screen.in_app {
            self.last = None;
            if let Some(app) = &self.app {
                return Action::OpenApp { app: app.clone() };
            }
        }
        let (tried_key, action, scroll) = self.choose(&screen, device);
        self.tried.insert((screen.signature.clone(), tried_key.clone()));
        if let Some(left) = self.pending.get_mut(&screen.signature) {
            left.remove(&tried_key);
        }
        self.last = Some(Last { signature: screen.signature, tried_key, content: screen.content, scroll });
        action
    }

    /// Records where the last action led, and which scrolls reached a list's end.
    fn learn(&mut self, screen: &Screen) {
        let Some(last) = self.last.take() else { return };
        if last.content == screen.content {
            match last.scroll {
                Some(Gesture::ScrollDown) => self.list_ends.insert(last.content),
                Some(_) => self.list_tops.insert(last.content),
                None => false,
            };
        }
        self.edges.entry(last.signature).or_default().insert(last.tried_key, screen.signature.clone());
        if !screen.in_app {
            return;
        }
        let tried = &self.tried;
        let left = self.pending.entry(screen.signature.clone()).or_default();
        left.extend(untried(tried, screen).into_iter().map(Target::tried_key));
    }

    fn choose(&mut self, screen: &Screen, device: &mut Device) -> (String, Action, Option<Gesture>) {
        let sig = &screen.signature;
        if let Some((field, hint)) = &screen.focused {
            let text = text_for(hint, &mut self.rng);
            for (what, action) in [("Type", Action::TypeText { text, clear: true }), ("Enter", Action::Key { key: Key::Enter })] {
                let key = format!("{what} {field}");
                if !self.tried.contains(&(sig.clone(), key.clone())) {
                    return (key, action, None);
                }
            }
        }
        let mut fresh = untried(&self.tried, screen);
        if let Some(first) = fresh.iter().map(|t| t.order).min() {
            fresh.retain(|t| t.order == first);
            self.searching = 0;
            let t = fresh[self.rng.below(fresh.len())];
            return (t.tried_key(), t.action(), None);
        }
        // Lists (the largest first): scroll down once from every new position; then look for
        // rows seen before.
        let looking = self.pending.get(sig).is_some_and(|left| !left.is_empty()) && self.searching < MAX_SEARCH_SCROLLS;
        if let Some(list) = screen.targets.iter().find(|t| t.gesture == Gesture::ScrollDown) {
            let new_position = !self.list_ends.contains(&screen.content)
                && !self.tried.contains(&(sig.clone(), format!("{}@{}", list.tried_key(), screen.content)));
            if new_position || looking {
                self.searching += u32::from(!new_position);
                let down = !self.list_ends.contains(&screen.content);
                let t = Target { gesture: if down { Gesture::ScrollDown } else { Gesture::ScrollUp }, ..list.clone() };
                if down || !self.list_tops.contains(&screen.content) {
                    self.tried.insert((sig.clone(), format!("{}@{}", list.tried_key(), screen.content)));
                    return (t.tried_key(), t.action(), Some(t.gesture));
                }
            }
        }
        if looking || self.searching >= MAX_SEARCH_SCROLLS {
            // What was seen here cannot be found again: stop looking for it.
            self.pending.remove(sig);
            self.searching = 0;
        }
        if !self.tried.contains(&(sig.clone(), BACK.to_owned())) {
            return (BACK.to_owned(), Action::Key { key: Key::Back }, None);
        }
        if let Some(step) = self.way_to_pending(sig) {
            if step == BACK {
                return (step, Action::Key { key: Key::Back }, None);
            }
            if let Some(t) = screen.targets.iter().find(|t| t.tried_key() == step) {
                return (step, t.action(), None);
            }
        }
        // Nothing left within reach: a random action, as the monkey would.
        let action = monkey_action(&mut self.rng, self.app.as_deref(), device);
        ("random".to_owned(), action, None)
    }

    /// The first step of the shortest known way from `from` to a screen with widgets left.
    fn way_to_pending(&self, from: &str) -> Option<String> {
        let mut first: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([from]);
        let mut seen = BTreeSet::from([from]);
        while let Some(at) = queue.pop_front() {
            if at != from && self.pending.get(at).is_some_and(|left| !left.is_empty()) {
                return first.get(at).map(|s| (*s).to_owned());
            }
            for (key, to) in self.edges.get(at).into_iter().flatten() {
                if key == "random" || !seen.insert(to.as_str()) {
                    continue;
                }
                let step = if at == from { key.as_str() } else { first[at] };
                first.insert(to.as_str(), step);
                queue.push_back(to.as_str());
            }
        }
        None
    }

    fn observe(&self, device: &mut Device) -> Screen {
        let (package, screen_id) = device.foreground();
        let in_app = self.app.as_deref().is_none_or(|app| app == package);
        // A dialog or sheet over the screen is a screen of its own, as its window is on Android
        // (whatever its title names); a field's copy/paste menu is part of the field's screen.
        let overlay = overlay_window(device.store().session.overlay.as_ref());
        let view = device.laid_out();
        let nodes = view.nodes;
        // Nodes inside anything that scrolls come and go with scrolling; rows of a list repeat
        // their ids, so their texts tell them apart.
        let mut scrolled = vec![false; nodes.len()];
        let mut in_rows = vec![false; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            if let Some(p) = n.parent {
                let parent = nodes[p].a11y.as_ref();
                scrolled[i] = scrolled[p] || parent.is_some_and(|a| a.scrollable);
                in_rows[i] = in_rows[p] || parent.is_some_and(|a| a.scrollable && LISTS.contains(&a.class_name));
            }
        }
        // The screen is its id and the lists it shows: a tab that swaps one list for another
        // is another screen; a button that comes and goes with what was typed is not.
        let lists: BTreeSet<String> = nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| shown(n, &package).filter(|a| a.scrollable && !scrolled[i]))
            .map(|a| if a.resource_id.is_empty() { a.class_name.to_owned() } else { a.resource_id.clone() })
            .collect();
        let signature = format!("{package}/{screen_id}{overlay} [{}]", lists.into_iter().collect::<Vec<_>>().join(","));
        let mut targets = Vec::new();
        let mut focused = None;
        let mut places: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for (i, n) in nodes.iter().enumerate() {
            // The system bars' buttons are Back, Home and Recents: not the app's widgets.
            let Some(a) = shown(n, &package) else { continue };
            let rect = n.visible_rect();
            // A row is named by its texts (which contact); any other widget by its place among
            // its kind, so a detail screen's Call button is one widget whatever contact it
            // shows. A field's text is what was typed into it: its hint names it.
            let name = if a.editable {
                a.hint.clone()
            } else if in_rows[i] {
                label(nodes, i)
            } else {
                let place = places.entry((a.class_name, a.resource_id.as_str())).or_default();
                *place += 1;
                format!("#{place}")
            };
            let key = format!("{} {} {name}", a.class_name, a.resource_id);
            if a.focused && a.editable {
                focused = Some((key.clone(), a.hint.clone()));
            }
            let order = match () {
                _ if a.editable => Order::Field,
                _ if a.checkable => Order::Choice,
                _ => Order::Other,
            };
            if a.scrollable && rect[3] - rect[1] >= 100.0 {
                targets.push(Target { key: key.clone(), gesture: Gesture::ScrollDown, rect, order });
            }
            if a.clickable || a.editable || a.checkable {
                targets.push(Target { key: key.clone(), gesture: Gesture::Tap, rect, order });
            }
            // A field's long press opens copy/paste: nothing of the app's own.
            if a.long_clickable && !a.editable {
                targets.push(Target { key, gesture: Gesture::LongPress, rect, order });
            }
        }
        // The largest list first: it is the one to search for rows.
        targets.sort_by(|a, b| area(b).total_cmp(&area(a)));
        Screen { signature, content: view.hash, targets, focused, in_app }
    }
}

/// The window an overlay adds to the screen's signature.
fn overlay_window(overlay: Option<&Overlay>) -> &'static str {
    match overlay {
        None | Some(Overlay::TextMenu { .. }) => "",
        Some(Overlay::Dialog { .. }) => " dialog",
        Some(Overlay::Sheet { .. }) => " sheet",
        Some(Overlay::Share { .. }) => " share",
        Some(Overlay::Payment { .. }) => " payment",
        Some(Overlay::ChatPicker { .. }) => " chat picker",
        Some(_) => " overlay",
    }
}

/// The screen's taps, then its long presses, not tried yet on it (lists are scrolled apart).
fn untried<'s>(tried: &BTreeSet<(String, String)>, screen: &'s Screen) -> Vec<&'s Target> {
    let of = |g: Gesture| screen.targets.iter().filter(move |t| t.gesture == g);
    of(Gesture::Tap).chain(of(Gesture::LongPress)).filter(|t| !tried.contains(&(screen.signature.clone(), t.tried_key()))).collect()
}

/// Text that fits what a field's hint asks for, as form-filling explorers type: five digits
/// for a ZIP code, ten for a phone or account number, sixteen for a card, four for a PIN or
/// code, an address with a house number, an email address, a small number for an amount or
/// quantity; a word otherwise.
fn text_for(hint: &str, rng: &mut Rng) -> String {
    // One draw of the walk's stream per text, whatever its length: the walk goes on the same.
    let draw = rng.next_u64();
    let mut own = Rng::new(draw);
    let hint = hint.to_lowercase();
    let words: Vec<&str> = hint.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let asks = |keys: &[&str]| words.iter().any(|w| keys.contains(w));
    // No leading zero: a number, not a string of digits.
    let mut digits = |n: usize| {
        (0..n).map(|i| if i == 0 { 1 + own.below(9) } else { own.below(10) }).map(|d| char::from(b'0' + d as u8)).collect::<String>()
    };
    if asks(&["zip", "postal", "postcode"]) {
        return digits(5);
    }
    if asks(&["phone", "mobile", "tel", "telephone", "account"]) {
        return digits(10);
    }
    if asks(&["card"]) {
        return digits(16);
    }
    if asks(&["pin", "code", "cvv", "cvc", "otp"]) {
        return digits(4);
    }
    if hint.contains('$') || asks(&["amount", "number", "price", "quantity", "qty", "age"]) {
        return (10 + draw % 90).to_string();
    }
    let word = WORDS[(draw % WORDS.len() as u64) as usize];
    if asks(&["email", "mail"]) {
        return format!("{}@example.com", word.to_lowercase());
    }
    if asks(&["street", "address"]) {
        return format!("{} {word} St", 1 + own.below(999));
    }
    word.to_owned()
}

/// A node's accessibility facts, if it is on screen, enabled and the app's own.
fn shown<'n>(n: &'n Placed, package: &str) -> Option<&'n A11y> {
    n.a11y.as_deref().filter(|a| n.is_visible() && a.enabled && a.package == package)
}

fn area(t: &Target) -> f32 {
    match t.gesture {
        Gesture::ScrollDown | Gesture::ScrollUp => (t.rect[2] - t.rect[0]) * (t.rect[3] - t.rect[1]),
        _ => 0.0,
    }
}

/// A node's text, else its description.
fn says(n: &Placed) -> &str {
    n.a11y.as_ref().map(|a| if a.text.is_empty() { a.content_desc.as_str() } else { a.text.as_str() }).unwrap_or("")
}

/// A widget's own text or description, else the first texts inside it (a row's name).
fn label(nodes: &[Placed], i: usize) -> String {
    if !says(&nodes[i]).is_empty() {
        return says(&nodes[i]).to_owned();
    }
    let depth = nodes[i].depth;
    let inside = nodes[i + 1..].iter().take_while(|n| n.depth > depth);
    inside.map(says).filter(|t| !t.is_empty()).take(2).collect::<Vec<_>>().join(" / ")
}
