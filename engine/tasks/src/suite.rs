//! A suite: every task template of `verifiers/<suite>/`, loaded and checked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use phoneworld_phone::Catalog;

use crate::template::TaskTemplate;
use crate::TaskError;

/// The templates of one suite, in id order.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub templates: Vec<Arc<TaskTemplate>>,
    /// blake3 over every task file, so results are comparable only for the same suite.
    pub hash: String,
}

fn ron_options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES)
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

/// Parses one task file; errors name the file, line and column.
pub fn parse_template(path: &Path, text: &str) -> Result<TaskTemplate, TaskError> {
    ron_options().from_str(text).map_err(|e| TaskError::Syntax {
        file: path.to_path_buf(),
        line: e.position.line,
        col: e.position.col,
        message: e.code.to_string(),
    })
}

/// Checks what a template refers to: its apps exist, its id matches its file.
fn validate(path: &Path, t: &TaskTemplate, catalog: &Catalog) -> Result<(), TaskError> {
    let field = |f: &str, m: String| TaskError::Field { file: path.to_path_buf(), field: f.to_owned(), message: m };
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if t.id != stem {
        return Err(field("id", format!("`{}` must match the file name `{stem}`", t.id)));
    }
    if t.apps.is_empty() {
        return Err(field("apps", "list the apps the task involves".into()));
    }
    for (i, app) in t.apps.iter().enumerate() {
        if catalog.get(app).is_none() {
            return Err(field(&format!("apps[{i}]"), format!("`{app}` is not installed")));
        }
    }
    for (i, allow) in t.allow.iter().enumerate() {
        let Some((app, _)) = allow.split_once(':') else {
            return Err(field(&format!("allow[{i}]"), format!("`{allow}`: write `<package>:<path>` or `system:<key>`")));
        };
        if app != "system" && catalog.get(app).is_none() {
            return Err(field(&format!("allow[{i}]"), format!("`{app}` is not installed")));
        }
    }
    if t.solution.is_empty() {
        return Err(field("solution", "a reference solution is required".into()));
    }
    if t.success.is_empty() {
        return Err(field("success", "at least one check is required".into()));
    }
    Ok(())
}

impl Suite {
    /// Loads `dir` (a suite folder); the suite is named after the folder.
    pub fn load(dir: &Path, catalog: &Catalog) -> Result<Suite, TaskError> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| TaskError::Io(format!("{}: {e}", dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ron"))
            .collect();
        files.sort();
        let mut hasher = blake3::Hasher::new();
        let mut templates: Vec<Arc<TaskTemplate>> = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| TaskError::Io(format!("{}: {e}", file.display())))?;
            hasher.update(file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default().as_bytes());
            hasher.update(text.as_bytes());
            let template = parse_template(&file, &text)?;
            validate(&file, &template, catalog)?;
            crate::template_paths::validate(&file, &text, &template, catalog)?;
            templates.push(Arc::new(template));
        }
        templates.sort_by(|a, b| a.id.cmp(&b.id));
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Suite { name, templates, hash: hasher.finalize().to_hex().to_string() })
    }

    /// Finds a suite by name in the suite folders (`verifiers/` first).
    pub fn find(name: &str, suite_dirs: &[PathBuf], catalog: &Catalog) -> Result<Suite, TaskError> {
        for dir in suite_dirs {
            let candidate = dir.join(name);
            if candidate.is_dir() {
                return Suite::load(&candidate, catalog);
            }
        }
        Err(TaskError::Io(format!(
            "no suite `{name}` in {}",
            suite_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        )))
    }

    pub fn get(&self, id: &str) -> Option<&Arc<TaskTemplate>> {
        self.templates.iter().find(|t| t.id == id)
    }
}
