//! Paths of a task file, followed through the initial data of the apps they name when the
//! file is loaded: a path that cannot be right (a list position 0) is refused at its line,
//! before any episode runs.

use std::path::Path;

use phoneworld_data::{line_and_column, valuepath, Outline};
use phoneworld_phone::Catalog;
use serde_json::Value;

use crate::template::{Check, Setup, TaskTemplate};
use crate::TaskError;

/// One path the file names: where it is (field and item), and what it reads.
struct Named<'t> {
    field: String,
    /// The top-level list item it is in (`success[2]` is item 2 of `success`).
    list: &'static str,
    item: usize,
    app: &'t str,
    path: &'t str,
    /// Field names of a list's elements (`Exists(fields: ...)`), relative to each element.
    element_fields: Vec<&'t str>,
}

fn check_paths<'t>(check: &'t Check, list: &'static str, item: usize, field: String, out: &mut Vec<Named<'t>>) {
    let named = |app: &'t String, path: &'t String, element_fields: Vec<&'t str>| Named {
        field: field.clone(),
        list,
        item,
        app,
        path,
        element_fields,
    };
    match check {
        Check::Exists { app, path, fields } | Check::Absent { app, path, fields } | Check::Count { app, path, fields, .. } => {
            out.push(named(app, path, fields.keys().map(String::as_str).collect()));
        }
        Check::Equals { app, path, .. } | Check::Contains { app, path, .. } => out.push(named(app, path, Vec::new())),
        Check::All(checks) | Check::Any(checks) => {
            for (i, c) in checks.iter().enumerate() {
                check_paths(c, list, item, format!("{field}[{i}]"), out);
            }
        }
        Check::Not(c) => check_paths(c, list, item, field.clone(), out),
        Check::Answer(_) | Check::Finished(_) | Check::Screen { .. } => {}
    }
}

fn named_paths(t: &TaskTemplate) -> Vec<Named<'_>> {
    let mut out = Vec::new();
    for (i, step) in t.setup.iter().enumerate() {
        if let Setup::Set { app, path, .. } | Setup::Insert { app, path, .. } = step {
            out.push(Named { field: format!("setup[{i}]"), list: "setup", item: i, app, path, element_fields: Vec::new() });
        }
    }
    for (i, check) in t.success.iter().enumerate() {
        check_paths(check, "success", i, format!("success[{i}]"), &mut out);
    }
    for (i, goal) in t.subgoals.iter().enumerate() {
        check_paths(&goal.check, "subgoals", i, format!("subgoals[{i}]"), &mut out);
    }
    for (i, allow) in t.allow.iter().enumerate() {
        if let Some((app, path)) = allow.split_once(':') {
            out.push(Named {
                field: format!("allow[{i}]"),
                list: "allow",
                item: i,
                app,
                path: path.trim_end_matches(['+', '-']),
                element_fields: Vec::new(),
            });
        }
    }
    out
}

/// Follows every literal path of `t` (paths with `{holes}` depend on parameters) through the
/// initial data of its app; element fields are followed in the list's first element.
pub(crate) fn validate(file: &Path, text: &str, t: &TaskTemplate, catalog: &Catalog) -> Result<(), TaskError> {
    for named in named_paths(t) {
        if named.path.contains('{') {
            continue;
        }
        let Some(app) = catalog.get(named.app) else { continue };
        let data = Value::Object(app.bundle.manifest.state.clone().into_iter().collect());
        let segments = valuepath::split(named.path);
        let wrong = match valuepath::lookup(&data, &segments) {
            Err(e) => Some(e),
            Ok(found) => {
                let first = found.and_then(Value::as_array).and_then(|l| l.first());
                first.and_then(|element| {
                    named
                        .element_fields
                        .iter()
                        .filter(|f| !f.contains('{'))
                        .find_map(|f| valuepath::lookup(element, &valuepath::split(f)).err())
                })
            }
        };
        if let Some(e) = wrong {
            let (file, field, message) = (file.to_path_buf(), named.field, e.to_string());
            let outline = Outline::parse(text);
            let at = outline.as_ref().and_then(|o| o.field(named.list)).and_then(|l| l.items().get(named.item)).map(|i| i.span.start);
            return Err(match at.map(|at| line_and_column(text, at)) {
                Some((line, col)) => TaskError::Placed { file, line, col, field, message },
                None => TaskError::Field { file, field, message },
            });
        }
    }
    Ok(())
}
