//! How far layout modules expand: the cycles among them (a module that uses itself, directly
//! or through others) and, for a screen or a module, how many widgets and how deep it becomes
//! once every `Use` is replaced by its module. The phone stops expanding at the same limits.

use std::collections::BTreeMap;

use crate::bundle::LayoutModules;
use crate::node::{Node, NodeKind};

/// Deepest nesting of `Use` inside modules (a module using a module using ...).
pub const MAX_MODULE_DEPTH: usize = 8;
/// Most widgets one screen may build (every widget counts, list rows and module contents too).
pub const MAX_VIEW_NODES: usize = 10_000;
/// Deepest nesting of widgets in one screen, modules expanded.
pub const MAX_VIEW_DEPTH: usize = 64;

/// What a layout becomes once its modules are expanded (a list's row counted once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Expansion {
    /// Widgets, `Use` nodes included (saturating).
    pub nodes: u64,
    /// Nesting depth of widgets.
    pub depth: usize,
    /// Nesting depth of `Use`.
    pub module_depth: usize,
}

/// A limit on how far layouts expand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    ModuleDepth,
    Nodes,
    Depth,
}

impl Expansion {
    /// The limits this expansion is over, each with a message.
    pub fn over_limits(&self) -> Vec<(Limit, String)> {
        let mut out = Vec::new();
        if self.module_depth > MAX_MODULE_DEPTH {
            out.push((
                Limit::ModuleDepth,
                format!("layout modules nest {} deep here (the limit is {MAX_MODULE_DEPTH})", self.module_depth),
            ));
        }
        if self.nodes > MAX_VIEW_NODES as u64 {
            out.push((Limit::Nodes, format!("expands to {} widgets (the limit is {MAX_VIEW_NODES})", self.nodes)));
        }
        if self.depth > MAX_VIEW_DEPTH {
            out.push((Limit::Depth, format!("widgets nest {} deep once modules are expanded (the limit is {MAX_VIEW_DEPTH})", self.depth)));
        }
        out
    }
}

/// The module graph analysed once: cycles and the expansion of every module.
#[derive(Debug, Clone, Default)]
pub struct ModuleAnalysis {
    /// Each cycle as its chain of names, first and last the same (`a -> b -> a`).
    pub cycles: Vec<Vec<String>>,
    /// Expansion of every module; a use that closes a cycle counts as one widget.
    pub modules: BTreeMap<String, Expansion>,
}

impl ModuleAnalysis {
    /// Walks the modules without recursing across them (a chain of a thousand modules is no
    /// deeper for the stack than one), so it cannot overflow or run away.
    pub fn new(modules: &LayoutModules) -> ModuleAnalysis {
        let mut out = ModuleAnalysis::default();
        let mut on_path: Vec<&str> = Vec::new();
        for start in modules.modules.keys() {
            if out.modules.contains_key(start) {
                continue;
            }
            // Depth-first: each frame is a module and the modules it uses still to visit.
            let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, uses(modules, start))];
            on_path.push(start);
            while let Some((name, next)) = stack.last_mut() {
                let name = *name;
                match next.pop() {
                    Some(used) if on_path.contains(&used) => {
                        let from = on_path.iter().position(|n| *n == used).unwrap_or(0);
                        let mut chain: Vec<String> = on_path[from..].iter().map(|n| (*n).to_owned()).collect();
                        chain.push(used.to_owned());
                        out.cycles.push(chain);
                    }
                    Some(used) if !out.modules.contains_key(used) => {
                        on_path.push(used);
                        stack.push((used, uses(modules, used)));
                    }
                    Some(_) => {}
                    None => {
                        let root = &modules.modules[name].root;
                        let expansion = out.expand(root);
                        out.modules.insert(name.to_owned(), expansion);
                        stack.pop();
                        on_path.pop();
                    }
                }
            }
        }
        out
    }

    /// What `root` (a screen's or a module's) expands to. Unknown modules and uses that
    /// close a cycle count as one widget: they are reported on their own.
    pub fn expand(&self, root: &Node) -> Expansion {
        if root.kind == NodeKind::Use {
            let module = root.props.module.as_deref().and_then(|name| self.modules.get(name)).copied().unwrap_or_default();
            return Expansion { nodes: module.nodes.saturating_add(1), depth: module.depth + 1, module_depth: module.module_depth + 1 };
        }
        let mut out = Expansion { nodes: 1, depth: 1, module_depth: 0 };
        let p = &root.props;
        for child in p.children.iter().chain(p.row.as_deref()).chain(p.empty.as_deref()) {
            let e = self.expand(child);
            out.nodes = out.nodes.saturating_add(e.nodes);
            out.depth = out.depth.max(e.depth + 1);
            out.module_depth = out.module_depth.max(e.module_depth);
        }
        out
    }
}

/// The modules a module uses (that exist), each once, in reverse name order so that popping
/// visits them by name.
fn uses<'m>(modules: &'m LayoutModules, name: &str) -> Vec<&'m str> {
    let mut out: Vec<&'m str> = Vec::new();
    if let Some(module) = modules.modules.get(name) {
        module.root.walk(&mut |node| {
            if let Some(used) = node.props.module.as_deref().filter(|_| node.kind == NodeKind::Use) {
                if let Some((key, _)) = modules.modules.get_key_value(used) {
                    out.push(key.as_str());
                }
            }
        });
    }
    out.sort_unstable_by(|a, b| b.cmp(a));
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules(files: &[(&str, &str)]) -> LayoutModules {
        let files = files.iter().map(|(n, t)| (format!("{n}.ron"), (*t).to_owned())).collect();
        let (modules, errors) = LayoutModules::from_memory(&files);
        assert!(errors.is_empty(), "{errors:?}");
        modules
    }

    #[test]
    fn cycles_are_named_as_chains() {
        let m = modules(&[
            ("a", r#"Module(root: Column(children: [Use(module: "b")]))"#),
            ("b", r#"Module(root: Use(module: "c"))"#),
            ("c", r#"Module(root: Row(children: [Text(text: "x"), Use(module: "a")]))"#),
            ("self", r#"Module(root: Use(module: "self"))"#),
            ("ok", r#"Module(root: Text(text: "fine"))"#),
        ]);
        let analysis = ModuleAnalysis::new(&m);
        let chains: Vec<String> = analysis.cycles.iter().map(|c| c.join(" -> ")).collect();
        assert_eq!(chains, ["a -> b -> c -> a", "self -> self"]);
        assert_eq!(analysis.modules["ok"], Expansion { nodes: 1, depth: 1, module_depth: 0 });
    }

    #[test]
    fn fan_out_is_counted_without_expanding() {
        // m0 uses m1 twice, m1 uses m2 twice, ...: 2^40 widgets, counted in no time.
        let mut files = Vec::new();
        for i in 0..40 {
            files.push((format!("m{i}"), format!(r#"Module(root: Column(children: [Use(module: "m{0}"), Use(module: "m{0}")]))"#, i + 1)));
        }
        files.push(("m40".into(), r#"Module(root: Text(text: "leaf"))"#.into()));
        let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let analysis = ModuleAnalysis::new(&modules(&refs));
        let top = analysis.modules["m0"];
        assert!(top.nodes > 1 << 40, "{top:?}");
        assert_eq!(top.module_depth, 40);
        assert_eq!(top.over_limits().len(), 3, "{:?}", top.over_limits());
        assert!(analysis.modules["m39"].over_limits().is_empty());
    }
}
