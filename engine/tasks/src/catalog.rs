//! The generated task catalog (`docs/tasks.md`): every template with its category, apps,
//! skills, an example instruction and its reference step count.

use std::sync::Arc;

use phoneworld_phone::Catalog;

use crate::episode::{run_episode, AgentKind, Instance};
use crate::suite::Suite;
use crate::TaskError;

/// Renders the catalog of a suite as Markdown (reference steps counted by playing seed 0).
pub fn catalog_markdown(catalog: Arc<Catalog>, suite: &Suite) -> Result<String, TaskError> {
    let mut rows = Vec::new();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for t in &suite.templates {
        let instance = Instance::new(Arc::clone(t), 0, &catalog)?;
        let result = run_episode(Arc::clone(&catalog), &instance, AgentKind::Oracle, None)?;
        *counts.entry(t.category.name()).or_default() += 1;
        let apps: Vec<&str> = t.apps.iter().map(|a| catalog.get(a).map_or(a.as_str(), |i| i.label())).collect();
        rows.push(format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            t.id,
            t.category.name(),
            apps.join(", "),
            t.difficulty,
            t.skills.join(", "),
            instance.instruction.replace('|', "\\|"),
            result.steps
        ));
    }
    let mut out = String::new();
    out.push_str(&format!("# Task catalog: {}\n\n", suite.name));
    out.push_str("Generated from `verifiers/` by `phoneworld tasks --markdown`; a test keeps it current.\n\n");
    let summary: Vec<String> = counts.iter().map(|(c, n)| format!("{n} {c}")).collect();
    out.push_str(&format!("{} templates: {}.\n\n", suite.templates.len(), summary.join(", ")));
    out.push_str("| id | category | apps | difficulty | skills | example instruction (seed 0) | reference steps |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for r in rows {
        out.push_str(&r);
        out.push('\n');
    }
    Ok(out)
}
