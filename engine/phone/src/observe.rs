//! Observations of the screen for agents: the UI element list (AndroidWorld's selection rule)
//! and the uiautomator dump XML, both from the laid-out accessibility tree.

use phoneworld_data::{BBox, UiElement};
use phoneworld_layout::{A11y, Placed, PlacedTree};
use phoneworld_ui::{check_tree, LayoutProblem};

use crate::device::Device;

/// What touching a laid-out node does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reacts {
    pub tap: bool,
    pub long_press: bool,
}

/// The current screen as an agent without a model sees it: every laid-out node (bounds,
/// accessibility facts, parent), what touching each does (by the node's index), and a hash
/// of what the screen shows.
#[derive(Debug)]
pub struct LaidOut<'d> {
    pub nodes: &'d [Placed],
    pub reacts: Vec<Reacts>,
    pub hash: u64,
}

impl Device {
    /// The current screen laid out (see [`LaidOut`]), for agents that pick what to touch.
    pub fn laid_out(&mut self) -> LaidOut<'_> {
        let view = self.view();
        let reacts = view
            .placed
            .nodes
            .iter()
            .map(|n| {
                n.hit.map_or_else(Reacts::default, |h| {
                    let hit = &view.composed.hits[h as usize];
                    Reacts { tap: hit.tap.is_some(), long_press: hit.long_press.is_some() }
                })
            })
            .collect();
        LaidOut { nodes: &view.placed.nodes, reacts, hash: view.hash }
    }
}

/// A visible node with accessibility facts, and its accessibility children.
struct A11yNode<'t> {
    info: &'t A11y,
    bounds: [i64; 4],
    children: Vec<usize>,
}

/// The accessibility forest of a laid-out tree (nodes without facts are skipped; their
/// children attach to the nearest ancestor that has them).
fn forest(tree: &PlacedTree, width: f32, height: f32) -> (Vec<A11yNode<'_>>, Vec<usize>) {
    let mut nodes: Vec<A11yNode<'_>> = Vec::new();
    let mut roots = Vec::new();
    let mut map: Vec<Option<usize>> = vec![None; tree.nodes.len()];
    for (i, placed) in tree.nodes.iter().enumerate() {
        let Some(info) = &placed.a11y else { continue };
        if !placed.is_visible() {
            continue;
        }
        // Hidden under a clipped-away ancestor: skip, as uiautomator skips invisible views.
        let mut parent = placed.parent;
        let mut owner = None;
        let mut hidden = false;
        while let Some(p) = parent {
            if tree.nodes[p].a11y.is_some() {
                match map[p] {
                    Some(idx) => owner = Some(idx),
                    None => hidden = true,
                }
                break;
            }
            parent = tree.nodes[p].parent;
        }
        if hidden {
            continue;
        }
        let [x1, y1, x2, y2] = placed.visible_rect();
        let clamp = |v: f32, hi: f32| v.clamp(0.0, hi).round() as i64;
        let bounds = [clamp(x1, width), clamp(y1, height), clamp(x2, width), clamp(y2, height)];
        let idx = nodes.len();
        nodes.push(A11yNode { info, bounds, children: Vec::new() });
        map[i] = Some(idx);
        match owner {
            Some(o) => nodes[o].children.push(idx),
            None => roots.push(idx),
        }
    }
    (nodes, roots)
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn escape_xml(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c if (c as u32) < 0x20 && c != '\t' => out.push('.'),
            c => out.push(c),
        }
    }
}

/// NAF: clickable and enabled, with no text or description in itself or its children.
fn not_accessibility_friendly(nodes: &[A11yNode<'_>], i: usize) -> bool {
    fn has_label(nodes: &[A11yNode<'_>], i: usize) -> bool {
        let n = &nodes[i];
        !n.info.text.is_empty() || !n.info.content_desc.is_empty() || n.children.iter().any(|&c| has_label(nodes, c))
    }
    let n = &nodes[i];
    let excluded = matches!(
        n.info.class_name,
        "android.widget.GridView" | "android.widget.ListView" | "android.widget.GridLayout" | "android.widget.TableLayout"
    );
    n.info.clickable && n.info.enabled && !excluded && !has_label(nodes, i)
}

fn write_node(nodes: &[A11yNode<'_>], i: usize, index: usize, out: &mut String) {
    let n = &nodes[i];
    let a = n.info;
    let b = |v: bool| if v { "true" } else { "false" };
    out.push_str("<node ");
    if not_accessibility_friendly(nodes, i) {
        out.push_str("NAF=\"true\" ");
    }
    out.push_str(&format!("index=\"{index}\" text=\""));
    escape_xml(&a.text, out);
    out.push_str("\" resource-id=\"");
    escape_xml(&a.resource_id, out);
    out.push_str(&format!("\" class=\"{}\" package=\"", a.class_name));
    escape_xml(&a.package, out);
    out.push_str("\" content-desc=\"");
    escape_xml(&a.content_desc, out);
    let [x1, y1, x2, y2] = n.bounds;
    out.push_str(&format!(
        "\" checkable=\"{}\" checked=\"{}\" clickable=\"{}\" enabled=\"{}\" focusable=\"{}\" focused=\"{}\" scrollable=\"{}\" long-clickable=\"{}\" password=\"{}\" selected=\"{}\" bounds=\"[{x1},{y1}][{x2},{y2}]\"",
        b(a.checkable),
        b(a.checked),
        b(a.clickable),
        b(a.enabled),
        b(a.focusable),
        b(a.focused),
        b(a.scrollable),
        b(a.long_clickable),
        b(a.password),
        b(a.selected)
    ));
    if n.children.is_empty() {
        out.push_str(" />");
    } else {
        out.push('>');
        for (k, &c) in n.children.iter().enumerate() {
            write_node(nodes, c, k, out);
        }
        out.push_str("</node>");
    }
}

impl Device {
    /// Each element of the UI element list in tree order, borrowed from the laid-out tree:
    /// its accessibility facts and its bounds in pixels (`[x1, y1, x2, y2]`, clamped to the
    /// screen). What `ui_elements` copies into owned elements, for callers that build their
    /// own (columns for Python) without the copies.
    pub fn visit_ui_elements(&mut self, mut visit: impl FnMut(&A11y, [f64; 4])) {
        let (w, h) = (self.config.width as f32, self.config.height as f32);
        let view = self.view();
        let (nodes, roots) = forest(&view.placed, w, h);
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(i) = stack.pop() {
            let n = &nodes[i];
            let a = n.info;
            // AndroidWorld's selection: leaves, described nodes and scroll views.
            if n.children.is_empty() || !a.content_desc.is_empty() || a.scrollable {
                visit(a, n.bounds.map(|v| v as f64));
            }
            stack.extend(n.children.iter().rev().copied());
        }
    }

    /// The UI element list: leaves, nodes with a content description, and scrollable nodes,
    /// in tree order.
    pub fn ui_elements(&mut self) -> Vec<UiElement> {
        let (w, h) = (f64::from(self.config.width), f64::from(self.config.height));
        let mut out = Vec::new();
        self.visit_ui_elements(|a, [x1, y1, x2, y2]| {
            out.push(UiElement {
                text: non_empty(&a.text),
                content_description: non_empty(&a.content_desc),
                class_name: Some(a.class_name.to_owned()),
                bbox: Some(BBox { x_min: x1 / w, x_max: x2 / w, y_min: y1 / h, y_max: y2 / h }),
                bbox_pixels: Some(BBox { x_min: x1, x_max: x2, y_min: y1, y_max: y2 }),
                hint_text: non_empty(&a.hint),
                is_checked: Some(a.checked),
                is_checkable: Some(a.checkable),
                is_clickable: Some(a.clickable),
                is_editable: Some(a.editable),
                is_enabled: Some(a.enabled),
                is_focused: Some(a.focused),
                is_focusable: Some(a.focusable),
                is_long_clickable: Some(a.long_clickable),
                is_scrollable: Some(a.scrollable),
                is_selected: Some(a.selected),
                is_visible: Some(true),
                package_name: non_empty(&a.package),
                resource_name: non_empty(&a.resource_id),
                tooltip: None,
                resource_id: non_empty(&a.resource_id),
            });
        });
        out
    }

    /// The screen as `uiautomator dump` writes it: one line of XML.
    pub fn ui_xml(&mut self) -> String {
        let (w, h) = (self.config.width as f32, self.config.height as f32);
        let view = self.view();
        let (nodes, roots) = forest(&view.placed, w, h);
        let mut out = String::with_capacity(16 * 1024);
        out.push_str("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">");
        for (k, &r) in roots.iter().enumerate() {
            write_node(&nodes, r, k, &mut out);
        }
        out.push_str("</hierarchy>");
        out
    }

    /// A small readable text rendering of the accessibility tree, for snapshot tests.
    pub fn ui_tree_text(&mut self) -> String {
        let (w, h) = (self.config.width as f32, self.config.height as f32);
        let view = self.view();
        let (nodes, roots) = forest(&view.placed, w, h);
        let mut out = String::new();
        fn line(nodes: &[A11yNode<'_>], i: usize, depth: usize, out: &mut String) {
            let n = &nodes[i];
            let a = n.info;
            let class = a.class_name.rsplit('.').next().unwrap_or(a.class_name);
            out.push_str(&"  ".repeat(depth));
            out.push_str(class);
            if !a.text.is_empty() {
                out.push_str(&format!(" {:?}", a.text));
            }
            if !a.content_desc.is_empty() {
                out.push_str(&format!(" desc={:?}", a.content_desc));
            }
            if !a.hint.is_empty() && a.text.is_empty() {
                out.push_str(&format!(" hint={:?}", a.hint));
            }
            if let Some(id) = a.resource_id.rsplit('/').next().filter(|s| !s.is_empty()) {
                out.push_str(&format!(" #{id}"));
            }
            let flags: Vec<&str> = [
                (a.clickable, "click"),
                (a.long_clickable, "long"),
                (a.checkable && a.checked, "checked"),
                (a.checkable && !a.checked, "unchecked"),
                (a.editable, "edit"),
                (a.focused, "focused"),
                (a.scrollable, "scroll"),
                (a.selected, "selected"),
                (!a.enabled, "disabled"),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
            if !flags.is_empty() {
                out.push_str(&format!(" [{}]", flags.join(",")));
            }
            let [x1, y1, x2, y2] = n.bounds;
            out.push_str(&format!(" ({x1},{y1},{x2},{y2})\n"));
            for &c in &n.children {
                line(nodes, c, depth + 1, out);
            }
        }
        for &r in &roots {
            line(&nodes, r, 0, &mut out);
        }
        out
    }
}

impl Device {
    /// The layout problems of the current screen (see [`check_tree`]).
    pub fn layout_problems(&mut self) -> Vec<LayoutProblem> {
        let (package, screen) = self.foreground();
        let px_per_dp = self.config.px_per_dp();
        let view = self.view();
        check_tree(&view.placed, px_per_dp, &format!("{package}/{screen}"))
    }
}
