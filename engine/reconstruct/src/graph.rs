//! The GUI-usage graph: abstract screens as nodes (with visit counts and example concrete
//! screens), actions on widgets as edges (with counts). Exports to DOT and JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::Serialize;
use serde_json::{json, Value};

use crate::abstraction::{Abstraction, Role, ScreenMap};
use crate::trace::{Trace, TraceAction, UiNode};

/// A node: one abstract screen.
#[derive(Debug, Clone, Serialize)]
pub struct ScreenNode {
    /// Index into [`Abstraction::screens`].
    pub index: usize,
    pub id: String,
    pub role: Role,
    pub visits: usize,
    /// Up to three concrete screens merged here, as `trace#screen`.
    pub examples: Vec<String>,
}

/// An edge: an action on a widget that took one abstract screen to another.
#[derive(Debug, Clone, Serialize)]
pub struct ActionEdge {
    /// `tap`, `long_press`, `swipe`, `type_text`, `key:back`, `open_app`, `wait`, ...
    pub action: String,
    /// The target widget's signature (`Button#ok`, `TextView"Sign in"`, ...), if any.
    pub widget: Option<String>,
    /// The first target node seen, and the size of the screen its bounds are in.
    #[serde(skip)]
    pub target: Option<(UiNode, (u32, u32))>,
    pub count: usize,
    /// The trace moved on without an action (the next step starts on another screen).
    pub spontaneous: bool,
}

/// The signature of a widget: stable across visits, never volatile text when an id exists.
pub fn widget_signature(node: &UiNode, screen_size: (u32, u32)) -> String {
    let class = node.short_class();
    // A button's label tells apart controls that share an id (the same button on each page of a
    // pager), but not the numbers in it ("Add · $16.00" and "Add · $20.50" are one button).
    let label = node.text.trim();
    if !node.resource_id.is_empty() && class.contains("Button") && !label.is_empty() && label.chars().count() <= 30 {
        format!("{class}#{}\"{}\"", node.short_id(), without_numbers(label))
    } else if !node.resource_id.is_empty() {
        format!("{class}#{}", node.short_id())
    } else if !node.text.is_empty() {
        format!("{class}\"{}\"", node.text.chars().take(40).collect::<String>())
    } else if !node.content_desc.is_empty() {
        format!("{class}[{}]", node.content_desc.chars().take(40).collect::<String>())
    } else {
        let col = (f64::from(node.bounds[0] + node.bounds[2]) / 2.0 / f64::from(screen_size.0.max(1)) * 8.0) as i32;
        let row = (f64::from(node.bounds[1] + node.bounds[3]) / 2.0 / f64::from(screen_size.1.max(1)) * 16.0) as i32;
        format!("{class}@{col},{row}")
    }
}

/// A label with each run of digits (and the separators inside it) as one `#`: what stays of
/// a label whose numbers are data (a price, a count). A count in brackets after the label
/// goes whole: "Filters (2)" is the "Filters" button with two filters on.
pub fn without_numbers(label: &str) -> String {
    let out: String = numbers_as_marks(label).collect();
    match out.strip_suffix("(#)") {
        Some(label) if !label.trim().is_empty() => label.trim_end().to_owned(),
        _ => out,
    }
}

/// Whether two labels are the same `without_numbers`, without building either (matching
/// widgets compares labels many times over).
pub fn same_without_numbers(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // A count in brackets goes whole only at the end: leave that case to the full rule.
    if a.ends_with(')') || b.ends_with(')') {
        return without_numbers(a) == without_numbers(b);
    }
    numbers_as_marks(a).eq(numbers_as_marks(b))
}

/// The characters of `without_numbers` but for its bracketed count rule: each run of digits,
/// with the separators inside it, as one `#` (a `#` just before goes with it).
fn numbers_as_marks(label: &str) -> impl Iterator<Item = char> + '_ {
    let mut chars = label.chars().peekable();
    let mut after_mark = false;
    std::iter::from_fn(move || loop {
        let c = chars.next()?;
        let separator_inside = matches!(c, '.' | ',') && after_mark && chars.peek().is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || separator_inside {
            if !after_mark {
                after_mark = true;
                return Some('#');
            }
        } else {
            after_mark = c == '#';
            return Some(c);
        }
    })
}

/// The action's name as the graph shows it.
pub fn action_label(action: &TraceAction) -> String {
    match action {
        TraceAction::Key { key } => format!("key:{key}"),
        other => other.name().to_owned(),
    }
}

/// The usage graph over every trace.
#[derive(Debug, Clone)]
pub struct UsageGraph {
    pub graph: DiGraph<ScreenNode, ActionEdge>,
    nodes: BTreeMap<usize, NodeIndex>,
    /// Steps whose next screen the trace does not give (not edges).
    pub open_steps: usize,
}

impl UsageGraph {
    /// Builds the graph from traces already added to the abstraction (`maps[i]` for trace i).
    pub fn build(abstraction: &Abstraction, traces: &[Trace], maps: &[ScreenMap]) -> UsageGraph {
        let mut graph = DiGraph::new();
        let mut nodes = BTreeMap::new();
        for (i, s) in abstraction.screens.iter().enumerate() {
            let examples = s.members.iter().take(3).map(|(t, id)| format!("{t}#{id}")).collect();
            nodes.insert(i, graph.add_node(ScreenNode { index: i, id: s.id.clone(), role: s.role, visits: s.visits, examples }));
        }
        type Key = (usize, usize, String, Option<String>, bool);
        let mut edges: BTreeMap<Key, ActionEdge> = BTreeMap::new();
        let mut open_steps = 0;
        for (t, trace) in traces.iter().enumerate() {
            let map = &maps[t];
            for (k, step) in trace.steps.iter().enumerate() {
                let (Some(&from), Some(next)) = (map.get(&step.screen), step.next.as_ref()) else {
                    open_steps += 1;
                    continue;
                };
                let Some(&to) = map.get(next) else { continue };
                let size = trace.screens.get(&step.screen).map(|s| (s.width, s.height)).unwrap_or((1080, 2400));
                let widget = step.target.as_ref().map(|t| widget_signature(&t.node, size));
                let key = (from, to, action_label(&step.action), widget.clone(), false);
                let e = edges.entry(key).or_insert_with(|| ActionEdge {
                    action: action_label(&step.action),
                    widget,
                    target: step.target.as_ref().map(|t| (t.node.clone(), size)),
                    count: 0,
                    spontaneous: false,
                });
                e.count += 1;
                // The trace went on from another screen than it reached: the app moved by itself.
                if let Some(following) = trace.steps.get(k + 1).and_then(|s| map.get(&s.screen)) {
                    if *following != to {
                        let e = edges.entry((to, *following, "wait".into(), None, true)).or_insert_with(|| ActionEdge {
                            action: "wait".into(),
                            widget: None,
                            target: None,
                            count: 0,
                            spontaneous: true,
                        });
                        e.count += 1;
                    }
                }
            }
        }
        for ((from, to, ..), edge) in edges {
            graph.add_edge(nodes[&from], nodes[&to], edge);
        }
        UsageGraph { graph, nodes, open_steps }
    }

    pub fn node(&self, abstract_index: usize) -> Option<NodeIndex> {
        self.nodes.get(&abstract_index).copied()
    }

    /// Edges leaving a screen: `(target abstract index, edge)`, in insertion order.
    pub fn out_edges(&self, abstract_index: usize) -> Vec<(usize, &ActionEdge)> {
        let Some(n) = self.node(abstract_index) else { return Vec::new() };
        let mut out: Vec<(usize, usize, &ActionEdge)> =
            self.graph.edges(n).map(|e| (e.id().index(), self.graph[e.target()].index, e.weight())).collect();
        out.sort_by_key(|(id, ..)| *id);
        out.into_iter().map(|(_, to, e)| (to, e)).collect()
    }

    /// Abstract screen indices ranked by use (most visits first, then first seen).
    pub fn ranked(&self) -> Vec<usize> {
        let mut idx: Vec<&ScreenNode> = self.graph.node_weights().collect();
        idx.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.index.cmp(&b.index)));
        idx.into_iter().map(|n| n.index).collect()
    }

    /// The graph as JSON: screens (ranked) and edges.
    pub fn to_json(&self) -> Value {
        let rank: BTreeMap<usize, usize> = self.ranked().into_iter().enumerate().map(|(r, i)| (i, r + 1)).collect();
        let mut screens: Vec<&ScreenNode> = self.graph.node_weights().collect();
        screens.sort_by_key(|s| s.index);
        let screens: Vec<Value> = screens
            .iter()
            .map(|s| json!({ "id": s.id, "role": s.role, "visits": s.visits, "rank": rank.get(&s.index), "examples": s.examples }))
            .collect();
        let edges: Vec<Value> = self
            .graph
            .edge_references()
            .map(|e| {
                let w = e.weight();
                json!({
                    "from": self.graph[e.source()].id, "to": self.graph[e.target()].id, "action": w.action,
                    "widget": w.widget, "count": w.count, "spontaneous": w.spontaneous,
                })
            })
            .collect();
        json!({ "screens": screens, "edges": edges, "open_steps": self.open_steps })
    }

    /// The graph in Graphviz DOT.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph usage {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n");
        let mut screens: Vec<&ScreenNode> = self.graph.node_weights().collect();
        screens.sort_by_key(|s| s.index);
        for s in screens {
            let style = match s.role {
                Role::App => "",
                Role::Launcher => ", style=dashed",
                Role::Foreign => ", style=dotted",
            };
            let _ = writeln!(out, "  \"{}\" [label=\"{}\\n{} visit(s)\"{style}];", esc(&s.id), esc(&s.id), s.visits);
        }
        for e in self.graph.edge_references() {
            let w = e.weight();
            let label = match &w.widget {
                Some(widget) => format!("{} {} x{}", w.action, widget, w.count),
                None => format!("{} x{}", w.action, w.count),
            };
            let style = if w.spontaneous { ", style=dashed" } else { "" };
            let _ = writeln!(
                out,
                "  \"{}\" -> \"{}\" [label=\"{}\"{style}];",
                esc(&self.graph[e.source()].id),
                esc(&self.graph[e.target()].id),
                esc(&label)
            );
        }
        out.push_str("}\n");
        out
    }
}

fn esc(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn button(id: &str, text: &str) -> UiNode {
        UiNode {
            class: "android.widget.Button".to_owned(),
            resource_id: format!("app:id/{id}"),
            text: text.to_owned(),
            ..UiNode::default()
        }
    }

    #[test]
    fn a_buttons_numbers_are_data_and_its_words_tell_controls_apart() {
        assert_eq!(without_numbers("Add · $20.50"), "Add · $#");
        assert_eq!(without_numbers("Page 1 of 3, 1,200 items."), "Page # of #, # items.");
        assert_eq!(without_numbers("Filters (2)"), "Filters");
        assert_eq!(without_numbers("(3)"), "(#)");
        for (a, b) in [("Add · $20.50", "Add · $3"), ("Page 1 of 3, 1,200 items.", "Page 2 of 9, 7 items."), ("Filters (2)", "Filters")] {
            assert!(same_without_numbers(a, b), "{a} / {b}");
        }
        for (a, b) in [("Page 1 of 3", "Page 1 of 3 more"), ("1.x", "1x"), ("Item 1", "Items 1")] {
            assert_eq!(same_without_numbers(a, b), without_numbers(a) == without_numbers(b), "{a} / {b}");
        }
        let size = (1080, 2400);
        let sig = |id, text| widget_signature(&button(id, text), size);
        assert_eq!(sig("add_dish", "Add · $20.50"), sig("add_dish", "Add · $16.00"));
        // A pager's one button is Next on one page and Done on the last.
        assert_ne!(sig("next", "Next"), sig("next", "Done"));
    }
}
