//! `phoneworld check`: everything wrong with an app bundle, each with file, line and (in layouts)
//! column.

use std::path::Path;

use phoneworld_data::{
    read_text_bounded, valuepath, AppBundle, BoolExpr, LayoutModules, LuaLibrary, ModuleAnalysis, Node, NodeKind, Outline,
    Path as BindPath, PathRoot, Problem, Template, MAX_BUNDLE_FILE_BYTES,
};
use phoneworld_script::{Library, Program, ScriptError, ScriptHost, ScriptLimits};

mod place;

use place::Place;

use crate::theme::Theme;
use crate::widgets::reads::{readers as widget_readers, reads as widget_reads};

/// Most problems one check lists: a hostile bundle with a million mistakes is reported in
/// bounded time and space.
const MAX_PROBLEMS: usize = 500;
struct Checker<'a> {
    bundle: &'a AppBundle,
    modules: &'a LayoutModules,
    handlers: Option<Vec<String>>,
    problems: Vec<Problem>,
    /// Problems past `MAX_PROBLEMS`, counted only.
    unlisted: usize,
    /// Literal image paths already tried, with why each cannot be shown: each file is
    /// decoded once however often it is named.
    images: std::collections::BTreeMap<String, Option<String>>,
}

impl Checker<'_> {
    /// Adds a problem at the first place holding `needle` (see [`Place::problem`]).
    fn report(&mut self, at: Place<'_>, needle: &str, message: String) {
        if self.problems.len() >= MAX_PROBLEMS {
            self.unlisted += 1;
            return;
        }
        self.problems.push(at.problem(needle, message));
    }

    fn check_handler(&mut self, at: Place<'_>, name: &str) {
        if name.starts_with('$') {
            return;
        }
        let missing = self.handlers.as_ref().is_some_and(|handlers| !handlers.iter().any(|h| h == name));
        if missing {
            let scripts: Vec<&str> = self.bundle.scripts.iter().map(|s| s.name.as_str()).collect();
            self.report(
                at,
                &format!("\"{name}\""),
                format!(
                    "handler `{name}` is not defined in {}",
                    if scripts.is_empty() { "any script".to_owned() } else { scripts.join(", ") }
                ),
            );
        }
    }

    /// Module cycles, and screens or modules that expand past the view's limits. A limit is
    /// blamed on the smallest layout over it, not on every layout that uses that one.
    fn check_expansion(&mut self) {
        let analysis = ModuleAnalysis::new(self.modules);
        for cycle in &analysis.cycles {
            let module = &self.modules.modules[&cycle[0]];
            self.report(
                Place::file(&module.file, &module.source),
                &format!("\"{}\"", cycle[1]),
                format!(
                    "layout modules use each other in a cycle: {} (a module cannot use itself, even through others)",
                    cycle.join(" -> ")
                ),
            );
        }
        let roots = self
            .modules
            .modules
            .values()
            .map(|m| (&m.file, &m.source, &m.root))
            .chain(self.bundle.screens.values().map(|s| (&s.file, &s.source, &s.root)));
        for (file, source, root) in roots {
            let at = Place::file(file, source);
            let inherited: Vec<_> = used_modules(root)
                .iter()
                .filter_map(|name| analysis.modules.get(*name))
                .flat_map(|e| e.over_limits())
                .map(|(limit, _)| limit)
                .collect();
            for (limit, message) in analysis.expand(root).over_limits() {
                if !inherited.contains(&limit) {
                    self.report(at, "Use(", message);
                }
            }
        }
    }

    fn check_path(&mut self, at: Place<'_>, path: &BindPath) {
        let first = path.segments.first().map(String::as_str);
        let known = match (path.root, first) {
            (PathRoot::State, Some(key)) => self.bundle.manifest.state.contains_key(key),
            (PathRoot::Content, Some(key)) => self.bundle.content.get(key).is_some(),
            _ => true,
        };
        if !known {
            let what = if path.root == PathRoot::State { "initial state" } else { "content" };
            let keys: Vec<&str> = match path.root {
                PathRoot::State => self.bundle.manifest.state.keys().map(String::as_str).collect(),
                _ => self.bundle.content.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default(),
            };
            let first = first.unwrap_or("");
            let meant = phoneworld_data::did_you_mean(first, &keys).map(|k| format!(": did you mean `{k}`?")).unwrap_or_default();
            self.report(at, &path.to_string(), format!("`{path}`: no `{first}` in the app's {what}{meant}"));
            return;
        }
        // Further down, only what cannot be right whatever the data becomes: a position 0.
        let root = match path.root {
            PathRoot::State => first.and_then(|k| self.bundle.manifest.state.get(k)),
            PathRoot::Content => first.and_then(|k| self.bundle.content.get(k)),
            _ => None,
        };
        if let Some(Err(e)) = root.map(|v| valuepath::lookup(v, &path.segments[1..])) {
            let prefix = format!("{}.{}", path.root.name(), first.unwrap_or_default());
            self.report(at, &path.to_string(), e.within(&prefix).to_string());
        }
    }

    fn check_template(&mut self, at: Place<'_>, t: &Template) {
        for p in t.paths() {
            self.check_path(at, p);
        }
    }

    fn check_cond(&mut self, at: Place<'_>, c: &BoolExpr) {
        for p in c.paths() {
            self.check_path(at, p);
        }
    }

    /// Checks a widget and those inside it; `at` is at the widget's outline when known.
    fn check_node(&mut self, at: Place<'_>, node: &Node, in_module: bool) {
        let at = at.at(at.node.filter(|o| o.name(at.source) == Some(node.kind.name())));
        let p = &node.props;
        if node.kind == NodeKind::Use {
            match p.module.as_deref() {
                None => self.report(at, "Use(", "`Use` needs `module`".into()),
                Some(name) => match self.modules.get(name) {
                    None => self.report(at, &format!("\"{name}\""), format!("no layout module `{name}` in layouts/")),
                    Some(module) => {
                        for arg in p.args.keys() {
                            if !module.params.is_empty() && !module.params.contains(arg) {
                                self.report(
                                    at,
                                    &format!("\"{arg}\""),
                                    format!("module `{name}` has no parameter `{arg}` (it takes: {})", module.params.join(", ")),
                                );
                            }
                        }
                        for (key, value) in &p.args {
                            if key.starts_with("on_") {
                                if let Some(name) = value_literal(value) {
                                    self.check_handler(at, &name);
                                }
                            }
                        }
                    }
                },
            }
        }
        for name in p.set_names() {
            if !widget_reads(node.kind, name) {
                let readers = widget_readers(name);
                let verb = if readers.len() == 1 { "reads" } else { "read" };
                let message = format!("`{name}` does nothing on {}: only {} {verb} it", node.kind.name(), readers.join(", "));
                self.report(at, &format!("{name}:"), message);
            }
        }
        for handler in [&p.on_tap, &p.on_long_press, &p.on_change, &p.on_submit, &p.on_scroll_end].into_iter().flatten() {
            if !in_module {
                self.check_handler(at, handler);
            }
        }
        if let Some(value) = &p.value {
            if !matches!(value.root, PathRoot::State | PathRoot::Local | PathRoot::System | PathRoot::Item) {
                self.report(at, &value.to_string(), format!("`value: \"{value}\"`: an input writes to state, local, system or item"));
            }
            if !in_module {
                self.check_path(at, value);
            }
        }
        if !in_module {
            for t in [&p.id, &p.text, &p.title, &p.label, &p.hint, &p.error, &p.icon, &p.content_desc, &p.items, &p.progress, &p.src]
                .into_iter()
                .flatten()
            {
                self.check_template(at, t);
            }
            for c in [&p.visible, &p.enabled, &p.selected].into_iter().flatten() {
                self.check_cond(at, c);
            }
        }
        if let Some(icon) = p.icon.as_ref().filter(|t| t.is_constant()) {
            let name = icon.render(&empty_scope());
            if !phoneworld_text::icon_exists(&name) {
                self.report(at, &format!("\"{name}\""), format!("no icon `{name}` in the bundled icon font"));
            }
        }
        if let Some(src) = p.src.as_ref().filter(|t| t.is_constant()) {
            self.check_image(at, &src.render(&empty_scope()));
        }
        for tab in &p.tabs {
            if let Some(icon) = &tab.icon {
                if !phoneworld_text::icon_exists(icon) {
                    self.report(at, &format!("\"{icon}\""), format!("no icon `{icon}` in the bundled icon font"));
                }
            }
        }
        for color in [&p.background, &p.color, &p.border].into_iter().flatten() {
            if color.contains('{') {
                if let Err(e) = Template::parse(color) {
                    self.report(at, color, e);
                }
                continue;
            }
            if Theme::get(false).color(color).is_none() {
                self.report(
                    at,
                    &format!("\"{color}\""),
                    format!("`{color}` is not a color: use #RRGGBB, #AARRGGBB or a role ({})", Theme::ROLES.join(", ")),
                );
            }
        }
        if matches!(node.kind, NodeKind::List) && (p.items.is_none() || p.row.is_none()) {
            self.report(at, "List(", "`List` needs `items` and `row`".into());
        }
        if matches!(
            node.kind,
            NodeKind::TextField
                | NodeKind::Switch
                | NodeKind::Checkbox
                | NodeKind::Radio
                | NodeKind::Slider
                | NodeKind::TimePicker
                | NodeKind::DatePicker
        ) && p.value.is_none()
        {
            self.report(at, &format!("{}(", node.kind.name()), format!("`{}` needs `value` (the state path it edits)", node.kind.name()));
        }
        for (child, outline) in p.children.iter().zip(at.children(p.children.len())) {
            self.check_node(at.at(outline), child, in_module);
        }
        if let Some(row) = &p.row {
            self.check_node(at.at(at.child_field("row")), row, in_module);
        }
        if let Some(empty) = &p.empty {
            self.check_node(at.at(at.child_field("empty")), empty, in_module);
        }
    }
}

impl Checker<'_> {
    /// A literal image path must name a file of the bundle that decodes within the limits.
    fn check_image(&mut self, at: Place<'_>, path: &str) {
        if path.is_empty() {
            return;
        }
        let bundle = self.bundle;
        let failure = self
            .images
            .entry(path.to_owned())
            .or_insert_with(|| crate::load_image(bundle, at.file, path).err().map(|e| e.to_string()))
            .clone();
        if let Some(message) = failure {
            self.report(at, &format!("\"{path}\""), format!("image `{path}`: {message}"));
        }
    }
}

/// The names of the modules a layout uses directly.
fn used_modules(root: &Node) -> Vec<&str> {
    let mut out = Vec::new();
    root.walk(&mut |node| {
        if let Some(name) = node.props.module.as_deref().filter(|_| node.kind == NodeKind::Use) {
            out.push(name);
        }
    });
    out
}

fn value_literal(t: &Template) -> Option<String> {
    t.is_constant().then(|| t.render(&empty_scope()))
}

fn empty_scope() -> phoneworld_data::Scope<'static> {
    static NULL: serde_json::Value = serde_json::Value::Null;
    phoneworld_data::Scope {
        state: &NULL,
        local: &NULL,
        content: &NULL,
        params: &NULL,
        system: &NULL,
        vm: &NULL,
        item: None,
        index: None,
        args: None,
    }
}

/// Checks one app folder against the layout modules and the Lua library; returns every
/// problem found (empty when the app is fine).
pub fn check_app(dir: &Path, modules: &LayoutModules, library: &LuaLibrary) -> Vec<Problem> {
    let (bundle, errors) = AppBundle::load_all(dir);
    let mut problems: Vec<Problem> = errors.iter().map(Problem::from).collect();
    let Some(bundle) = bundle else { return problems };
    // A script error names an app file (`main.lua`) or a library module (`lib/text.lua`).
    let problem = |e: ScriptError| {
        let file = library.file_of(&e.file).map_or_else(|| dir.join(&e.file), Path::to_path_buf);
        Problem::new(file.display().to_string(), e.line.map(|l| l as usize), e.message)
    };
    let (compiled_library, library_errors) = Library::compile_each(library);
    problems.extend(library_errors.into_iter().map(problem));
    let handlers = match Program::compile(&bundle).map(|program| program.with_library(&compiled_library)) {
        Err(e) => {
            problems.push(problem(e));
            None
        }
        Ok(program) => match ScriptHost::new(ScriptLimits::default()).and_then(|mut host| {
            host.ensure_loaded(&program)?;
            Ok(host.handler_names(program.app()))
        }) {
            Ok(names) => Some(names),
            Err(e) => {
                problems.push(problem(e));
                None
            }
        },
    };
    let mut checker = Checker { bundle: &bundle, modules, handlers, problems, unlisted: 0, images: Default::default() };
    let manifest_file = dir.join("app.ron");
    // Only for line numbers: the bundle loaded, so it is a regular file of bounded size.
    let manifest_src = read_text_bounded(&manifest_file, MAX_BUNDLE_FILE_BYTES).unwrap_or_default();
    let manifest = &bundle.manifest;
    let services = manifest.services.iter().flat_map(|s| [&s.pay, &s.send_to_chat]);
    for h in [&manifest.on_launch, &manifest.on_install, &manifest.share].into_iter().chain(services).flatten() {
        checker.check_handler(Place::file(&manifest_file, &manifest_src), h);
    }
    if !phoneworld_text::icon_exists(&bundle.manifest.icon) {
        let icon = bundle.manifest.icon.clone();
        checker.report(
            Place::file(&manifest_file, &manifest_src),
            &format!("\"{icon}\""),
            format!("no icon `{icon}` in the bundled icon font"),
        );
    }
    for screen in bundle.screens.values() {
        for h in [&screen.on_enter, &screen.view].into_iter().flatten() {
            checker.check_handler(Place::file(&screen.file, &screen.source), h);
        }
        let outline = Outline::parse(&screen.source);
        let root = outline.as_ref().and_then(|o| o.field("root"));
        checker.check_node(Place::file(&screen.file, &screen.source).at(root), &screen.root, false);
    }
    for module in modules.modules.values() {
        let outline = Outline::parse(&module.source);
        let root = outline.as_ref().and_then(|o| o.field("root"));
        checker.check_node(Place::file(&module.file, &module.source).at(root), &module.root, true);
    }
    checker.check_expansion();
    let unlisted = checker.unlisted;
    let mut problems = checker.problems;
    problems.sort();
    problems.dedup();
    if unlisted > 0 {
        problems.push(Problem::new(
            dir.display().to_string(),
            None,
            format!("{unlisted} more problems are not listed (at most {MAX_PROBLEMS} are)"),
        ));
    }
    problems
}
