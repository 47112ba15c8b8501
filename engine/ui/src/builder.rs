//! Building the view tree of an app screen from its RON layout and the store: bindings are
//! evaluated, widgets are broken down into boxes, text and icons, and every interactive node
//! gets a [`Hit`].

use std::ops::ControlFlow;

use phoneworld_data::{Args, LayoutModules, Node, Path, PathRoot, Scope, MAX_MODULE_DEPTH, MAX_VIEW_DEPTH, MAX_VIEW_NODES};
use phoneworld_layout::{A11y, Align, Direction, Justify, ViewNode};
use phoneworld_render::Color;
use phoneworld_text::Weight;
use serde_json::Value;

use crate::interaction::{EventSource, Hit, Interaction, ItemSource, Target, TargetRoot};
use crate::kit;
use crate::store::{Focus, ScreenEntry};
use crate::theme::{Metrics, Theme};

/// Everything a screen build reads, and the hit table it fills.
pub(crate) struct Builder<'a> {
    pub(crate) theme: Theme,
    pub(crate) m: Metrics,
    pub(crate) app: &'a str,
    pub(crate) modules: &'a LayoutModules,
    pub(crate) bundle: &'a phoneworld_data::AppBundle,
    pub(crate) images: &'a crate::ImageStore,
    pub(crate) maps: &'a crate::MapStore,
    /// Width of the screen, pixels (a map draws the tiles that fill it).
    pub(crate) screen_w: f32,
    pub(crate) entry: &'a ScreenEntry,
    pub(crate) focus: Option<&'a Focus>,
    pub(crate) hits: &'a mut Vec<Hit>,
    /// Problems met while building (unknown module, bad color): shown, never fatal.
    pub(crate) problems: Vec<String>,
    /// What the build has spent of the view's limits.
    pub(crate) budget: Budget,
    /// The stable keys given so far (see [`Builder::stable_key`]).
    pub(crate) keys: std::collections::BTreeSet<String>,
    /// The same keys in the order given (a kept row replays those it gave).
    pub(crate) new_keys: Vec<String>,
    /// Problems met so far, repeats included (a row that met one is not kept).
    pub(crate) problems_noted: usize,
    /// List rows kept from the last compose, when the caller keeps them.
    pub(crate) memo: Option<&'a mut crate::row_memo::RowMemo>,
}

/// Most distinct problems one build keeps.
const MAX_PROBLEMS: usize = 64;

/// What a build has spent of the limits on a view (`MAX_VIEW_NODES` and the others in
/// phoneworld-data): a hostile layout (a module that uses itself, modules that fan out, a list
/// of lists) stops there with a visible placeholder instead of exhausting the stack or memory.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    /// Widgets visited so far, visible or not.
    pub(crate) nodes: usize,
    /// Current nesting of widgets.
    pub(crate) depth: usize,
    /// The deepest nesting reached.
    pub(crate) deepest: usize,
    /// The modules being expanded, outermost first.
    pub(crate) modules: Vec<String>,
    /// The widget limit was reached: nothing more is built.
    pub(crate) spent: bool,
}

/// Where in the tree a node is being built.
#[derive(Clone)]
pub(crate) struct At<'s> {
    pub(crate) scope: Scope<'s>,
    /// Stable key of the node on its screen (for scroll offsets, focus, widget state): its
    /// `id` when it has one (within its list row), else its position under the nearest
    /// ancestor that has a key of its own.
    pub(crate) key: String,
    /// The key of the list row being built, if any: an id is unique within its row.
    pub(crate) row: Option<String>,
    /// The concrete path of `item` when the current list iterates a state or local path.
    pub(crate) item_path: Option<String>,
    /// Inside a scrolling container: a nested list grows with its content instead of
    /// scrolling on its own (it would otherwise get no height).
    pub(crate) in_scroll: bool,
}

impl<'s> At<'s> {
    pub(crate) fn child(&self, i: usize) -> At<'s> {
        // Built by hand: every node of a screen gets one, and `format!` over a clone of the
        // whole parent showed in profiles of composing.
        use std::fmt::Write;
        let mut key = String::with_capacity(self.key.len() + 4);
        key.push_str(&self.key);
        let _ = write!(key, ".{i}");
        At { scope: self.scope, key, row: self.row.clone(), item_path: self.item_path.clone(), in_scroll: self.in_scroll }
    }
}

impl<'a> Builder<'a> {
    /// Records a problem once; a hostile layout cannot make the list grow without end.
    pub(crate) fn problem(&mut self, message: String) {
        self.problems_noted += 1;
        if self.problems.len() < MAX_PROBLEMS && !self.problems.contains(&message) {
            self.problems.push(message);
        }
    }

    pub(crate) fn hit(&mut self, hit: Hit) -> u32 {
        self.hits.push(hit);
        (self.hits.len() - 1) as u32
    }

    /// A color property: a role, `#RRGGBB`, or a template giving one (`"{item.color}"`).
    pub(crate) fn color(&mut self, name: Option<&str>, at: &At<'_>, fallback: Color) -> Color {
        let Some(n) = name else { return fallback };
        let rendered;
        let n = if n.contains('{') {
            match phoneworld_data::Template::parse(n) {
                Ok(t) => {
                    rendered = t.render(&at.scope);
                    rendered.as_str()
                }
                Err(e) => {
                    self.problem(e);
                    return fallback;
                }
            }
        } else {
            n
        };
        if n.is_empty() {
            return fallback;
        }
        match self.theme.color(n) {
            Some(color) => color,
            None => {
                let shown: String = n.chars().take(80).collect();
                self.problem(format!("unknown color `{shown}`"));
                fallback
            }
        }
    }

    pub(crate) fn a11y(&self, class_name: &'static str) -> A11y {
        kit::a11y(class_name, self.app)
    }

    /// A text leaf.
    pub(crate) fn text(&self, text: String, size_sp: f32, weight: Weight, color: Color) -> ViewNode {
        kit::text(&self.m, text, size_sp, weight, color)
    }

    /// The image `src` of the app's bundle; when it is missing or cannot be decoded, nothing
    /// (the widget shows its placeholder) and a problem naming the file.
    pub(crate) fn image(&mut self, src: &str) -> Option<std::sync::Arc<phoneworld_render::Image>> {
        match self.images.get(self.bundle, src) {
            Ok(image) => Some(image),
            Err(message) => {
                self.problem(format!("image `{src}`: {message}"));
                None
            }
        }
    }

    /// An icon leaf.
    pub(crate) fn icon(&self, name: &str, size_dp: f32, color: Color) -> ViewNode {
        kit::icon(&self.m, name, size_dp, color)
    }

    /// The concrete target of an input's `value` path.
    pub(crate) fn target(&mut self, path: &Path, at: &At<'_>) -> Option<Target> {
        let (root, mut segments) = match path.root {
            PathRoot::State => (TargetRoot::State, Vec::new()),
            PathRoot::Local => (TargetRoot::Local, Vec::new()),
            PathRoot::System => (TargetRoot::System, Vec::new()),
            PathRoot::Item => match &at.item_path {
                Some(base) => {
                    let t = Target::parse(base)?;
                    (t.root, t.segments)
                }
                None => {
                    self.problem(format!("`{path}`: this list's items are not stored in state or local"));
                    return None;
                }
            },
            _ => {
                self.problem(format!("`{path}`: an input can only write to state, local, system or item"));
                return None;
            }
        };
        segments.extend(path.segments.iter().cloned());
        Some(Target { root, segments })
    }

    /// The event table a handler receives for a node.
    pub(crate) fn event(&self, node: &Node, at: &At<'_>, value: Option<Value>) -> EventSource {
        let item = match (at.scope.item, &at.item_path) {
            (None, _) => ItemSource::None,
            (Some(_), Some(path)) => ItemSource::Path(path.clone()),
            (Some(item), None) => ItemSource::Value(std::sync::Arc::new(item.clone())),
        };
        EventSource { item, index: at.scope.index, id: node.props.id.as_ref().map(|t| t.render(&at.scope)), value }
    }

    /// Resolves a handler name; `$name` takes it from the module argument `name`.
    pub(crate) fn handler(&self, name: Option<&String>, at: &At<'_>) -> Option<String> {
        let name = name?;
        match name.strip_prefix('$') {
            Some(arg) => at
                .scope
                .args
                .inspect(|_| phoneworld_data::note_read(PathRoot::Arg))
                .and_then(|a| a.get(arg))
                .and_then(|v| v.as_str())
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            None => Some(name.clone()),
        }
    }

    pub(crate) fn handler_hit(&self, handler: Option<String>, node: &Node, at: &At<'_>) -> Option<Interaction> {
        handler.map(|handler| Interaction::Handler { app: self.app.to_owned(), handler, event: self.event(node, at, None) })
    }

    /// Counts a node against the view's limits. `Break` holds what to show instead once a
    /// limit is reached: a placeholder saying which, then nothing after the widget limit.
    pub(crate) fn enter_node(&mut self) -> ControlFlow<Option<ViewNode>> {
        if self.budget.spent {
            return ControlFlow::Break(None);
        }
        if self.budget.nodes >= MAX_VIEW_NODES {
            self.budget.spent = true;
            let message = format!("the screen has more than {MAX_VIEW_NODES} widgets{}: the rest is not shown", self.in_modules());
            return ControlFlow::Break(Some(self.placeholder("[too many widgets]", message)));
        }
        if self.budget.depth >= MAX_VIEW_DEPTH {
            let message = format!("widgets nest more than {MAX_VIEW_DEPTH} deep{}: the deeper ones are not shown", self.in_modules());
            return ControlFlow::Break(Some(self.placeholder("[nested too deep]", message)));
        }
        self.budget.nodes += 1;
        self.budget.depth += 1;
        self.budget.deepest = self.budget.deepest.max(self.budget.depth);
        ControlFlow::Continue(())
    }

    /// The node [`enter_node`](Self::enter_node) counted is built.
    pub(crate) fn leave_node(&mut self) {
        self.budget.depth -= 1;
    }

    /// The key of a node with an `id`: `#id`, within its list row when in one. Widget state
    /// (a scroll offset, a picker's page, focus) then stays with the node when nodes are
    /// inserted before it or rows above it. An id met twice keeps the position key.
    pub(crate) fn stable_key(&mut self, node: &Node, at: &At<'_>) -> Option<String> {
        let id = node.props.id.as_ref()?.render(&at.scope);
        if id.is_empty() {
            return None;
        }
        let key = match &at.row {
            Some(row) => format!("{row}/#{id}"),
            None => format!("#{id}"),
        };
        self.give_key(key)
    }

    /// `key`, when no node has it yet.
    fn give_key(&mut self, key: String) -> Option<String> {
        if !self.keys.insert(key.clone()) {
            return None;
        }
        self.new_keys.push(key.clone());
        Some(key)
    }

    /// The key of a list row: the item's `id` when it has one, else its position.
    pub(crate) fn row_key(&mut self, list_key: &str, item: &Value, i: usize) -> String {
        let id = match item.get("id") {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        if let Some(key) = id.map(|id| format!("{list_key}.r#{id}")).and_then(|key| self.give_key(key)) {
            return key;
        }
        format!("{list_key}.r{i}")
    }

    /// A visible stand-in for what could not be built, and the problem saying why.
    fn placeholder(&mut self, shown: &str, problem: String) -> ViewNode {
        self.problem(problem);
        let mut view = self.text(shown.to_owned(), 14.0, Weight::Regular, self.theme.error);
        let mut a11y = self.a11y("android.widget.TextView");
        a11y.text = shown.to_owned();
        view.set_a11y(a11y);
        view
    }

    /// ` (in module a -> b)` while modules are being expanded.
    fn in_modules(&self) -> String {
        if self.budget.modules.is_empty() {
            String::new()
        } else {
            format!(" (in layout module {})", self.budget.modules.join(" -> "))
        }
    }

    pub(crate) fn use_module(&mut self, node: &Node, at: &At<'_>) -> Option<ViewNode> {
        let name = node.props.module.as_deref().unwrap_or_default();
        let modules = self.modules;
        let Some(module) = modules.get(name) else {
            return Some(self.placeholder(&format!("[missing module {name}]"), format!("unknown layout module `{name}`")));
        };
        if self.budget.modules.iter().any(|m| m == name) {
            let chain = format!("{} -> {name}", self.budget.modules.join(" -> "));
            return Some(self.placeholder(&format!("[module {name} uses itself]"), format!("layout module `{name}` uses itself: {chain}")));
        }
        if self.budget.modules.len() >= MAX_MODULE_DEPTH {
            let message = format!("layout modules nest more than {MAX_MODULE_DEPTH} deep{}: `{name}` is not shown", self.in_modules());
            return Some(self.placeholder(&format!("[module {name} nested too deep]"), message));
        }
        let args: Args<'_> = node.props.args.iter().map(|(k, t)| (k.clone(), t.value(&at.scope))).collect();
        let inner = At { scope: at.scope.with_args(&args), ..at.clone() };
        self.budget.modules.push(name.to_owned());
        let view = self.node(&module.root, &inner);
        self.budget.modules.pop();
        let mut view = view?;
        self.apply_common(node, at, true, &mut view);
        Some(view)
    }

    /// Properties every widget shares: box model, paint, identity, taps.
    pub(crate) fn apply_common(&mut self, node: &Node, at: &At<'_>, enabled: bool, view: &mut ViewNode) {
        let p = &node.props;
        let m = self.m;
        let s = &mut view.style;
        if let Some(w) = p.width {
            s.width = Some(m.dp(w));
        }
        if let Some(h) = p.height {
            s.height = Some(m.dp(h));
        }
        if let Some(h) = p.min_height {
            s.min_height = Some(m.dp(h));
        }
        if let Some(g) = p.grow {
            s.grow = g;
        }
        if let Some(pad) = p.padding {
            s.padding = [m.dp(pad.left), m.dp(pad.top), m.dp(pad.right), m.dp(pad.bottom)];
        }
        if let Some(mar) = p.margin {
            s.margin = [m.dp(mar.left), m.dp(mar.top), m.dp(mar.right), m.dp(mar.bottom)];
        }
        if let Some(gap) = p.gap {
            s.gap = m.dp(gap);
        }
        if let Some(a) = p.align {
            s.align_items = Some(match a {
                phoneworld_data::Align::Start => Align::Start,
                phoneworld_data::Align::Center => Align::Center,
                phoneworld_data::Align::End => Align::End,
                phoneworld_data::Align::Stretch => Align::Stretch,
            });
        }
        if let Some(j) = p.justify {
            s.justify = match j {
                phoneworld_data::Justify::Start => Justify::Start,
                phoneworld_data::Justify::Center => Justify::Center,
                phoneworld_data::Justify::End => Justify::End,
                phoneworld_data::Justify::SpaceBetween => Justify::SpaceBetween,
                phoneworld_data::Justify::SpaceAround => Justify::SpaceAround,
            };
        }
        if let Some(bg) = p.background.as_deref() {
            let c = self.color(Some(bg), at, Color::rgba(0, 0, 0, 0));
            view.paint.background = Some(c);
        }
        if let Some(b) = p.border.as_deref() {
            let c = self.color(Some(b), at, self.theme.outline);
            view.paint.border = Some((c, m.dp(1.0)));
        }
        if let Some(r) = p.corner {
            view.paint.radius = m.dp(r);
        }
        // Identity and taps apply to every widget that did not handle them itself; a
        // decorative node (no facts, no id, no description, no handler) stays out of the tree.
        let speaks = p.id.is_some() || p.content_desc.is_some() || p.on_tap.is_some() || p.on_long_press.is_some();
        if view.a11y.is_none() && !speaks {
            return;
        }
        let a11y = view.a11y.get_or_insert_with(|| std::sync::Arc::new(self.a11y("android.view.ViewGroup")));
        // Unshared while the node is being built: no copy.
        let a11y = std::sync::Arc::make_mut(a11y);
        // A templated id that renders empty (a module given no id) names nothing.
        if let Some(id) = p.id.as_ref().map(|t| t.render(&at.scope)).filter(|id| !id.is_empty()) {
            a11y.resource_id = format!("{}:id/{id}", self.app);
        }
        if let Some(desc) = &p.content_desc {
            a11y.content_desc = desc.render(&at.scope);
        }
        if !enabled {
            a11y.enabled = false;
            view.hit = None;
            return;
        }
        if view.hit.is_none() {
            let tap = self.handler_hit(self.handler(p.on_tap.as_ref(), at), node, at);
            let long = self.handler_hit(self.handler(p.on_long_press.as_ref(), at), node, at);
            if tap.is_some() || long.is_some() {
                let a11y = std::sync::Arc::make_mut(view.a11y.as_mut().expect("set above"));
                a11y.clickable = tap.is_some();
                a11y.long_clickable = long.is_some();
                a11y.focusable = true;
                // A touch target is at least 48 dp each way (a bubble saying "ok" included).
                if view.style.min_height.is_none() && view.style.height.is_none() {
                    view.style.min_height = Some(m.dp(48.0));
                }
                if view.style.min_width.is_none() && view.style.width.is_none() {
                    view.style.min_width = Some(m.dp(48.0));
                }
                view.hit = Some(self.hit(Hit { tap, long_press: long, scroll: None }));
            }
        }
    }

    /// Children of a container, each at its own key.
    pub(crate) fn children(&mut self, nodes: &[Node], at: &At<'_>) -> Vec<ViewNode> {
        let mut built = Vec::with_capacity(nodes.len());
        built.extend(nodes.iter().enumerate().filter_map(|(i, n)| self.node(n, &at.child(i))));
        built
    }
}

/// A flex container.
pub(crate) fn container(direction: Direction) -> ViewNode {
    let mut v = ViewNode::default();
    v.style.direction = direction;
    v
}

/// A fixed-size box that centers its content (icon buttons, picker arrows, check boxes).
pub(crate) fn centered_box(width: f32, height: f32) -> ViewNode {
    let mut v = container(Direction::Column);
    v.style.width = Some(width);
    v.style.height = Some(height);
    v.style.shrink = false;
    v.style.align_items = Some(Align::Center);
    v.style.justify = Justify::Center;
    v
}
