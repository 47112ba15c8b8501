//! The canonical trace: what every importer produces and everything after import reads.
//! Documented in `docs/reconstruction.md`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{read_text, ReconError};
use crate::import::scan::{action_in_range, check_json_within, out_of_range};
use crate::limits::{MAX_CANONICAL_FILE_BYTES, MAX_COORD, MAX_SCREEN_NODES, MAX_STEPS, MAX_TRACE_NODES, MAX_TREE_DEPTH};

/// The `format` field of a canonical trace file.
pub const TRACE_FORMAT: &str = "phoneworld-trace/1";

/// One node of a UI hierarchy; bounds are `[x1, y1, x2, y2]` in the pixels of its screen.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UiNode {
    pub class: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub content_desc: String,
    pub bounds: [i32; 4],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub clickable: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub long_clickable: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub checkable: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub checked: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub editable: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub scrollable: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub selected: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub password: bool,
    /// Has the input focus (where typed text goes).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub focused: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub visible: bool,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub package: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<UiNode>,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

impl UiNode {
    /// A node with Android's defaults (enabled and visible).
    pub fn new(class: &str, bounds: [i32; 4]) -> UiNode {
        UiNode { class: class.to_owned(), bounds, enabled: true, visible: true, ..UiNode::default() }
    }

    pub fn width(&self) -> i32 {
        self.bounds[2] - self.bounds[0]
    }

    pub fn height(&self) -> i32 {
        self.bounds[3] - self.bounds[1]
    }

    pub fn contains(&self, x: f64, y: f64) -> bool {
        x >= f64::from(self.bounds[0]) && x < f64::from(self.bounds[2]) && y >= f64::from(self.bounds[1]) && y < f64::from(self.bounds[3])
    }

    /// The class without its Java package (`android.widget.Button` → `Button`).
    pub fn short_class(&self) -> &str {
        self.class.rsplit('.').next().unwrap_or(&self.class)
    }

    /// The resource id without its package (`com.x:id/ok` → `ok`).
    pub fn short_id(&self) -> &str {
        self.resource_id.rsplit('/').next().unwrap_or(&self.resource_id)
    }

    /// The node at an index path below this one.
    pub fn at(&self, path: &[usize]) -> Option<&UiNode> {
        let mut node = self;
        for &i in path {
            node = node.children.get(i)?;
        }
        Some(node)
    }

    /// Visits every node with its index path, in pre-order. Iterative: a trace's hierarchy
    /// may be deeper than the stack would allow.
    pub fn walk<'n>(&'n self, path: &mut Vec<usize>, f: &mut dyn FnMut(&[usize], &'n UiNode)) {
        f(path, self);
        // Each entry: a node on the current path and the index of its next child to visit.
        let mut stack: Vec<(&'n UiNode, usize)> = vec![(self, 0)];
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            match node.children.get(next) {
                Some(child) => {
                    top.1 += 1;
                    path.push(next);
                    f(path, child);
                    stack.push((child, 0));
                }
                None => {
                    stack.pop();
                    if !stack.is_empty() {
                        path.pop();
                    }
                }
            }
        }
    }

    /// The number of nodes and the depth (levels below this node) of the tree; iterative.
    pub fn size_and_depth(&self) -> (usize, usize) {
        let (mut nodes, mut depth) = (0, 0);
        self.walk(&mut Vec::new(), &mut |path, _| {
            nodes += 1;
            depth = depth.max(path.len());
        });
        (nodes, depth)
    }

    /// The index path of the node an input at (x, y) goes to: the topmost visible node
    /// containing the point, preferring ones that take touches (what Android's dispatch does).
    pub fn hit_test(&self, x: f64, y: f64) -> Option<Vec<usize>> {
        Flat::new(self).hit_test(x, y)
    }

    /// This node without its children (a step's target).
    pub fn shallow(&self) -> UiNode {
        UiNode {
            class: self.class.clone(),
            resource_id: self.resource_id.clone(),
            text: self.text.clone(),
            content_desc: self.content_desc.clone(),
            package: self.package.clone(),
            children: Vec::new(),
            ..*self
        }
    }
}

/// A hierarchy's nodes in pre-order, with each one's parent and index among its siblings:
/// looking a node up is a pass over a list, and its path is found from its place.
struct Flat<'n> {
    nodes: Vec<&'n UiNode>,
    /// `(parent, index among its siblings)`; the root's parent is `usize::MAX`.
    parents: Vec<(usize, usize)>,
}

impl<'n> Flat<'n> {
    fn new(root: &'n UiNode) -> Flat<'n> {
        let (mut nodes, mut parents) = (Vec::new(), Vec::new());
        let mut stack = vec![(root, usize::MAX, 0)];
        while let Some((node, parent, index)) = stack.pop() {
            let me = nodes.len();
            nodes.push(node);
            parents.push((parent, index));
            // Reversed, so the first child comes off the stack first (pre-order).
            stack.extend(node.children.iter().enumerate().rev().map(|(i, c)| (c, me, i)));
        }
        Flat { nodes, parents }
    }

    /// The index path of the node at place `k`.
    fn path(&self, mut k: usize) -> Vec<usize> {
        let mut path = Vec::new();
        while let Some(&(parent, index)) = self.parents.get(k) {
            if parent == usize::MAX {
                break;
            }
            path.push(index);
            k = parent;
        }
        path.reverse();
        path
    }

    /// The place of the node an input at (x, y) goes to (see `UiNode::hit_test`).
    fn hit(&self, x: f64, y: f64) -> Option<usize> {
        let mut best: Option<(bool, usize)> = None;
        for (k, node) in self.nodes.iter().enumerate() {
            if !node.visible || !node.contains(x, y) {
                continue;
            }
            let interactive = node.clickable || node.long_clickable || node.editable || node.checkable;
            // Later nodes in pre-order are drawn on top (children over parents, later siblings
            // over earlier ones, a floating button over the list under it): among nodes that
            // take touches, the last one wins.
            if best.is_none_or(|(bi, _)| interactive >= bi) {
                best = Some((interactive, k));
            }
        }
        best.map(|(_, k)| k)
    }

    fn hit_test(&self, x: f64, y: f64) -> Option<Vec<usize>> {
        self.hit(x, y).map(|k| self.path(k))
    }
}

/// Refuses coordinates out of range and makes inverted boxes empty; returns how many were.
fn fix_bounds(root: &mut UiNode, path: &Path, field: &str) -> Result<usize, ReconError> {
    let mut fixed = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.bounds.iter().any(|&c| i64::from(c).abs() > MAX_COORD) {
            return Err(ReconError::field(path, field, format!("bounds {:?}: {}", n.bounds, out_of_range("a coordinate"))));
        }
        let [x1, y1, x2, y2] = n.bounds;
        if x2 < x1 || y2 < y1 {
            n.bounds = [x1, y1, x2.max(x1), y2.max(y1)];
            fixed += 1;
        }
        stack.extend(n.children.iter_mut());
    }
    Ok(fixed)
}

/// What kind of screen a concrete screen is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScreenKind {
    /// A full screen with its hierarchy.
    Full,
    /// A window smaller than the screen (a dialog, a menu).
    Dialog,
    /// Known only by a hash (a trace that did not save this state).
    HashOnly,
    /// A hierarchy with no nodes.
    Empty,
}

/// One concrete screen as the trace saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Screen {
    pub id: String,
    pub kind: ScreenKind,
    #[serde(default)]
    pub package: String,
    /// `package/Activity` where the trace gives it.
    #[serde(default)]
    pub activity: String,
    /// The pixel size the bounds and action coordinates of this screen are in.
    pub width: u32,
    pub height: u32,
    /// The screenshot, relative to the trace file's folder or absolute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<UiNode>,
}

impl Screen {
    pub fn hash_only(id: &str, width: u32, height: u32) -> Screen {
        Screen {
            id: id.to_owned(),
            kind: ScreenKind::HashOnly,
            package: String::new(),
            activity: String::new(),
            width,
            height,
            screenshot: None,
            root: None,
        }
    }

    /// Builds a screen from its hierarchy, deciding whether it is full, a dialog or empty.
    pub fn from_root(id: &str, package: &str, activity: &str, width: u32, height: u32, root: Option<UiNode>) -> Screen {
        let kind = match &root {
            None => ScreenKind::Empty,
            Some(r) if r.children.is_empty() && r.width() <= 0 => ScreenKind::Empty,
            Some(r) => {
                // A window covering under 85% of the screen, or starting well below its top, floats.
                let area = f64::from(r.width().max(0)) * f64::from(r.height().max(0));
                let screen = f64::from(width) * f64::from(height);
                if area < 0.85 * screen || f64::from(r.bounds[1]) > 0.1 * f64::from(height) {
                    ScreenKind::Dialog
                } else {
                    ScreenKind::Full
                }
            }
        };
        let package = if package.is_empty() { root.as_ref().map(|r| r.package.clone()).unwrap_or_default() } else { package.to_owned() };
        Screen { id: id.to_owned(), kind, package, activity: activity.to_owned(), width, height, screenshot: None, root }
    }
}

/// The node an action was aimed at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// Index path in the screen's hierarchy, when the screen has one and the node was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<usize>>,
    /// The node itself (without children), as the trace gave it or as hit-testing found it.
    pub node: UiNode,
}

/// An action in the pixels of the screen it was taken on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TraceAction {
    Tap {
        x: f64,
        y: f64,
    },
    LongPress {
        x: f64,
        y: f64,
    },
    Swipe {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
    },
    TypeText {
        text: String,
    },
    Key {
        key: String,
    },
    OpenApp {
        app: String,
    },
    CloseApp {
        app: String,
    },
    /// Nothing was done (or the trace records an answer): time passes.
    Wait,
}

impl TraceAction {
    pub fn name(&self) -> &'static str {
        match self {
            TraceAction::Tap { .. } => "tap",
            TraceAction::LongPress { .. } => "long_press",
            TraceAction::Swipe { .. } => "swipe",
            TraceAction::TypeText { .. } => "type_text",
            TraceAction::Key { .. } => "key",
            TraceAction::OpenApp { .. } => "open_app",
            TraceAction::CloseApp { .. } => "close_app",
            TraceAction::Wait => "wait",
        }
    }

    /// The point a tap or long press is at.
    pub fn point(&self) -> Option<(f64, f64)> {
        match self {
            TraceAction::Tap { x, y } | TraceAction::LongPress { x, y } => Some((*x, *y)),
            _ => None,
        }
    }
}

/// One step: on `screen` the user did `action`, and the phone showed `next`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    pub screen: String,
    pub action: TraceAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// The screen shown after the action; `None` when the trace does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// A whole trace in the canonical format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub format: String,
    /// The importer that read it (`droidbot`, `llamatouch`, `rico`, `uiautomator`, `phoneworld`).
    pub source_format: String,
    /// Where it was read from.
    pub source: String,
    /// Folder that relative screenshot paths start from.
    #[serde(default)]
    pub base_dir: String,
    pub screens: BTreeMap<String, Screen>,
    pub steps: Vec<TraceStep>,
    /// Things the importer met and handled (missing states, unresolved targets, ...).
    #[serde(default)]
    pub notes: Vec<String>,
    /// The task the person was doing, when the trace says (a DroidTask demonstration's
    /// sentence, LlamaTouch's `instruction.txt`): it becomes a task of the rebuilt app.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
}

impl Trace {
    pub fn new(source_format: &str, source: &Path) -> Trace {
        Trace {
            format: TRACE_FORMAT.to_owned(),
            source_format: source_format.to_owned(),
            source: source.display().to_string(),
            base_dir: if source.is_dir() {
                source.display().to_string()
            } else {
                source.parent().map(|p| p.display().to_string()).unwrap_or_default()
            },
            screens: BTreeMap::new(),
            steps: Vec::new(),
            notes: Vec::new(),
            instruction: None,
        }
    }

    /// Fills in missing targets by hit-testing each tap against its screen's hierarchy.
    pub fn resolve_targets(&mut self) {
        let Trace { screens, steps, notes, .. } = self;
        // Each screen flattened once: a trace may tap the same large screen thousands of times.
        let mut flat: BTreeMap<&str, Flat<'_>> = BTreeMap::new();
        let mut unresolved = 0;
        for step in steps.iter_mut() {
            let Some((id, root)) = screens.get_key_value(&step.screen).and_then(|(id, s)| Some((id.as_str(), s.root.as_ref()?))) else {
                continue;
            };
            let flat = flat.entry(id).or_insert_with(|| Flat::new(root));
            if matches!(step.action, TraceAction::TypeText { .. }) && step.target.is_none() {
                // Typed text goes to the focused field.
                if let Some(k) = flat.nodes.iter().rposition(|n| n.focused && n.editable && n.visible) {
                    step.target = Some(Target { path: Some(flat.path(k)), node: flat.nodes[k].shallow() });
                }
                continue;
            }
            let Some((x, y)) = step.action.point() else { continue };
            match &mut step.target {
                Some(t) if t.path.is_none() => {
                    // Locate the given node in the hierarchy by its bounds and identity.
                    let n = &t.node;
                    let found =
                        flat.nodes.iter().position(|m| m.bounds == n.bounds && m.class == n.class && m.resource_id == n.resource_id);
                    t.path = found.map(|k| flat.path(k)).or_else(|| flat.hit_test(x, y));
                }
                Some(_) => {}
                None => match flat.hit(x, y) {
                    Some(k) => step.target = Some(Target { path: Some(flat.path(k)), node: flat.nodes[k].shallow() }),
                    None => unresolved += 1,
                },
            }
        }
        if unresolved > 0 {
            notes.push(format!("{unresolved} tap(s) hit no node of their screen"));
        }
    }

    /// Reads a canonical trace file (at most `MAX_CANONICAL_FILE_BYTES`).
    pub fn load(path: &Path) -> Result<Trace, ReconError> {
        let text = read_text(path, MAX_CANONICAL_FILE_BYTES)?;
        let mut trace = Trace::parse(path, &text)?;
        trace.check_limits(path)?;
        Ok(trace)
    }

    /// Parses a canonical trace; `path` names it in errors. Parsed straight into the trace's
    /// types (a JSON value tree would take many times the text's size first).
    pub fn parse(path: &Path, text: &str) -> Result<Trace, ReconError> {
        // Each node, step, action and target is an object.
        check_json_within(path, text, usize::MAX, MAX_TRACE_NODES + 4 * MAX_STEPS)?;
        let trace: Trace = serde_json::from_str(text)
            .map_err(|e| ReconError::line(path, e.line(), format!("column {}: not a canonical trace: {e}", e.column())))?;
        if trace.format != TRACE_FORMAT {
            return Err(ReconError::field(path, "format", format!("`{}`: expected `{TRACE_FORMAT}`", trace.format)));
        }
        for (i, step) in trace.steps.iter().enumerate() {
            for (field, id) in [("screen", Some(&step.screen)), ("next", step.next.as_ref())] {
                if let Some(id) = id {
                    if !trace.screens.contains_key(id) {
                        return Err(ReconError::field(path, format!("steps[{i}].{field}"), format!("no screen `{id}`")));
                    }
                }
            }
        }
        Ok(trace)
    }

    /// Checks the limits every trace must keep, whatever its format (see `limits`): steps,
    /// screen sizes, nodes and depth of hierarchies, coordinates; `path` names the trace in
    /// errors. Nodes with a negative width or height are made empty, with a note.
    pub fn check_limits(&mut self, path: &Path) -> Result<(), ReconError> {
        if self.steps.len() > MAX_STEPS {
            return Err(ReconError::field(path, "steps", format!("{} steps: over the limit of {MAX_STEPS}", self.steps.len())));
        }
        let mut total = 0usize;
        let mut inverted = 0usize;
        for (id, screen) in &mut self.screens {
            let field = |what: &str| format!("screens[{id:?}].{what}");
            for (what, v) in [("width", screen.width), ("height", screen.height)] {
                if v == 0 || i64::from(v) > MAX_COORD {
                    return Err(ReconError::field(path, field(what), format!("{v}: a screen size must be 1 to {MAX_COORD} pixels")));
                }
            }
            let Some(root) = &mut screen.root else { continue };
            let (nodes, depth) = root.size_and_depth();
            // One level more than an importer's own limit: the frame around several windows.
            if depth > MAX_TREE_DEPTH + 1 {
                return Err(ReconError::field(
                    path,
                    field("root"),
                    format!("nodes nested more than {MAX_TREE_DEPTH} levels deep (the limit)"),
                ));
            }
            if nodes > MAX_SCREEN_NODES + 1 {
                return Err(ReconError::field(path, field("root"), format!("{nodes} nodes: over the limit of {MAX_SCREEN_NODES}")));
            }
            total += nodes;
            inverted += fix_bounds(root, path, &field("root"))?;
        }
        if total > MAX_TRACE_NODES {
            return Err(ReconError::format(path, format!("{total} nodes in all: over the limit of {MAX_TRACE_NODES}")));
        }
        for (i, step) in self.steps.iter_mut().enumerate() {
            action_in_range(&step.action).map_err(|m| ReconError::field(path, format!("steps[{i}].action"), m))?;
            if let Some(target) = &mut step.target {
                // The target is one node; a canonical trace could give it a whole tree.
                target.node.children.clear();
                inverted += fix_bounds(&mut target.node, path, &format!("steps[{i}].target.node"))?;
            }
        }
        if inverted > 0 {
            self.notes.push(format!("{inverted} node(s) with a negative width or height were made empty"));
        }
        Ok(())
    }

    /// The canonical JSON (pretty, keys in a fixed order).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
