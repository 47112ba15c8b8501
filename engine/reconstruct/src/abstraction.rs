//! Abstract screens: concrete screens that are the same screen with different dynamic
//! content merge into one, by a structural signature (classes, resource ids and coarse
//! layout; never volatile text) compared with a configurable tolerance.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::ReconError;
use crate::limits::MAX_ABSTRACT_SCREENS;
use crate::trace::{Screen, ScreenKind, Trace, TraceAction, UiNode};

/// What part an abstract screen plays in the reconstruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A screen of the app being reconstructed.
    App,
    /// The home screen: mapped to the phone's own launcher, never generated.
    Launcher,
    /// Another app or a system window reached from the app (a cross-app edge); generated
    /// inside the app so the flow can go on.
    Foreign,
}

/// One abstract screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbstractScreen {
    /// The screen id in the generated app (`screens/<id>.ron`).
    pub id: String,
    pub role: Role,
    pub kind: ScreenKind,
    pub package: String,
    pub activity: String,
    /// Sorted structural tokens of the first member.
    pub signature: Vec<String>,
    /// The first member's signature without list rows (see `classify_nearest`).
    #[serde(default)]
    pub list_free_signature: Vec<String>,
    /// Concrete screens merged here: `(trace index, screen id)`, in order of first visit.
    pub members: Vec<(usize, String)>,
    /// Times a trace step was on this screen or landed on it.
    pub visits: usize,
    /// The first short text near the top of the first member (its title, usually).
    #[serde(default)]
    pub title: String,
    /// The tab its members show selected (see [`selected_tab`]); empty without tabs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tab: String,
    /// The signatures of the screen scrolled elsewhere (see [`Abstraction::merge_scrolled`]):
    /// a visit is this screen when it is like any of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scrolled: Vec<ScrolledView>,
}

impl AbstractScreen {
    /// Its first member's signature (list-free when `lists_free`) and those of its views
    /// scrolled elsewhere.
    fn signatures(&self, lists_free: bool) -> impl Iterator<Item = &[String]> {
        let first = if lists_free { &self.list_free_signature } else { &self.signature };
        std::iter::once(first.as_slice()).chain(self.scrolled.iter().map(move |v| {
            if lists_free {
                v.list_free_signature.as_slice()
            } else {
                v.signature.as_slice()
            }
        }))
    }
}

/// The signatures of one view of a screen scrolled elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScrolledView {
    pub signature: Vec<String>,
    pub list_free_signature: Vec<String>,
}

/// The label of the tab a screen shows selected: the texts of its selected tab nodes (a
/// `selected` node whose class or resource id names a tab, and what it holds). Two tabs of one
/// screen often have the same structure (two lists) yet do different things (the same button
/// adds a contact on one and a group on the other), so a screen is one screen per tab.
pub fn selected_tab(screen: &Screen) -> String {
    fn names_a_tab(n: &UiNode) -> bool {
        n.short_class().to_ascii_lowercase().contains("tab") || n.short_id().to_ascii_lowercase().contains("tab")
    }
    let mut labels: BTreeSet<String> = BTreeSet::new();
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| {
            if n.selected && names_a_tab(n) && !is_system_chrome(n) {
                n.walk(&mut Vec::new(), &mut |_, inner| {
                    let label = if inner.text.trim().is_empty() { inner.content_desc.trim() } else { inner.text.trim() };
                    if !label.is_empty() {
                        labels.insert(label.to_owned());
                    }
                });
            }
        });
    }
    labels.into_iter().collect::<Vec<_>>().join(" ")
}

/// The first short text in the top fifth of a screen: what its title bar says.
fn title_of(screen: &Screen) -> String {
    let mut found = String::new();
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| {
            let text = n.text.trim();
            if found.is_empty()
                && !text.is_empty()
                && text.split_whitespace().count() <= 3
                && !is_system_chrome(n)
                && f64::from(n.bounds[1]) < 0.2 * f64::from(screen.height)
            {
                found = text.to_owned();
            }
        });
    }
    found
}

/// Packages whose windows are the home screen.
pub fn is_launcher_package(package: &str) -> bool {
    package.contains("launcher")
}

fn in_screen(n: &UiNode, w: u32, h: u32) -> bool {
    n.visible && n.width() > 0 && n.height() > 0 && n.bounds[0] < w as i32 && n.bounds[1] < h as i32 && n.bounds[2] > 0 && n.bounds[3] > 0
}

/// Nodes of the on-screen keyboard's window.
pub fn is_keyboard(n: &UiNode) -> bool {
    n.package.contains("inputmethod") || n.package.ends_with(".keyboard")
}

/// Whether the keyboard is up on a screen (the app's window then shrinks above it).
pub fn shows_keyboard(root: &UiNode) -> bool {
    let mut up = false;
    root.walk(&mut Vec::new(), &mut |_, n| up |= is_keyboard(n));
    up
}

/// Nodes that belong to the system bars or the keyboard, not to the screen.
pub fn is_system_chrome(n: &UiNode) -> bool {
    n.package == "com.android.systemui"
        || is_keyboard(n)
        || n.resource_id == "android:id/statusBarBackground"
        || n.resource_id == "android:id/navigationBarBackground"
}

/// The structural tokens of a screen: `Class#id` for nodes with a resource id, and
/// `Class@col,row` (a coarse grid cell) for interactive or content nodes without one.
pub fn signature(screen: &Screen) -> Vec<String> {
    tokens(screen, false)
}

/// The signature with the rows of scrolling lists left out (`Class@col,list`): how many
/// rows a list shows and how far it is scrolled are taken as content, not structure.
pub fn list_free_signature(screen: &Screen) -> Vec<String> {
    tokens(screen, true)
}

/// The signature of what a screen shows outside its scroll views (`Class#id` of the scroll
/// view itself, nothing it holds): what stays when the screen is scrolled.
fn fixed_signature(screen: &Screen) -> Vec<String> {
    tokens_read(screen, None, true)
}

fn tokens(screen: &Screen, lists_free: bool) -> Vec<String> {
    tokens_read(screen, lists_free.then_some(false), false)
}

fn tokens_read(screen: &Screen, in_list: Option<bool>, fixed: bool) -> Vec<String> {
    let mut tokens = BTreeSet::new();
    let Some(root) = &screen.root else { return Vec::new() };
    // Words read off a screenshot tell a screen apart only where its hierarchy says too little;
    // in a WebView of a screen that speaks, they are the page's content.
    let words = crate::see::is_opaque(screen);
    let reading = Reading { width: screen.width, height: screen.height, words, dialog: screen.kind == ScreenKind::Dialog, fixed };
    tokens_of(root, &reading, in_list, false, &mut tokens);
    tokens.into_iter().collect()
}

/// How a screen's nodes become tokens.
struct Reading {
    width: u32,
    height: u32,
    /// Words read off the screenshot count (the hierarchy says too little).
    words: bool,
    /// A dialog: its buttons' words tell it apart (Delete and Cancel ask something else than
    /// OK alone, though both are `button1` under a message).
    dialog: bool,
    /// Only what lies outside scroll views (see `fixed_signature`).
    fixed: bool,
}

/// A view of rows (a list, a recycler, a grid).
fn is_list_view(n: &UiNode) -> bool {
    let class = n.short_class();
    n.scrollable && ["List", "Recycler", "Grid"].iter().any(|kind| class.contains(kind))
}

/// A push button (OK, Delete), not a checkable one (a radio button, a toggle) nor an image.
fn is_dialog_button(n: &UiNode) -> bool {
    let class = n.short_class();
    class.ends_with("Button") && !n.checkable && !["Radio", "Toggle", "Compound", "Image"].iter().any(|kind| class.contains(kind))
}

/// `in_list`: `None` keeps list rows' places; `Some(inside a list)` leaves them out.
/// `in_rows`: inside a list view (its rows' words are content, not what the dialog asks; a
/// dialog's own buttons sit in a plain scroll view).
fn tokens_of(n: &UiNode, reading: &Reading, in_list: Option<bool>, in_rows: bool, tokens: &mut BTreeSet<String>) {
    let (w, h, words) = (reading.width, reading.height, reading.words);
    if in_screen(n, w, h) && !is_system_chrome(n) {
        let seen = n.package == crate::see::SEEN_PACKAGE;
        if seen && !words {
            // Read off a WebView or surface of a screen whose hierarchy speaks: content.
        } else if seen && !n.text.trim().is_empty() {
            // Read off a screenshot: the words are all there is to tell the screen by (its
            // numbers are content).
            let words: String = n.text.chars().filter(|c| !c.is_ascii_digit()).collect::<String>().to_lowercase();
            tokens.insert(format!("seen:{}", words.split_whitespace().collect::<Vec<_>>().join(" ")));
        } else if !n.resource_id.is_empty() && reading.dialog && is_dialog_button(n) && !in_rows && !n.text.trim().is_empty() {
            let label: String = n.text.chars().filter(|c| !c.is_ascii_digit()).collect::<String>().trim().to_lowercase();
            tokens.insert(format!("{}#{}={label}", n.short_class(), n.short_id()));
        } else if !n.resource_id.is_empty() {
            tokens.insert(format!("{}#{}", n.short_class(), n.short_id()));
        } else if n.clickable || n.editable || n.checkable || (n.children.is_empty() && (!n.text.is_empty() || !n.content_desc.is_empty()))
        {
            let col = ((f64::from(n.bounds[0] + n.bounds[2]) / 2.0) / f64::from(w.max(1)) * 4.0) as i32;
            if in_list == Some(true) {
                tokens.insert(format!("{}@{col},list", n.short_class()));
            } else {
                let row = ((f64::from(n.bounds[1] + n.bounds[3]) / 2.0) / f64::from(h.max(1)) * 8.0) as i32;
                tokens.insert(format!("{}@{col},{row}", n.short_class()));
            }
        }
    }
    if reading.fixed && n.scrollable {
        return;
    }
    let inner = in_list.map(|inside| inside || n.scrollable);
    for c in &n.children {
        tokens_of(c, reading, inner, in_rows || is_list_view(n), tokens);
    }
}

/// Whether a screen has a scroll view on it.
fn scrolls(screen: &Screen) -> bool {
    let mut found = false;
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| found |= n.scrollable && in_screen(n, screen.width, screen.height) && !is_system_chrome(n));
    }
    found
}

/// Jaccard similarity of two sorted token lists (1.0 for two empty ones).
pub fn similarity(a: &[String], b: &[String]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    both as f64 / (a.len() + b.len() - both) as f64
}

/// The abstract screens of one or more traces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Abstraction {
    /// Minimum signature similarity for two concrete screens to merge (0..1).
    pub tolerance: f64,
    /// The package of the app being reconstructed.
    pub package: String,
    /// The app's frame: tokens every screen of the app shows (its toolbar, a drawer, a
    /// fragment container). Left out of the app's signatures, or a bare frame (a screen still
    /// loading) would be alike enough to every screen of a one-activity app to swallow them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame: Vec<String>,
    pub screens: Vec<AbstractScreen>,
}

/// The fewest screens of the app that tell its frame from what one screen happens to show.
const FRAME_MIN_SCREENS: usize = 4;

/// Where each concrete screen of one trace went: concrete id → abstract index.
pub type ScreenMap = BTreeMap<String, usize>;

/// A trace's concrete screens in the order its steps first show them.
fn first_seen(trace: &Trace) -> Vec<&str> {
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for step in &trace.steps {
        for id in std::iter::once(&step.screen).chain(step.next.as_ref()) {
            if seen.insert(id.as_str()) {
                order.push(id.as_str());
            }
        }
    }
    order
}

impl Abstraction {
    pub fn new(package: &str, tolerance: f64) -> Abstraction {
        Abstraction { tolerance, package: package.to_owned(), frame: Vec::new(), screens: Vec::new() }
    }

    /// Finds the app's frame (`frame`) in all the traces, before any is added.
    pub fn find_frame(&mut self, traces: &[Trace]) {
        let mut common: Option<BTreeSet<String>> = None;
        let mut screens = 0;
        for screen in traces.iter().flat_map(|t| t.screens.values()) {
            if screen.kind != ScreenKind::Full || self.role_of(screen) != Role::App {
                continue;
            }
            let tokens: BTreeSet<String> = signature(screen).into_iter().collect();
            screens += 1;
            common = Some(match common {
                None => tokens,
                Some(c) => c.intersection(&tokens).cloned().collect(),
            });
        }
        self.frame = if screens >= FRAME_MIN_SCREENS { common.unwrap_or_default().into_iter().collect() } else { Vec::new() };
    }

    /// `tokens` without the app's frame, for a screen of the app.
    fn unframed(&self, screen: &Screen, tokens: Vec<String>) -> Vec<String> {
        if self.frame.is_empty() || self.role_of(screen) != Role::App {
            return tokens;
        }
        tokens.into_iter().filter(|t| self.frame.binary_search(t).is_err()).collect()
    }

    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.screens.iter().position(|s| s.id == id)
    }

    fn role_of(&self, screen: &Screen) -> Role {
        if is_launcher_package(&screen.package) {
            Role::Launcher
        } else if screen.package == self.package || screen.package.is_empty() {
            Role::App
        } else {
            Role::Foreign
        }
    }

    /// The abstract screen a concrete screen belongs to, if any matches well enough.
    pub fn classify(&self, trace_index: usize, screen: &Screen) -> Option<usize> {
        let role = self.role_of(screen);
        if role == Role::Launcher {
            return self.screens.iter().position(|s| s.role == Role::Launcher);
        }
        if screen.kind == ScreenKind::HashOnly {
            // Only the same hash in the same trace is known to be the same screen.
            return self.screens.iter().position(|s| s.members.iter().any(|(t, id)| *t == trace_index && *id == screen.id));
        }
        self.most_alike(screen, &self.unframed(screen, signature(screen)), false)
    }

    /// Like `classify`; when no screen matches, the one whose structure apart from list rows
    /// does: a visit the traces never showed, with other rows in its lists (more orders, another
    /// scroll position). For judging new traces; the abstraction itself is built by `classify`.
    pub fn classify_nearest(&self, trace_index: usize, screen: &Screen) -> Option<usize> {
        self.classify(trace_index, screen).or_else(|| {
            if screen.kind == ScreenKind::HashOnly || self.role_of(screen) == Role::Launcher {
                return None;
            }
            self.most_alike(screen, &self.unframed(screen, list_free_signature(screen)), true)
        })
    }

    /// The comparable abstract screen one of whose signatures (the list-free ones when
    /// `lists_free`) is most like `sig`, if at least `tolerance` alike.
    fn most_alike(&self, screen: &Screen, sig: &[String], lists_free: bool) -> Option<usize> {
        let mut best: Option<(f64, usize)> = None;
        let tab = selected_tab(screen);
        for (i, s) in self.screens.iter().enumerate() {
            if !self.comparable(s, screen, &tab) {
                continue;
            }
            let sim = s.signatures(lists_free).map(|of| similarity(of, sig)).fold(0.0, f64::max);
            if sim >= self.tolerance && best.is_none_or(|(b, _)| sim > b) {
                best = Some((sim, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// Same kind, package, selected tab (`tab`, the screen's) and (where both are known) activity.
    fn comparable(&self, s: &AbstractScreen, screen: &Screen, tab: &str) -> bool {
        s.kind == screen.kind
            && s.package == screen.package
            && s.tab == tab
            && (s.activity.is_empty() || screen.activity.is_empty() || s.activity == screen.activity)
    }

    /// Adds a trace's concrete screens, merging them into existing abstract screens or
    /// making new ones; returns where each went. More than `MAX_ABSTRACT_SCREENS` abstract
    /// screens is an error naming the trace (each new screen is compared with all before it).
    pub fn add_trace(&mut self, trace_index: usize, trace: &Trace) -> Result<ScreenMap, ReconError> {
        let mut map = ScreenMap::new();
        for id in first_seen(trace) {
            let Some(screen) = trace.screens.get(id) else { continue };
            let index = match self.classify(trace_index, screen) {
                Some(i) => i,
                None if self.screens.len() >= MAX_ABSTRACT_SCREENS => {
                    let message = format!("more than {MAX_ABSTRACT_SCREENS} different screens in all (the limit)");
                    return Err(ReconError::format(std::path::Path::new(&trace.source), message));
                }
                None => {
                    self.screens.push(AbstractScreen {
                        id: String::new(),
                        role: self.role_of(screen),
                        kind: screen.kind,
                        package: screen.package.clone(),
                        activity: screen.activity.clone(),
                        signature: self.unframed(screen, signature(screen)),
                        list_free_signature: self.unframed(screen, list_free_signature(screen)),
                        members: Vec::new(),
                        visits: 0,
                        title: title_of(screen),
                        tab: selected_tab(screen),
                        scrolled: Vec::new(),
                    });
                    self.screens.len() - 1
                }
            };
            self.screens[index].members.push((trace_index, id.to_owned()));
            map.insert(id.to_owned(), index);
        }
        for step in &trace.steps {
            for id in std::iter::once(&step.screen).chain(step.next.as_ref()) {
                if let Some(&i) = map.get(id) {
                    self.screens[i].visits += 1;
                }
            }
        }
        Ok(map)
    }

    /// Moves each visit to the screen it is most like now that every screen exists: a visit
    /// is added to the first screen alike enough when it comes, and a screen made later may be
    /// more like it (the one replaying the traces finds). The visit that made a screen stays.
    pub fn settle(&mut self, traces: &[Trace], maps: &mut [ScreenMap]) {
        let founders: BTreeSet<(usize, String)> = self.screens.iter().filter_map(|s| s.members.first().cloned()).collect();
        for (t, (trace, map)) in traces.iter().zip(maps.iter_mut()).enumerate() {
            for (id, index) in map.iter_mut() {
                if founders.contains(&(t, id.clone())) {
                    continue;
                }
                let Some(screen) = trace.screens.get(id) else { continue };
                let Some(best) = self.classify(t, screen).filter(|best| best != index) else { continue };
                self.screens[*index].members.retain(|(mt, mid)| !(*mt == t && mid == id));
                self.screens[best].members.push((t, id.clone()));
                *index = best;
            }
        }
        self.order_members_and_count_visits(traces, maps);
    }

    /// Puts each screen's members in the order they were first seen (the first makes the
    /// screen's example) and counts its visits.
    fn order_members_and_count_visits(&mut self, traces: &[Trace], maps: &[ScreenMap]) {
        let seen_at: Vec<BTreeMap<&str, usize>> =
            traces.iter().map(|trace| first_seen(trace).into_iter().enumerate().map(|(i, id)| (id, i)).collect()).collect();
        for s in &mut self.screens {
            s.members.sort_by_key(|(t, id)| (*t, seen_at.get(*t).and_then(|m| m.get(id.as_str())).copied().unwrap_or(usize::MAX)));
        }
        for s in &mut self.screens {
            s.visits = 0;
        }
        for (trace, map) in traces.iter().zip(maps.iter()) {
            for step in &trace.steps {
                for id in std::iter::once(&step.screen).chain(step.next.as_ref()) {
                    if let Some(&i) = map.get(id) {
                        self.screens[i].visits += 1;
                    }
                }
            }
        }
    }

    /// Merges screens a vertical swipe went between that differ only in what their scroll
    /// view shows: one settings page scrolled, whose rows (each with its own id) made the
    /// scrolled view look like another screen. The screen first made keeps the other's members
    /// (their rows join its page, below the fold) and its signatures as views scrolled
    /// elsewhere; the rebuilt screen scrolls where the person swiped.
    pub fn merge_scrolled(&mut self, traces: &[Trace], maps: &mut [ScreenMap]) {
        let mut merged = false;
        while let Some((keep, gone)) = self.scrolled_pair(traces, maps) {
            let other = self.screens.remove(gone);
            let keep = if keep > gone { keep - 1 } else { keep };
            let s = &mut self.screens[keep];
            s.members.extend(other.members);
            s.scrolled.push(ScrolledView { signature: other.signature, list_free_signature: other.list_free_signature });
            s.scrolled.extend(other.scrolled);
            for index in maps.iter_mut().flat_map(|m| m.values_mut()) {
                if *index == gone {
                    *index = keep;
                } else if *index > gone {
                    *index -= 1;
                }
            }
            merged = true;
        }
        if merged {
            self.order_members_and_count_visits(traces, maps);
        }
    }

    /// Two screens of the app (the first made, the other) a vertical swipe went between, of one
    /// activity, tab and kind, that show the same outside their scroll views.
    fn scrolled_pair(&self, traces: &[Trace], maps: &[ScreenMap]) -> Option<(usize, usize)> {
        for (trace, map) in traces.iter().zip(maps) {
            for step in &trace.steps {
                let TraceAction::Swipe { x1, y1, x2, y2 } = step.action else { continue };
                if (y2 - y1).abs() <= (x2 - x1).abs() {
                    continue;
                }
                let Some(next) = step.next.as_ref() else { continue };
                let (Some(&a), Some(&b)) = (map.get(&step.screen), map.get(next)) else { continue };
                let (Some(sa), Some(sb)) = (trace.screens.get(&step.screen), trace.screens.get(next)) else { continue };
                let (x, y) = (&self.screens[a], &self.screens[b]);
                let alike = a != b
                    && x.role == Role::App
                    && y.role == Role::App
                    && x.kind == ScreenKind::Full
                    && y.kind == ScreenKind::Full
                    && !x.activity.is_empty()
                    && x.activity == y.activity
                    && x.tab == y.tab;
                if !alike || !scrolls(sa) || !scrolls(sb) {
                    continue;
                }
                let (fa, fb) = (self.unframed(sa, fixed_signature(sa)), self.unframed(sb, fixed_signature(sb)));
                if !fa.is_empty() && similarity(&fa, &fb) >= self.tolerance {
                    return Some((a.min(b), a.max(b)));
                }
            }
        }
        None
    }

    /// Gives every abstract screen a readable, unique id (from its activity).
    pub fn name_screens(&mut self) {
        let mut used: BTreeSet<String> = BTreeSet::new();
        for s in &mut self.screens {
            if !s.id.is_empty() {
                used.insert(s.id.clone());
            }
        }
        for i in 0..self.screens.len() {
            if !self.screens[i].id.is_empty() {
                continue;
            }
            let s = &self.screens[i];
            let base = match (s.role, s.kind) {
                (Role::Launcher, _) => "launcher".to_owned(),
                (_, ScreenKind::HashOnly) => {
                    format!("unsaved_{}", snake(&s.members.first().map(|m| m.1.chars().take(6).collect::<String>()).unwrap_or_default()))
                }
                _ => {
                    let mut name = activity_name(&s.activity);
                    if name.is_empty() {
                        name = snake(&s.title);
                    }
                    if name.is_empty() {
                        name = "screen".into();
                    }
                    if s.role == Role::Foreign {
                        let app = s.package.rsplit('.').next().unwrap_or("other");
                        name = format!("{}_{name}", snake(app));
                    }
                    if s.kind == ScreenKind::Dialog {
                        name.push_str("_dialog");
                    }
                    name
                }
            };
            let mut id = base.clone();
            let mut n = 2;
            while used.contains(&id) {
                id = format!("{base}_{n}");
                n += 1;
            }
            used.insert(id.clone());
            self.screens[i].id = id;
        }
    }
}

/// `Some_Name-x` → `some_name_x`; splits camel case.
pub fn snake(text: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_ascii_uppercase() {
            if prev_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            prev_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    let out = out.trim_matches('_').to_owned();
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("s_{out}")
    } else {
        out
    }
}

/// `com.x/.ui.LoginActivity` → `login`; `com.phoneworld.clock/alarm_edit` → `alarm_edit`.
fn activity_name(activity: &str) -> String {
    let class = activity.rsplit('/').next().unwrap_or(activity);
    let class = class.rsplit('.').next().unwrap_or(class);
    let name = snake(class);
    let trimmed = name.trim_start_matches("activity_").trim_end_matches("_activity");
    if trimmed.is_empty() || trimmed == "activity" {
        name
    } else {
        trimmed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_like_the_activity() {
        assert_eq!(activity_name("com.yelp.android/.ui.activities.feed.ActivityFeed"), "feed");
        assert_eq!(activity_name("com.duolingo/com.duolingo.app.LoginActivity"), "login");
        assert_eq!(activity_name("com.phoneworld.clock/alarm_edit"), "alarm_edit");
        assert_eq!(snake("SearchBusinessesByList"), "search_businesses_by_list");
        assert_eq!(snake("36b4f2"), "s_36b4f2");
    }

    #[test]
    fn similarity_is_jaccard() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(similarity(&t(&["a", "b"]), &t(&["a", "b"])), 1.0);
        assert_eq!(similarity(&t(&["a", "b"]), &t(&["b", "c"])), 1.0 / 3.0);
        assert_eq!(similarity(&[], &[]), 1.0);
        assert_eq!(similarity(&t(&["a"]), &[]), 0.0);
    }

    /// A node of the app `app` with the resource id `rid`.
    fn node(class: &str, rid: &str, b: [i32; 4]) -> UiNode {
        UiNode { resource_id: format!("app:id/{rid}"), package: "app".into(), ..UiNode::new(class, b) }
    }

    /// A one-activity app: every screen is the same toolbar and fragment container around
    /// what the fragment shows.
    fn fragment_screen(id: &str, content: &[&str]) -> Screen {
        let mut root = node("android.widget.FrameLayout", "content", [0, 0, 1080, 2400]);
        for (i, rid) in ["toolbar", "drawer_layout", "fragment_container", "menu_button", "title"].iter().enumerate() {
            root.children.push(node("android.widget.FrameLayout", rid, [0, i as i32 * 10, 1080, 200]));
        }
        for (i, rid) in content.iter().enumerate() {
            root.children.push(node("android.widget.EditText", rid, [0, 300 + i as i32 * 200, 1080, 450 + i as i32 * 200]));
        }
        Screen::from_root(id, "app", "app/.Main", 1080, 2400, Some(root))
    }

    #[test]
    fn a_bare_frame_does_not_swallow_the_screens_of_a_one_activity_app() {
        let mut trace = Trace::new("rico", std::path::Path::new("t"));
        let screens = [
            fragment_screen("loading", &[]),
            fragment_screen("shop", &["grid", "price", "buy_all"]),
            fragment_screen("login", &["username", "password", "log_in"]),
            fragment_screen("login_again", &["username", "password", "log_in", "forgot"]),
        ];
        for s in screens {
            trace.steps.push(crate::trace::TraceStep {
                screen: s.id.clone(),
                action: crate::trace::TraceAction::Wait,
                target: None,
                next: None,
            });
            trace.screens.insert(s.id.clone(), s);
        }
        let mut abstraction = Abstraction::new("app", 0.5);
        abstraction.find_frame(std::slice::from_ref(&trace));
        assert_eq!(abstraction.frame.len(), 6, "{:?}", abstraction.frame);
        let map = abstraction.add_trace(0, &trace).unwrap();
        assert_eq!(abstraction.screens.len(), 3, "{map:?}");
        assert_eq!(map["login"], map["login_again"]);
        assert_ne!(map["loading"], map["shop"]);
        assert_ne!(map["shop"], map["login"]);
    }

    #[test]
    fn a_visit_settles_in_the_screen_it_is_most_like_once_every_screen_exists() {
        let mut trace = Trace::new("rico", std::path::Path::new("t"));
        // `both` is alike enough to `first` when it comes; `last`, made after it, is more like it.
        let screens = [
            fragment_screen("first", &["p", "q", "r", "s"]),
            fragment_screen("both", &["p", "q", "r", "s", "t", "u", "v", "w"]),
            fragment_screen("last", &["r", "s", "t", "u", "v", "w"]),
        ];
        for s in screens {
            let step = crate::trace::TraceStep { screen: s.id.clone(), action: crate::trace::TraceAction::Wait, target: None, next: None };
            trace.steps.push(step);
            trace.screens.insert(s.id.clone(), s);
        }
        // With the toolbar and frame the three share, `both` is 0.71 like `first` and 0.86 like
        // `last`; `last` is 0.57 like `first`.
        let mut abstraction = Abstraction::new("app", 0.65);
        let mut maps = vec![abstraction.add_trace(0, &trace).unwrap()];
        assert_eq!(maps[0]["both"], maps[0]["first"], "alike enough when it came");
        abstraction.settle(std::slice::from_ref(&trace), &mut maps);
        assert_eq!(maps[0]["both"], maps[0]["last"]);
        let last = &abstraction.screens[maps[0]["last"]];
        assert_eq!(last.members, [(0, "both".to_owned()), (0, "last".to_owned())], "in the order they were seen");
        assert_eq!((abstraction.screens[maps[0]["first"]].visits, last.visits), (1, 2));
        assert_eq!(abstraction.classify(0, &trace.screens["both"]), Some(maps[0]["both"]), "where replaying finds it");
    }

    /// A settings page: a title bar and a scroll view whose rows each have their own id.
    fn settings_page(id: &str, rows: &[&str]) -> Screen {
        let mut root = node("android.widget.FrameLayout", "content", [0, 0, 1080, 2400]);
        root.children.push(node("android.widget.TextView", "settings_title", [0, 0, 1080, 200]));
        let mut scroll = node("android.widget.ScrollView", "settings_scroll", [0, 200, 1080, 2400]);
        scroll.scrollable = true;
        for (i, rid) in rows.iter().enumerate() {
            let top = 200 + i as i32 * 300;
            scroll.children.push(node("android.widget.CheckBox", rid, [0, top, 1080, top + 300]));
        }
        root.children.push(scroll);
        Screen::from_root(id, "app", "app/.Settings", 1080, 2400, Some(root))
    }

    #[test]
    fn a_page_a_vertical_swipe_scrolled_is_one_screen_and_a_sideways_one_is_not() {
        let rows = ["colors", "font", "dialpad", "thumbnails", "sort", "merge"];
        let abstraction_after = |swipe: TraceAction| {
            let mut trace = Trace::new("droidbot", std::path::Path::new("t"));
            let (top, scrolled) = (settings_page("top", &rows[..4]), settings_page("scrolled", &rows[2..]));
            trace.steps.push(crate::trace::TraceStep { screen: "top".into(), action: swipe, target: None, next: Some("scrolled".into()) });
            trace.steps.push(crate::trace::TraceStep { screen: "scrolled".into(), action: TraceAction::Wait, target: None, next: None });
            trace.screens.insert("top".into(), top);
            trace.screens.insert("scrolled".into(), scrolled);
            let mut abstraction = Abstraction::new("app", 0.7);
            let mut maps = vec![abstraction.add_trace(0, &trace).unwrap()];
            assert_ne!(maps[0]["top"], maps[0]["scrolled"], "the rows' ids make them look apart");
            abstraction.settle(std::slice::from_ref(&trace), &mut maps);
            abstraction.merge_scrolled(std::slice::from_ref(&trace), &mut maps);
            (abstraction, maps, trace)
        };
        let (abstraction, maps, trace) = abstraction_after(TraceAction::Swipe { x1: 540.0, y1: 1800.0, x2: 540.0, y2: 600.0 });
        assert_eq!(abstraction.screens.len(), 1);
        assert_eq!(maps[0]["top"], maps[0]["scrolled"]);
        assert_eq!(abstraction.screens[0].members, [(0, "top".to_owned()), (0, "scrolled".to_owned())]);
        assert_eq!(abstraction.screens[0].visits, 3);
        // A trace scrolled there again is that screen too.
        assert_eq!(abstraction.classify(1, &trace.screens["scrolled"]), Some(0));
        let (sideways, _, _) = abstraction_after(TraceAction::Swipe { x1: 900.0, y1: 1200.0, x2: 100.0, y2: 1200.0 });
        assert_eq!(sideways.screens.len(), 2, "pages swiped sideways are pages of their own");
    }
}
