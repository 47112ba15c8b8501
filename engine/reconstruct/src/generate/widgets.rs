//! Android hierarchies to PhoneWorld widgets: which nodes are kept, what widget each
//! becomes, and where it sits (absolute dp boxes in the app area).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::abstraction::is_system_chrome;
use crate::graph::same_without_numbers;
use crate::trace::UiNode;
use crate::visual::Rgb;

/// The phone the app is generated for: 1080 x 2400 at 420 dpi, 28 dp status bar, 48 dp nav bar.
pub(crate) const DEVICE_W: f64 = 1080.0;
pub(crate) const DEVICE_H: f64 = 2400.0;
pub(crate) const PX_PER_DP: f64 = 420.0 / 160.0;
pub(crate) const STATUS_DP: f64 = 28.0;
pub(crate) const NAV_DP: f64 = 48.0;

/// The shares of the phone's height its status bar and its navigation bar take.
pub(crate) fn bar_shares() -> (f64, f64) {
    (STATUS_DP * PX_PER_DP / DEVICE_H, NAV_DP * PX_PER_DP / DEVICE_H)
}

/// The app area in dp.
pub(crate) fn app_area() -> (f64, f64) {
    (DEVICE_W / PX_PER_DP, DEVICE_H / PX_PER_DP - STATUS_DP - NAV_DP)
}

/// What a generated widget is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WidgetKind {
    Container,
    Text,
    Button,
    Image,
    /// A small image: drawn as a Material icon guessed from its description.
    Icon,
    TextField,
    Switch,
    Checkbox,
}

/// What a widget does in the traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WidgetRole {
    /// Led to another screen.
    Navigation,
    /// Holds a value that becomes app state (text fields, toggles).
    Input,
    /// Read-only content.
    Static,
}

/// Where a text's picture is drawn (see `drawables`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Above,
    Before,
}

/// A text's picture: its bundle file, its box (dp, absolute like the widget's), and where the
/// text begins on that side of its box (dp from the box's edge: the text's padding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Drawable {
    pub image: String,
    pub rect: [f64; 4],
    pub side: Side,
    pub inset: f64,
}

/// A generated widget with its absolute box (dp, in the app area) and where it came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Widget {
    pub id: String,
    pub kind: WidgetKind,
    pub role: WidgetRole,
    /// `[x, y, width, height]` in dp.
    pub rect: [f64; 4],
    pub class: String,
    pub resource_id: String,
    pub text: String,
    pub content_desc: String,
    /// The source bounds normalized to 0..1.
    pub source_box: [f64; 4],
    pub checked: bool,
    /// The node took taps (or long presses) on the real phone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clickable: bool,
    /// Shown as the selected one (a day in a month grid).
    #[serde(default)]
    pub selected: bool,
    /// A scrolling list: its rows are alike, and what one row does the others do.
    #[serde(default)]
    pub list: bool,
    #[serde(default)]
    pub background: Option<[u8; 3]>,
    /// The colour and place of its text as the screenshot draws it (texts and buttons).
    #[serde(default)]
    pub ink: Option<super::ink::Ink>,
    #[serde(default)]
    pub on_tap: Option<String>,
    #[serde(default)]
    pub on_long_press: Option<String>,
    /// A field's handler for a new value.
    #[serde(default)]
    pub on_change: Option<String>,
    /// The app-state key an input writes (`state.<key>`).
    pub state_key: Option<String>,
    /// A field that opened empty whenever its screen was opened again: it shows the screen's
    /// own value (`local.<key>`), and what is typed is copied into `state.<key>` (`remember`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub opens_empty: bool,
    /// Shows what a form saved (`state.<key>`, see `remember::echoes`), where the traces
    /// showed the typed text after saving; hidden while nothing was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo: Option<String>,
    /// Shown only while this state key is true (an item picked into the screen,
    /// `remember::picks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown_if: Option<String>,
    /// What a field holds when the app is installed, where the traces showed both its blank
    /// look (its hint, `text`) and this first (`remember::echoes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_text: Option<String>,
    #[serde(default)]
    pub children: Vec<Widget>,
    /// A list row added from a later visit of the screen (see `merge_visit`).
    #[serde(default)]
    pub merged: bool,
    /// The bundle file cut out of the screenshot for this picture (see `crops`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The picture a text draws inside its own box (see `drawables`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawable: Option<Drawable>,
    /// Only drawn, no element of the UI tree: the part of its picture a view too large to cut
    /// keeps (see `crops`), so the view stays the element the hierarchy names.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub decorative: bool,
}

impl Widget {
    /// A list with rows below its box (from visits scrolled further down): it scrolls over them.
    pub(crate) fn scrolls_over_rows(&self) -> bool {
        let content_bottom = self.children.iter().map(|c| c.rect[1] + c.rect[3]).fold(0.0, f64::max);
        self.list && content_bottom > self.rect[1] + self.rect[3] + 1.0
    }

    /// Part of it is below the app area, where only scrolling shows it.
    pub(crate) fn below_the_fold(&self) -> bool {
        past_the_fold(self.rect)
    }

    /// A checkbox or a switch: a box a tap turns on or off.
    pub(crate) fn is_toggle(&self) -> bool {
        matches!(self.kind, WidgetKind::Checkbox | WidgetKind::Switch)
    }

    /// A tap on it runs handler `name`, which leads to another screen.
    pub(crate) fn navigates_on_tap(&mut self, name: &str) {
        self.on_tap = Some(name.to_owned());
        self.role = WidgetRole::Navigation;
    }

    /// Whether it does something when used: a handler, or a box that toggles.
    pub(crate) fn acts_itself(&self) -> bool {
        self.on_tap.is_some() || self.on_long_press.is_some() || self.on_change.is_some() || self.is_toggle()
    }

    /// Whether it or anything inside it does something when used.
    pub(crate) fn acts(&self) -> bool {
        let mut acts = false;
        self.walk(&mut |c| acts |= c.acts_itself());
        acts
    }

    /// Whether it covers at most a quarter of the screen: a row, not a page.
    pub(crate) fn row_sized(&self) -> bool {
        crate::see::area(self.source_box) <= ROW_MAX_SHARE
    }

    /// A control the real phone took taps on that does nothing here yet (not a field): one
    /// that may take a handler no trace showed (`lend`, `titled`).
    pub(crate) fn unused_control(&self) -> bool {
        self.clickable && !self.acts() && self.role != WidgetRole::Input && self.kind != WidgetKind::TextField
    }

    pub fn walk<'w>(&'w self, f: &mut dyn FnMut(&'w Widget)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }

    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Widget)) {
        f(self);
        for c in &mut self.children {
            c.walk_mut(f);
        }
    }
}

/// Keeps containers nested at most `levels` deep (a list that scrolls counts twice: it is
/// written as a Scroll around a Stack): the widgets below the last container level become
/// that container's own children, in order. Boxes are absolute, so every widget stays where
/// it was; only the nesting is cut.
pub(crate) fn limit_depth(widgets: &mut [Widget], levels: usize) {
    for w in widgets.iter_mut().filter(|w| !w.children.is_empty()) {
        let inner = levels.saturating_sub(if w.scrolls_over_rows() { 2 } else { 1 });
        if inner == 0 {
            let mut below = Vec::new();
            for c in std::mem::take(&mut w.children) {
                flatten_into(c, &mut below);
            }
            w.children = below;
        } else {
            limit_depth(&mut w.children, inner);
        }
    }
}

/// The widgets a layout of `widgets` builds: each one, and the Stack inside a list that scrolls.
pub(crate) fn built_count(widgets: &[Widget]) -> usize {
    widgets.iter().map(|w| own_nodes(w) + built_count(&w.children)).sum()
}

/// The nodes a widget's layout builds besides its children's: a scroll around its rows, the
/// picture drawn in its box.
fn own_nodes(w: &Widget) -> usize {
    1 + usize::from(w.scrolls_over_rows()) + usize::from(w.drawable.is_some())
}

/// Keeps the first `max` widgets a layout builds, in pre-order (the end of a screen goes,
/// usually rows further down a list); returns how many were left out.
pub(crate) fn limit_count(widgets: &mut Vec<Widget>, max: usize) -> usize {
    let mut left = max;
    keep_first(widgets, &mut left)
}

fn keep_first(widgets: &mut Vec<Widget>, left: &mut usize) -> usize {
    let mut removed = 0;
    let mut kept = 0;
    for w in widgets.iter_mut() {
        let own = own_nodes(w);
        if *left < own {
            break;
        }
        *left -= own;
        removed += keep_first(&mut w.children, left);
        kept += 1;
    }
    removed += widgets.drain(kept..).map(|w| built_count(std::slice::from_ref(&w))).sum::<usize>();
    removed
}

/// A widget and its descendants, in pre-order, each without children.
fn flatten_into(mut w: Widget, out: &mut Vec<Widget>) {
    let children = std::mem::take(&mut w.children);
    out.push(w);
    for c in children {
        flatten_into(c, out);
    }
}

/// Converts source pixels to the generated app's dp boxes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mapper {
    pub(crate) width: f64,
    pub(crate) height: f64,
}

impl Mapper {
    /// The mapper of a screen of `size` pixels (a zero side counts as one).
    pub(crate) fn for_size(size: (u32, u32)) -> Mapper {
        Mapper { width: f64::from(size.0.max(1)), height: f64::from(size.1.max(1)) }
    }

    pub(crate) fn normalized(&self, b: [i32; 4]) -> [f64; 4] {
        [f64::from(b[0]) / self.width, f64::from(b[1]) / self.height, f64::from(b[2]) / self.width, f64::from(b[3]) / self.height]
    }

    /// `[x, y, w, h]` in app-area dp, clipped to the app area.
    pub(crate) fn rect(&self, b: [i32; 4]) -> [f64; 4] {
        self.rect_clipped(b, false)
    }

    /// `[x, y, w, h]` in app-area dp, clipped to the app area except below it when
    /// `below` (what a list holds there is scrolled to, not cut off).
    fn rect_clipped(&self, b: [i32; 4], below: bool) -> [f64; 4] {
        let n = self.normalized(b);
        let (aw, ah) = app_area();
        let bottom = if below { f64::INFINITY } else { ah };
        let x1 = (n[0] * DEVICE_W / PX_PER_DP).clamp(0.0, aw);
        let x2 = (n[2] * DEVICE_W / PX_PER_DP).clamp(0.0, aw);
        let y1 = (n[1] * DEVICE_H / PX_PER_DP - STATUS_DP).clamp(0.0, bottom);
        let y2 = (n[3] * DEVICE_H / PX_PER_DP - STATUS_DP).clamp(0.0, bottom);
        [x1.round(), y1.round(), (x2 - x1).round(), (y2 - y1).round()]
    }

    /// The box of a control of the app: like `rect_clipped`, but a bar the app drew where the
    /// phone's navigation bar is (a full-screen app's tabs), which would be cut to nothing,
    /// sits right above the navigation bar, whole, so it can be seen and tapped. One cut only
    /// in part stays cut (moved up, it would cover what the screen shows there), and so does
    /// what a screenshot shows there (the real phone's own bar).
    fn control_rect(&self, b: [i32; 4], below: bool) -> [f64; 4] {
        let r = self.rect_clipped(b, below);
        let n = self.normalized(b);
        let (top, end) = (n[1] * DEVICE_H / PX_PER_DP - STATUS_DP, n[3] * DEVICE_H / PX_PER_DP - STATUS_DP);
        let ah = app_area().1;
        let tall = (end - top).round();
        if !below && end > ah && r[3] < SLIVER_DP && tall <= MAX_BOTTOM_BAR_DP {
            return [r[0], (ah - tall).max(0.0), r[2], tall];
        }
        r
    }
}

/// The tallest box taken for a bar drawn at the bottom of the screen (a tab bar, a button).
const MAX_BOTTOM_BAR_DP: f64 = 96.0;

/// What is left of a box cut this thin at the app area's bottom is nothing to see or tap.
const SLIVER_DP: f64 = 4.0;

/// An `[x, y, w, h]` box (app-area dp) reaches below the app area.
fn past_the_fold(r: [f64; 4]) -> bool {
    r[1] + r[3] > app_area().1 + 1.0
}

/// Shown, or scrolled to: Android reports a list's row under its navigation bar as not
/// visible to the user, which in the rebuilt app is below the fold (`in_list`).
fn visible(n: &UiNode, r: [f64; 4], in_list: bool) -> bool {
    let under_the_bar = in_list && past_the_fold(r);
    (n.visible || under_the_bar) && n.width() > 0 && n.height() > 0 && r[2] >= 1.0 && r[3] >= 1.0
}

/// At most 72 dp either way on a 1080-wide screen (about a fifth of its width).
fn small(n: &UiNode) -> bool {
    n.width() <= n.height().max(1) * 3 && n.width() < 200 && n.height() < 200
}

/// A Material icon for a small image, from words of its description or id.
pub(crate) fn guess_icon(desc: &str, id: &str) -> &'static str {
    WORDS.iter().find(|(word, _)| text_has(desc, id, word)).map(|(_, icon)| *icon).unwrap_or("circle")
}

fn text_has(desc: &str, id: &str, word: &str) -> bool {
    desc.to_lowercase().contains(word) || id.to_lowercase().replace('_', " ").contains(word)
}

/// Words of a description and the icons they suggest, first match wins.
pub(crate) const WORDS: [(&str, &str); 24] = [
    ("back", "arrow_back"),
    ("navigate up", "arrow_back"),
    ("setting", "settings"),
    ("search", "search"),
    ("more", "more_vert"),
    ("menu", "menu"),
    ("close", "close"),
    ("cancel", "close"),
    ("add", "add"),
    ("new", "add"),
    ("share", "share"),
    ("delete", "delete"),
    ("edit", "edit"),
    ("home", "home"),
    ("favorite", "favorite"),
    ("star", "star"),
    ("increase", "expand_less"),
    ("decrease", "expand_more"),
    ("next", "chevron_right"),
    ("previous", "chevron_left"),
    ("profile", "account_circle"),
    ("account", "account_circle"),
    ("notification", "notifications"),
    ("call", "call"),
];

fn kind_of(n: &UiNode, kept_children: usize) -> Option<WidgetKind> {
    let class = n.short_class();
    if n.editable {
        return Some(WidgetKind::TextField);
    }
    if n.checkable && kept_children == 0 {
        return Some(if class.contains("Switch") || class.contains("Toggle") { WidgetKind::Switch } else { WidgetKind::Checkbox });
    }
    if kept_children == 0 {
        if !n.text.is_empty() && class.contains("Button") {
            return Some(WidgetKind::Button);
        }
        if !n.text.is_empty() {
            return Some(WidgetKind::Text);
        }
        // A large control known only by its description (a tab): a button labelled with it.
        if (n.clickable || n.long_clickable) && !n.content_desc.is_empty() && !small(n) {
            return Some(WidgetKind::Button);
        }
        if !n.content_desc.is_empty() || class.contains("Image") || n.clickable || !n.resource_id.is_empty() {
            return Some(if small(n) { WidgetKind::Icon } else { WidgetKind::Image });
        }
        return None;
    }
    Some(WidgetKind::Container)
}

/// Builds the widgets of a hierarchy; wrappers with one child and nothing of their own
/// are left out, so the layout keeps the hierarchy without Android's nesting noise.
pub(crate) fn build(n: &UiNode, m: &Mapper, shot: Option<&Rgb>) -> Vec<Widget> {
    build_within(n, m, shot, false)
}

/// `build` of a node inside a list when `in_list`: the real screen may draw a list's rows
/// behind its navigation bar (edge to edge), where the rebuilt phone has its own bar; there
/// they go below the list's box, where scrolling reveals them, instead of being cut to
/// nothing.
fn build_within(n: &UiNode, m: &Mapper, shot: Option<&Rgb>, in_list: bool) -> Vec<Widget> {
    let rect = m.control_rect(n.bounds, in_list);
    if !visible(n, rect, in_list) {
        return Vec::new();
    }
    let mut children: Vec<Widget> = n.children.iter().flat_map(|c| build_within(c, m, shot, in_list || n.scrollable)).collect();
    // A scroll view holds one container of content: its children are the list's rows.
    if n.scrollable && children.len() == 1 && children[0].kind == WidgetKind::Container && !children[0].children.is_empty() {
        let content = n.children.iter().find(|c| c.visible && c.width() > 0);
        if content.is_some_and(|c| !c.clickable && !c.long_clickable) {
            children = std::mem::take(&mut children[0].children);
        }
    }
    // The system's own nodes are not the screen's, but a dialog the app opened may sit in a
    // system window: what the app drew there is kept.
    if is_system_chrome(n) {
        return children;
    }
    let speaks = !n.resource_id.is_empty() || !n.content_desc.is_empty() || n.clickable || n.long_clickable;
    if !children.is_empty() && !speaks && children.len() == 1 && !n.editable {
        return children;
    }
    // A wrapper exactly the size of its only child adds nesting, not structure.
    let passive = !n.clickable && !n.long_clickable && n.content_desc.is_empty() && !n.editable;
    if passive && children.len() == 1 && children[0].kind == WidgetKind::Container && children[0].rect == rect {
        return children;
    }
    let Some(kind) = kind_of(n, children.len()) else { return children };
    let nb = m.normalized(n.bounds);
    let background = match kind {
        WidgetKind::Container | WidgetKind::Button => shot.and_then(|s| s.container_colour(nb[0], nb[1], nb[2], nb[3])),
        _ => None,
    };
    let ink = match kind {
        WidgetKind::Text | WidgetKind::Button => shot.and_then(|s| super::ink::ink_of(s, nb)),
        _ => None,
    };
    vec![Widget {
        id: String::new(),
        kind,
        role: if matches!(kind, WidgetKind::TextField | WidgetKind::Switch | WidgetKind::Checkbox) {
            WidgetRole::Input
        } else {
            WidgetRole::Static
        },
        rect,
        class: n.class.clone(),
        resource_id: n.resource_id.clone(),
        text: n.text.clone(),
        content_desc: n.content_desc.clone(),
        source_box: nb,
        checked: n.checked,
        clickable: n.clickable || n.long_clickable,
        selected: n.selected,
        list: n.scrollable,
        background,
        ink,
        on_tap: None,
        on_long_press: None,
        on_change: None,
        state_key: None,
        opens_empty: false,
        echo: None,
        shown_if: None,
        initial_text: None,
        image: None,
        decorative: false,
        drawable: None,
        children: if kind == WidgetKind::Container { children } else { Vec::new() },
        merged: false,
    }]
}

/// How well a generated widget matches a target node (higher is better; 0 is no match).
pub(crate) fn match_score(w: &Widget, node: &UiNode, m: &Mapper) -> f64 {
    let nb = m.normalized(node.bounds);
    let iou = iou(w.source_box, nb);
    let mut score = 0.0;
    // Same id but another label is another control in the same place (a pager's pages).
    let relabeled = !node.text.is_empty() && !w.text.is_empty() && w.class.contains("Button") && !same_without_numbers(&w.text, &node.text);
    if !node.resource_id.is_empty() && w.resource_id == node.resource_id && !relabeled {
        score += 4.0;
    }
    // A node with an id is the widget with that id: the same text or description on another
    // widget is another control (the phone's Home button is not a "Home" category chip).
    let other_id = !node.resource_id.is_empty() && w.resource_id != node.resource_id;
    if !other_id && !node.text.is_empty() && w.text == node.text {
        score += 2.0;
    }
    if !other_id && !node.content_desc.is_empty() && w.content_desc == node.content_desc {
        score += 2.0;
    }
    // Nothing but the place in common: a field where another visit had a list row is not
    // that row, nor the other way round, and a widget with an id the screen lacks is not
    // another class of widget in its place.
    let field_or_not = node.editable != (w.kind == WidgetKind::TextField);
    let other_class = other_id && w.class != node.class;
    if relabeled || (score == 0.0 && (iou < 0.5 || field_or_not || other_class)) {
        return 0.0;
    }
    score + iou
}

/// The widget of a tree that best matches a node, among those `eligible` (first of equals).
pub(crate) fn best_match<'w>(widgets: &'w [Widget], node: &UiNode, m: &Mapper, eligible: &dyn Fn(&Widget) -> bool) -> Option<&'w Widget> {
    let mut best: Option<(f64, &Widget)> = None;
    for w in widgets {
        w.walk(&mut |w| {
            let s = if eligible(w) { match_score(w, node, m) } else { 0.0 };
            if s > 0.0 && best.is_none_or(|(b, _)| s > b) {
                best = Some((s, w));
            }
        });
    }
    best.map(|(_, w)| w)
}

/// Whether a hierarchy shows `toggle` checked: its checkable node that best matches it (on a
/// page scrolled elsewhere, another box sits where the toggle was first seen; its own id tells
/// them apart).
pub(crate) fn checked_in(toggle: &Widget, root: &UiNode, m: &Mapper) -> Option<bool> {
    let mut best: Option<(f64, bool)> = None;
    root.walk(&mut Vec::new(), &mut |_, n| {
        let score = if n.checkable { match_score(toggle, n, m) } else { 0.0 };
        if score > 0.0 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, n.checked));
        }
    });
    best.map(|(_, checked)| checked)
}

/// The widget with id `id`, wherever it is in the tree `widgets`.
pub(crate) fn find_widget<'w>(widgets: &'w [Widget], id: &str) -> Option<&'w Widget> {
    let mut found = None;
    for w in widgets {
        w.walk(&mut |w| {
            if found.is_none() && w.id == id {
                found = Some(w);
            }
        });
    }
    found
}

/// Intersection over union of two `[x1, y1, x2, y2]` boxes.
pub fn iou(a: [f64; 4], b: [f64; 4]) -> f64 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = ix * iy;
    let union = (a[2] - a[0]).max(0.0) * (a[3] - a[1]).max(0.0) + (b[2] - b[0]).max(0.0) * (b[3] - b[1]).max(0.0) - inter;
    if union <= 0.0 {
        0.0
    } else {
        inter / union
    }
}

/// A new widget standing for a target node the screen's example did not show: an
/// invisible area where the trace tapped (its content there was dynamic).
pub(crate) fn from_target(node: &UiNode, m: &Mapper) -> Widget {
    let kind = if node.text.is_empty() { WidgetKind::Container } else { kind_of(node, 0).unwrap_or(WidgetKind::Container) };
    Widget {
        id: String::new(),
        kind,
        role: WidgetRole::Static,
        rect: m.rect(node.bounds),
        class: node.class.clone(),
        resource_id: node.resource_id.clone(),
        text: node.text.clone(),
        content_desc: node.content_desc.clone(),
        source_box: m.normalized(node.bounds),
        checked: node.checked,
        clickable: node.clickable || node.long_clickable,
        selected: node.selected,
        list: false,
        background: None,
        ink: None,
        on_tap: None,
        on_long_press: None,
        on_change: None,
        state_key: None,
        opens_empty: false,
        echo: None,
        shown_if: None,
        initial_text: None,
        image: None,
        decorative: false,
        drawable: None,
        children: Vec::new(),
        merged: false,
    }
}

/// A row of one of the lists of `widgets` is where `target` (a box in dp) is, of its class
/// and width: the same row showing other content, which does what the list's rows do.
pub(crate) fn a_list_row_at(widgets: &[Widget], target: &Widget) -> bool {
    let mut found = false;
    for w in widgets {
        w.walk(&mut |w| {
            found |= w.list
                && w.children
                    .iter()
                    .any(|row| row.class == target.class && same_column(row, target) && covered(target.rect, row.rect) > 0.5);
        });
    }
    found
}

/// Texts and descriptions a widget tree shows.
pub(crate) fn shown_texts(widgets: &[Widget]) -> BTreeSet<String> {
    let mut texts = BTreeSet::new();
    for w in widgets {
        w.walk(&mut |w| {
            for t in [&w.text, &w.content_desc] {
                if !t.trim().is_empty() {
                    texts.insert(t.trim().to_owned());
                }
            }
        });
    }
    texts
}

/// The leaves' boxes of a widget tree: what already takes room on the screen.
fn leaf_rects(widgets: &[Widget], out: &mut Vec<[f64; 4]>) {
    for w in widgets {
        if w.children.is_empty() {
            out.push(w.rect);
        } else {
            leaf_rects(&w.children, out);
        }
    }
}

/// Share of `a`'s area that `b` covers (`[x, y, w, h]` boxes).
fn covered(a: [f64; 4], b: [f64; 4]) -> f64 {
    let ix = ((a[0] + a[2]).min(b[0] + b[2]) - a[0].max(b[0])).max(0.0);
    let iy = ((a[1] + a[3]).min(b[1] + b[3]) - a[1].max(b[1])).max(0.0);
    let area = a[2] * a[3];
    if area <= 0.0 {
        1.0
    } else {
        ix * iy / area
    }
}

/// Which list a row sat in: the list's `source_box`, class and box in that visit.
#[derive(Debug, Clone, PartialEq)]
struct ListPlace {
    source_box: [f64; 4],
    class: String,
    rect: [f64; 4],
}

/// The units another visit's tree is compared by: a list's rows whole (a row is one item),
/// elsewhere the leaves, each with the list it sat in.
fn units(widgets: Vec<Widget>, list: Option<ListPlace>, out: &mut Vec<(Widget, Option<ListPlace>)>) {
    for mut w in widgets {
        if w.list {
            let place = Some(ListPlace { source_box: w.source_box, class: w.class.clone(), rect: w.rect });
            for row in std::mem::take(&mut w.children) {
                out.push((row, place.clone()));
            }
        } else if w.children.is_empty() || list.is_some() {
            out.push((w, list.clone()));
        } else {
            units(std::mem::take(&mut w.children), None, out);
        }
    }
}

/// The list in `widgets` that is the same list as one of another visit (class and place).
fn same_list<'w>(widgets: &'w mut [Widget], place: &ListPlace) -> Option<&'w mut Widget> {
    for w in widgets.iter_mut() {
        if w.list && w.class == place.class && iou(w.source_box, place.source_box) >= 0.5 {
            return Some(w);
        }
        if let Some(found) = same_list(&mut w.children, place) {
            return Some(found);
        }
    }
    None
}

/// How far further down (dp) another visit had scrolled a list than the tree's copy of it:
/// the most common shift between rows of the same size showing the same texts, 0 when no
/// row is in both. Rows added from earlier visits count, so a long scroll chains up. Where
/// no row is whole in both (each section gained or lost an item since), the items inside
/// the rows are compared.
fn scroll_offset(list: &Widget, rows: &[&Widget]) -> f64 {
    let own: Vec<&Widget> = list.children.iter().collect();
    let texts = |w: &Widget| Some(shown_texts(std::slice::from_ref(w))).filter(|t| !t.is_empty());
    let mut votes = equal_votes(&own, rows, texts);
    if votes.is_empty() {
        // Items are named by their description (a contact row shows more or less under it).
        let named = |w: &Widget| Some(w.content_desc.clone()).filter(|d| !d.trim().is_empty());
        votes = equal_votes(&items_inside(&own), &items_inside(rows), named);
    }
    if votes.is_empty() {
        // Last, a row the list's lower edge cut: it shows part of what the whole row shows.
        votes = cut_votes(list_bottom(list), &own, rows, texts);
    }
    // Most votes; between equals, the smaller shift.
    votes.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.abs().cmp(&a.0.abs()))).map_or(0.0, |(shift, _)| shift as f64)
}

/// For each shift (dp), how many of `rows` have the `key` of one of `own` in a box of the
/// same size that far further down (widgets without a key vote for nothing). Own rows are
/// looked up by key: comparing every row with every own row would take time quadratic in a
/// long list.
fn equal_votes<K: Ord>(own: &[&Widget], rows: &[&Widget], key: impl Fn(&Widget) -> Option<K>) -> BTreeMap<i64, usize> {
    let mut by_key: BTreeMap<K, Vec<&Widget>> = BTreeMap::new();
    for c in own {
        if let Some(k) = key(c) {
            by_key.entry(k).or_default().push(c);
        }
    }
    let mut votes = BTreeMap::new();
    for row in rows {
        let Some(same) = key(row).and_then(|k| by_key.get(&k)) else { continue };
        for c in same {
            if same_column(c, row) && (c.rect[3] - row.rect[3]).abs() <= 2.0 {
                *votes.entry((c.rect[1] - row.rect[1]).round() as i64).or_default() += 1;
            }
        }
    }
    votes
}

/// For each shift (dp), how many of `rows` show whole, as tall as the whole own rows of
/// their kind, what an own row the list's lower edge (`bottom`) cut shows part of.
fn cut_votes(bottom: f64, own: &[&Widget], rows: &[&Widget], texts: impl Fn(&Widget) -> Option<BTreeSet<String>>) -> BTreeMap<i64, usize> {
    // Own rows without texts neither vote nor tell how tall a whole row is.
    let keyed: Vec<(&Widget, BTreeSet<String>)> = own.iter().filter_map(|c| Some((*c, texts(c)?))).collect();
    let cut: Vec<&(&Widget, BTreeSet<String>)> = keyed.iter().filter(|(c, _)| is_cut(c, bottom)).collect();
    let mut votes = BTreeMap::new();
    if cut.is_empty() {
        return votes;
    }
    for row in rows {
        let Some(k) = texts(row) else { continue };
        if !as_tall_as_a_whole_row(keyed.iter().map(|(c, _)| *c), bottom, row) {
            continue;
        }
        for (c, ck) in &cut {
            if same_column(c, row) && c.rect[3] <= row.rect[3] + 2.0 && ck.is_subset(&k) {
                *votes.entry((c.rect[1] - row.rect[1]).round() as i64).or_default() += 1;
            }
        }
    }
    votes
}

/// Where a list's box ends (dp).
fn list_bottom(list: &Widget) -> f64 {
    list.rect[1] + list.rect[3]
}

/// The row reaches the list's lower edge `bottom`: the edge cut it.
fn is_cut(row: &Widget, bottom: f64) -> bool {
    row.rect[1] + row.rect[3] >= bottom - 1.0
}

/// `row` is as tall as one of `rows` of its class that `bottom` does not cut: rows of one
/// size (restaurant cards), where a cut row's whole is that size too.
fn as_tall_as_a_whole_row<'w>(mut rows: impl Iterator<Item = &'w Widget>, bottom: f64, row: &Widget) -> bool {
    rows.any(|c| !is_cut(c, bottom) && c.class == row.class && (c.rect[3] - row.rect[3]).abs() <= 2.0)
}

/// Same left edge and width.
fn same_column(a: &Widget, b: &Widget) -> bool {
    (a.rect[0] - b.rect[0]).abs() <= 2.0 && (a.rect[2] - b.rect[2]).abs() <= 2.0
}

/// The parts of rows that hold other widgets under a description (a contact inside a
/// letter's section).
fn items_inside<'w>(rows: &[&'w Widget]) -> Vec<&'w Widget> {
    let mut out = Vec::new();
    for row in rows {
        for c in &row.children {
            c.walk(&mut |d| {
                if !d.children.is_empty() && !d.content_desc.trim().is_empty() {
                    out.push(d);
                }
            });
        }
    }
    out
}

/// The smallest side (dp) of a row taken from another visit: one line of text.
const MIN_ROW_DP: f64 = 16.0;

/// A list of a screen, by its class and box.
type ListKey = (String, [f64; 4]);

/// Adds what another visit of the same screen showed and the tree does not yet: content in
/// places the tree leaves empty (a banner), and list rows the tree's lists lack. A visit
/// that had scrolled a list down is aligned by the rows both show, and its new rows go
/// below, where scrolling reveals them (the list then scrolls). Content in a place the tree
/// already fills is the same slot with other data, and stays as first seen. List rows go
/// into the tree's own list, so what its rows do, the new ones do too.
pub(crate) fn merge_visit(widgets: &mut [Widget], other: Vec<Widget>) {
    let (aw, ah) = app_area();
    let mut flat = Vec::new();
    units(other, None, &mut flat);
    let mut offsets: Vec<(ListPlace, f64)> = Vec::new();
    for (_, place) in &flat {
        let Some(place) = place else { continue };
        if offsets.iter().any(|(p, _)| p == place) {
            continue;
        }
        let rows: Vec<&Widget> = flat.iter().filter(|(_, p)| p.as_ref() == Some(place)).map(|(w, _)| w).collect();
        let offset = same_list(widgets, place).map_or(0.0, |l| scroll_offset(l, &rows));
        offsets.push((place.clone(), offset));
    }
    // What the tree shows and where its leaves are, kept up to date as rows go in (found
    // again for every row, a long list would take time quadratic in its length).
    let mut shown = shown_texts(widgets);
    let mut taken = Vec::new();
    leaf_rects(widgets, &mut taken);
    // The same for each list's rows, by the list's class and place.
    let mut rows_taken: Vec<(ListKey, Vec<[f64; 4]>)> = Vec::new();
    for (mut unit, place) in flat {
        // Only list rows are added: elsewhere, content in an empty place is rarely the same screen's.
        let Some(place) = place else { continue };
        // A row scrolled almost out of view is a sliver, not a row to show.
        if unit.rect[2] < MIN_ROW_DP || unit.rect[3] < MIN_ROW_DP {
            continue;
        }
        let texts = shown_texts(std::slice::from_ref(&unit));
        if texts.is_empty() || texts.is_subset(&shown) || unit.rect[2] * unit.rect[3] > aw * ah / 2.0 {
            continue;
        }
        let offset = offsets.iter().find(|(p, _)| *p == place).map_or(0.0, |(_, o)| *o);
        if offset != 0.0 {
            // In a scrolled list, a row at its edge is cut off: its box is not the row's.
            let (top, bottom) = (place.rect[1], place.rect[1] + place.rect[3]);
            if unit.rect[1] <= top + 1.0 || unit.rect[1] + unit.rect[3] >= bottom - 1.0 {
                continue;
            }
            unit.walk_mut(&mut |w| w.rect[1] += offset);
        }
        let mut own = Vec::new();
        leaf_rects(std::slice::from_ref(&unit), &mut own);
        // Where the first visit showed the list, the row must find an empty place; further
        // down, where scrolling reveals it, only the list's own rows are in the way.
        if offset == 0.0 && !free_of(&taken, &own) {
            continue;
        }
        let Some(l) = same_list(widgets, &place) else { continue };
        if unit.rect[1] < l.rect[1] {
            continue;
        }
        // The whole of a row the first visit showed cut by the list's edge takes its place,
        // where it is as tall as the list's whole rows of its kind (a restaurant card, not a
        // letter's section, whose height follows its contacts).
        let bottom = list_bottom(l);
        if as_tall_as_a_whole_row(l.children.iter(), bottom, &unit) {
            let cut = l.children.iter_mut().find(|c| {
                is_cut(c, bottom)
                    && same_column(c, &unit)
                    && (c.rect[1] - unit.rect[1]).abs() <= 2.0
                    && c.rect[3] < unit.rect[3]
                    && shown_texts(std::slice::from_ref(&**c)).is_subset(&texts)
            });
            if let Some(cut) = cut {
                unit.merged = true;
                *cut = unit;
                // The cut row's texts are among the whole row's; its leaves are gone.
                shown.extend(texts);
                rows_taken.clear();
                taken.clear();
                leaf_rects(widgets, &mut taken);
                continue;
            }
        }
        let list_key = (l.class.clone(), l.source_box);
        let at = match rows_taken.iter().position(|(k, _)| *k == list_key) {
            Some(at) => at,
            None => {
                let mut rects = Vec::new();
                leaf_rects(&l.children, &mut rects);
                rows_taken.push((list_key, rects));
                rows_taken.len() - 1
            }
        };
        if !free_of(&rows_taken[at].1, &own) {
            continue;
        }
        rows_taken[at].1.extend(own.iter().copied());
        let was_leaf = l.children.is_empty();
        unit.merged = true;
        l.children.push(unit);
        shown.extend(texts);
        if was_leaf {
            // The list itself was a leaf until now.
            taken.clear();
            leaf_rects(widgets, &mut taken);
        } else {
            taken.extend(own);
        }
    }
}

/// None of the boxes `taken` overlaps any of `own`.
fn free_of(taken: &[[f64; 4]], own: &[[f64; 4]]) -> bool {
    !own.iter().any(|r| taken.iter().any(|t| covered(*r, *t) > 0.2 || covered(*t, *r) > 0.2))
}

/// The largest share of the screen a row covers (more is a page).
const ROW_MAX_SHARE: f64 = 0.25;

/// A row with handlers: class, size (dp), tap and long-press handlers.
type RowModel = (String, [f64; 2], Option<String>, Option<String>);

/// A control whose only acting part is a passive text or picture inside it does what a tap on
/// that part did: on the real phone the part took no touches, so the tap was the control's
/// (DroidBot names a settings row's label as the target of a tap on the row). A tap anywhere
/// on the row then does it, not only one on its label. Only the nearest control around the
/// part takes it (inner controls first: an outer one then holds two acting parts), and only
/// one of at most a quarter of the screen (a clickable page root is not a row).
pub(crate) fn lift_passive_taps(widgets: &mut [Widget]) {
    fn lift(w: &mut Widget) {
        for c in &mut w.children {
            lift(c);
        }
        if !w.clickable || !w.row_sized() || w.acts_itself() {
            return;
        }
        let mut acting: Vec<(bool, Option<String>, Option<String>)> = Vec::new();
        for c in &w.children {
            c.walk(&mut |d| {
                if d.acts_itself() {
                    acting.push((d.clickable, d.on_tap.clone(), d.on_long_press.clone()));
                }
            });
        }
        if let [(false, on_tap, on_long_press)] = acting.as_slice() {
            w.on_tap.clone_from(on_tap);
            w.on_long_press.clone_from(on_long_press);
        }
    }
    for w in widgets.iter_mut() {
        lift(w);
    }
}

/// Rows of a list alike in class and size to a row with a handler get the same handler:
/// the traces tapped one contact, any contact opens the detail screen. A checkbox or switch,
/// or a row holding one, is a setting of its own (a settings page's boxes): what one did is
/// not lent to the others, and a tap on it toggles its box rather than doing what a row
/// beside it did.
pub(crate) fn spread_over_rows(widgets: &mut [Widget]) {
    let toggle = |d: &Widget| {
        let mut found = false;
        d.walk(&mut |w| found |= w.is_toggle());
        found
    };
    for w in widgets.iter_mut() {
        if w.list {
            let mut models: Vec<RowModel> = Vec::new();
            for c in &w.children {
                c.walk(&mut |d| {
                    if (d.on_tap.is_some() || d.on_long_press.is_some()) && !toggle(d) {
                        models.push((d.class.clone(), [d.rect[2], d.rect[3]], d.on_tap.clone(), d.on_long_press.clone()));
                    }
                });
            }
            let last = w.children.len().saturating_sub(1);
            for (k, c) in w.children.iter_mut().enumerate() {
                // A row only seen on another visit takes the rows' own handlers (the row, or a
                // row inside a section), not those of controls inside them: which of its parts
                // act was never seen.
                let merged = c.merged;
                let row = [c.rect[2], c.rect[3]];
                // The list's first and last rows may be cut by its edge: shorter, not different.
                let at_edge = k == 0 || k == last;
                c.walk_mut(&mut |d| {
                    if (merged && [d.rect[2], d.rect[3]] != row && d.kind != WidgetKind::Container) || toggle(d) {
                        return;
                    }
                    let tall_enough = |m: &RowModel| (m.1[1] - d.rect[3]).abs() <= 8.0 || at_edge && d.rect[3] < m.1[1];
                    let alike = |m: &&RowModel| m.0 == d.class && (m.1[0] - d.rect[2]).abs() <= 2.0 && tall_enough(m);
                    // Each kind of handler separately: a row tapped in one trace and long-pressed in another.
                    if d.on_tap.is_none() {
                        d.on_tap = models.iter().filter(alike).find_map(|m| m.2.clone());
                    }
                    if d.on_long_press.is_none() {
                        d.on_long_press = models.iter().filter(alike).find_map(|m| m.3.clone());
                    }
                    if d.on_tap.is_some() || d.on_long_press.is_some() {
                        d.role = WidgetRole::Navigation;
                    }
                });
            }
        }
        spread_over_rows(&mut w.children);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_containers_are_cut_to_the_limit_keeping_every_widget_in_order() {
        // Containers nested 30 deep, each with a label; every third a list scrolling over rows.
        let mut tree = text("leaf", 0.0);
        for level in 0..30 {
            let mut c = list(vec![text(&format!("label {level}"), 0.0), tree]);
            c.list = level % 3 == 0;
            c.children[1].rect[1] = 800.0;
            tree = c;
        }
        let order = |w: &Widget| {
            let mut texts = Vec::new();
            w.walk(&mut |w| texts.push(w.text.clone()));
            texts
        };
        let before = order(&tree);
        let mut widgets = vec![tree];
        limit_depth(&mut widgets, 8);
        assert_eq!(order(&widgets[0]), before);
        // Nesting, with a scrolling list counted twice.
        fn levels(w: &Widget) -> usize {
            let own = if w.scrolls_over_rows() { 2 } else { 1 };
            w.children.iter().filter(|c| !c.children.is_empty()).map(levels).max().map_or(own, |inner| own + inner)
        }
        assert!(levels(&widgets[0]) <= 8, "{} levels", levels(&widgets[0]));
    }

    #[test]
    fn guessed_icons_exist_in_the_icon_font() {
        for (_, icon) in WORDS {
            assert!(phoneworld_text::icon_exists(icon), "{icon}");
        }
        assert!(phoneworld_text::icon_exists("circle"));
        assert_eq!(guess_icon("Navigate up", ""), "arrow_back");
        assert_eq!(guess_icon("", "settings"), "settings");
        assert_eq!(guess_icon("Photo of a cat", "hero"), "circle");
    }

    fn text(t: &str, y: f64) -> Widget {
        let mut w = from_target(&UiNode::default(), &Mapper { width: 1.0, height: 1.0 });
        (w.kind, w.text, w.rect, w.class) = (WidgetKind::Text, t.to_owned(), [0.0, y, 300.0, 60.0], "android.widget.TextView".to_owned());
        w
    }

    fn list(rows: Vec<Widget>) -> Widget {
        let mut w = from_target(&UiNode::default(), &Mapper { width: 1.0, height: 1.0 });
        (w.list, w.source_box, w.class, w.rect, w.children) =
            (true, [0.0, 0.1, 1.0, 0.9], "android.widget.ListView".to_owned(), [0.0, 0.0, 400.0, 700.0], rows);
        w.children[0].on_tap = Some("open".to_owned());
        w
    }

    fn node(class: &str, package: &str, bounds: [i32; 4], children: Vec<UiNode>) -> UiNode {
        UiNode { class: class.to_owned(), package: package.to_owned(), bounds, visible: true, enabled: true, children, ..UiNode::default() }
    }

    #[test]
    fn a_dialog_in_a_system_window_is_kept_and_the_system_bars_are_not() {
        let app = "com.example.contacts";
        let mut title = node("android.widget.TextView", app, [126, 980, 954, 1059], Vec::new());
        title.text = "Delete contact?".to_owned();
        let mut clock = node("android.widget.TextView", "com.android.systemui", [53, 14, 126, 60], Vec::new());
        clock.text = "9:00".to_owned();
        let status_bar = node("android.widget.FrameLayout", "com.android.systemui", [0, 0, 1080, 74], vec![clock]);
        let dialog = node("android.widget.FrameLayout", app, [63, 917, 1017, 1357], vec![title]);
        let window = node("android.widget.FrameLayout", "com.android.systemui", [0, 0, 1080, 2274], vec![dialog]);
        let root = node("android.widget.FrameLayout", app, [0, 0, 1080, 2400], vec![status_bar, window]);
        let built = build(&root, &Mapper { width: 1080.0, height: 2400.0 }, None);
        let texts = shown_texts(&built);
        assert!(texts.contains("Delete contact?"), "{texts:?}");
        assert!(!texts.contains("9:00"), "{texts:?}");
    }

    #[test]
    fn a_place_alone_matches_no_widget_of_another_kind() {
        let m = Mapper { width: 1080.0, height: 2400.0 };
        let mut row = node("android.widget.LinearLayout", "app", [0, 1083, 1080, 1230], Vec::new());
        (row.clickable, row.content_desc) = (true, "Sam Rivera".to_owned());
        let row = build(&row, &m, None);
        // Another visit's field in the row's place: a field, with an id the screen lacks.
        let mut field = node("android.widget.EditText", "app", [42, 1083, 1038, 1230], Vec::new());
        (field.editable, field.resource_id) = (true, "app:id/new_name".to_owned());
        assert_eq!(match_score(&row[0], &field, &m), 0.0);
        // Another row in the same place is the same slot with other content.
        let mut other = node("android.widget.LinearLayout", "app", [0, 1083, 1080, 1230], Vec::new());
        (other.clickable, other.content_desc) = (true, "Jordan Lee".to_owned());
        assert!(match_score(&row[0], &other, &m) > 0.5);
    }

    #[test]
    fn a_node_with_an_id_is_not_another_widget_with_its_text() {
        let m = Mapper { width: 1080.0, height: 2400.0 };
        let mut chip = node("android.widget.CheckBox", "app", [381, 612, 699, 738], Vec::new());
        (chip.checkable, chip.text, chip.content_desc) = (true, "Home".to_owned(), "Home".to_owned());
        let chip = build(&chip, &m, None);
        let mut home = node("android.widget.ImageView", "com.android.systemui", [414, 2274, 666, 2400], Vec::new());
        (home.clickable, home.resource_id, home.content_desc) = (true, "com.android.systemui:id/home".to_owned(), "Home".to_owned());
        assert_eq!(match_score(&chip[0], &home, &m), 0.0);
        // Without ids, the same description is the same control.
        home.resource_id.clear();
        assert!(match_score(&chip[0], &home, &m) >= 2.0);
    }

    #[test]
    fn other_visits_add_rows_only_where_the_list_was_empty() {
        let mut widgets = vec![list(vec![text("Ada", 0.0), text("Bob", 60.0)])];
        // Another visit: another name where Bob was, a third row below, and a sliver.
        let mut sliver = text("Zed", 300.0);
        sliver.rect[3] = 3.0;
        merge_visit(&mut widgets, vec![list(vec![text("Ada", 0.0), text("Cy", 60.0), text("Dee", 120.0), sliver])]);
        let texts: Vec<&str> = widgets[0].children.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Ada", "Bob", "Dee"]);
        assert!(widgets[0].children[2].merged);
        // The added row does what the list's rows do.
        spread_over_rows(&mut widgets);
        assert_eq!(widgets[0].children[2].on_tap.as_deref(), Some("open"));
    }

    #[test]
    fn a_row_the_lists_edge_cut_is_made_whole_and_aligns_a_scrolled_visit() {
        // A row: one 30 dp line per text.
        let row = |lines: &[&str], top: f64, height: f64| {
            let mut r = text("", top);
            (r.kind, r.rect[3]) = (WidgetKind::Container, height);
            r.children = lines.iter().enumerate().map(|(i, l)| text(l, top + 30.0 * i as f64)).collect();
            for c in &mut r.children {
                c.rect[3] = 30.0;
            }
            r
        };
        // The list's lower edge (700) cut Bob's row after its first line.
        let mut widgets = vec![list(vec![row(&["Ada", "555-0101"], 600.0, 60.0), row(&["Bob"], 660.0, 40.0)])];
        // Scrolled 600 dp further (Zed, at the upper edge, is cut): only Bob, whole here, aligns it.
        let visit = vec![row(&["Zed"], 0.0, 60.0), row(&["Bob", "555-0102"], 60.0, 60.0), row(&["Cy", "555-0103"], 120.0, 60.0)];
        let mut visit_list = list(visit);
        visit_list.children[0].on_tap = None;
        merge_visit(&mut widgets, vec![visit_list]);
        let rows: Vec<(Vec<&str>, f64, f64)> =
            widgets[0].children.iter().map(|r| (r.children.iter().map(|c| c.text.as_str()).collect(), r.rect[1], r.rect[3])).collect();
        assert_eq!(
            rows,
            [(vec!["Ada", "555-0101"], 600.0, 60.0), (vec!["Bob", "555-0102"], 660.0, 60.0), (vec!["Cy", "555-0103"], 720.0, 60.0)]
        );
        // Another visit's row tapped where Bob is now: Bob's row, not a widget over it.
        let mut other = row(&["Eve"], 670.0, 60.0);
        other.class = widgets[0].children[1].class.clone();
        assert!(a_list_row_at(&widgets, &other));
        other.rect[1] = 800.0;
        assert!(!a_list_row_at(&widgets, &other));
    }

    #[test]
    fn a_section_that_gained_an_item_still_aligns_the_visit_by_its_items() {
        // A letter's section: its header, then one item per contact (named by its description).
        let section = |letter: &str, names: &[&str], top: f64| {
            let mut s = text("", top);
            s.kind = WidgetKind::Container;
            s.children.push(text(letter, top));
            s.children[0].rect[3] = 30.0;
            for (i, n) in names.iter().enumerate() {
                let mut item = text("", top + 30.0 + 60.0 * i as f64);
                (item.kind, item.content_desc) = (WidgetKind::Container, (*n).to_owned());
                item.children.push(text(n, item.rect[1]));
                s.children.push(item);
            }
            s.rect[3] = 30.0 + 60.0 * names.len() as f64;
            s
        };
        let mut widgets = vec![list(vec![section("M", &["Kwame"], 60.0), section("N", &["Nadia"], 150.0)])];
        // Scrolled down, after a contact was added to N: no section is the same whole, but
        // Nadia is 30 dp higher, so O goes 30 dp below where this visit showed it.
        merge_visit(&mut widgets, vec![list(vec![section("N", &["7:30 note", "Nadia"], 60.0), section("O", &["Olga"], 210.0)])]);
        let placed: Vec<(String, f64)> = widgets[0].children.iter().map(|s| (s.children[0].text.clone(), s.rect[1])).collect();
        assert_eq!(placed, [("M".to_owned(), 60.0), ("N".to_owned(), 150.0), ("O".to_owned(), 240.0)]);
    }

    #[test]
    fn a_scroll_views_content_rows_are_its_rows_and_one_behind_the_navigation_bar_is_below_the_fold() {
        let app = "com.example.settings";
        let checkbox = |y1: i32, y2: i32, text: &str, visible: bool| {
            let mut b = node("android.widget.CheckBox", app, [60, y1, 1020, y2], Vec::new());
            (b.text, b.checkable, b.visible) = (text.to_owned(), true, visible);
            b
        };
        // Android cuts the last row at the screen's edge and calls it not visible to the user.
        let content = node(
            "android.widget.LinearLayout",
            app,
            [0, 300, 1080, 2280],
            vec![checkbox(1900, 2040, "Counter", true), checkbox(2155, 2280, "Accents", false)],
        );
        let mut scroll = node("android.widget.ScrollView", app, [0, 300, 1080, 2280], vec![content]);
        (scroll.scrollable, scroll.resource_id) = (true, format!("{app}:id/scroll"));
        let root = node("android.widget.FrameLayout", app, [0, 0, 1080, 2280], vec![scroll]);
        let widgets = build(&root, &Mapper { width: 1080.0, height: 2280.0 }, None);
        let list = &widgets[0];
        assert!(list.list);
        let rows: Vec<&str> = list.children.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(rows, ["Counter", "Accents"], "the content's rows are the list's");
        assert!(!list.children[0].below_the_fold());
        assert!(
            list.children[1].below_the_fold() && list.children[1].rect[3] >= 45.0,
            "whole, below the fold: {:?}",
            list.children[1].rect
        );
        assert!(list.scrolls_over_rows());
        // Outside a list, what is under the bar is not the app's to show.
        let bare = node(
            "android.widget.FrameLayout",
            app,
            [0, 0, 1080, 2280],
            vec![checkbox(1900, 2040, "Counter", true), checkbox(2155, 2280, "Accents", false)],
        );
        let mut shown = Vec::new();
        for w in build(&bare, &Mapper { width: 1080.0, height: 2280.0 }, None) {
            w.walk(&mut |w| shown.extend((!w.text.is_empty()).then(|| w.text.clone())));
        }
        assert_eq!(shown, ["Counter"]);
    }

    #[test]
    fn a_rows_handler_spreads_to_rows_alike_but_not_from_one_checkbox_to_another() {
        let boxes = |kind: WidgetKind| {
            let rows = ["Vibrate", "Snooze"].iter().enumerate().map(|(i, t)| {
                let mut w = text(t, 60.0 * i as f64);
                (w.kind, w.class) = (kind, "android.widget.CheckBox".to_owned());
                w
            });
            let mut widgets = vec![list(rows.collect())];
            spread_over_rows(&mut widgets);
            widgets[0].children[1].on_tap.clone()
        };
        assert_eq!(boxes(WidgetKind::Text), Some("open".to_owned()));
        assert_eq!(boxes(WidgetKind::Checkbox), None, "each box is a setting of its own");
        // A settings page: a row opening a dialog, and a row alike holding a box.
        let mut holder = text("", 60.0);
        holder.kind = WidgetKind::Container;
        let mut check = text("Show a dialpad button", 60.0);
        check.kind = WidgetKind::Checkbox;
        holder.children.push(check);
        let mut widgets = vec![list(vec![text("Font size", 0.0), holder])];
        spread_over_rows(&mut widgets);
        assert_eq!(widgets[0].children[1].on_tap, None, "a tap on the row toggles its box, it opens no dialog");
    }

    #[test]
    fn a_visit_scrolled_down_adds_its_rows_below_in_the_same_places() {
        let rows = |names: &[&str], top: f64| names.iter().enumerate().map(|(i, n)| text(n, top + 60.0 * i as f64)).collect::<Vec<_>>();
        let mut widgets = vec![list(rows(&["Ada", "Bob", "Cy"], 60.0))];
        // Scrolled by two rows: Cy is where Ada was; Dee and Eve come after it.
        merge_visit(&mut widgets, vec![list(rows(&["Cy", "Dee", "Eve"], 60.0))]);
        let placed: Vec<(&str, f64)> = widgets[0].children.iter().map(|w| (w.text.as_str(), w.rect[1])).collect();
        assert_eq!(placed, [("Ada", 60.0), ("Bob", 120.0), ("Cy", 180.0), ("Dee", 240.0), ("Eve", 300.0)]);
        // A visit scrolled further aligns with the rows the last one added.
        merge_visit(&mut widgets, vec![list(rows(&["Eve", "Fay"], 60.0))]);
        assert_eq!(widgets[0].children.last().map(|w| (w.text.as_str(), w.rect[1])), Some(("Fay", 360.0)));
    }

    #[test]
    fn a_tab_drawn_where_the_navigation_bar_is_sits_above_it_whole() {
        // A full-screen app's tab bar at the very bottom of a 1440x2560 screen.
        let app = "com.example.tours";
        let m = Mapper::for_size((1440, 2560));
        let tab = UiNode { text: "Live".into(), clickable: true, ..node("android.widget.TextView", app, [0, 2480, 480, 2560], vec![]) };
        let root = node("android.widget.FrameLayout", app, [0, 0, 1440, 2560], vec![tab]);
        let mut live = None;
        for w in &build(&root, &m, None) {
            w.walk(&mut |w| {
                if w.text == "Live" {
                    live = Some(w.rect);
                }
            });
        }
        let r = live.expect("the tab is a widget");
        assert!(r[3] >= 20.0 && (r[1] + r[3] - app_area().1).abs() <= 1.0, "whole, right above the bar: {r:?}");
        // What a screenshot shows there (the real phone's own bar) stays cut off.
        assert_eq!(m.rect([0, 2480, 480, 2560])[3], 0.0);
    }
}
