//! The HTML page: a header with the run's numbers, the charts, a table of episodes and the step
//! viewer, with its styles, script and data inline so the one file opens anywhere offline.

use std::fmt::Write as _;

use serde_json::{json, Value};

use phoneworld_tasks::EpisodeSummary;

use crate::run::RunReport;

/// The charts drawn for a run, each an `id` and its SVG.
pub(crate) struct Charts(pub Vec<(&'static str, String)>);

/// One episode's frames as the viewer takes them (see `viewer.js`).
pub(crate) struct EpisodeFrames {
    pub(crate) device: Option<(u32, u32)>,
    pub(crate) frames: Vec<Value>,
}

pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// JSON that can sit inside a `<script>` element: no `<` can close it or open a comment.
fn script_json(value: &Value) -> String {
    value.to_string().replace('<', "\\u003c")
}

fn percent(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

fn episode_row(index: usize, entry: &EpisodeSummary) -> String {
    let (verdict, class) = if entry.success { ("passed", "verdict-passed") } else { ("failed", "verdict-failed") };
    let reason = entry.failure.as_ref().map(|f| format!("step {}: {}", f.step, f.reason)).unwrap_or_default();
    format!(
        "<tr class=\"episode\" data-episode=\"{index}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
         <td class=\"{class}\">{verdict}</td><td class=\"reason\">{}</td></tr>\n",
        escape(&entry.template),
        entry.seed,
        escape(entry.appearance.as_deref().unwrap_or("")),
        escape(&entry.category),
        escape(&entry.apps.join(", ")),
        escape(&entry.difficulty),
        entry.steps,
        escape(&reason),
    )
}

/// The whole page.
pub(crate) fn page(report: &RunReport, charts: &Charts, images: &[String], frames: Vec<EpisodeFrames>) -> String {
    let passed = report.results.iter().filter(|r| r.success).count();
    let title = format!("{} · {} · {}", report.suite, report.agent, percent(report.success_rate));
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <link rel=\"icon\" href=\"data:,\">\n<title>PhoneWorld eval: {}</title>\n<style>\n{}</style>\n</head>\n<body>\n<header>\n\
         <h1>PhoneWorld eval: {} with {}</h1>\n<p class=\"summary\"><span class=\"rate\" id=\"success-rate\">{}</span>{} of {} episodes passed · {} seed{} per task · suite hash <code>{}</code></p>\n</header>\n<main>\n",
        escape(&title),
        include_str!("../assets/page.css"),
        escape(&report.suite),
        escape(&report.agent),
        percent(report.success_rate),
        passed,
        report.episodes,
        report.seeds,
        if report.seeds == 1 { "" } else { "s" },
        escape(&report.suite_hash.chars().take(16).collect::<String>()),
    );
    html.push_str("<h2>Success</h2>\n<section class=\"charts\">\n");
    for (id, svg) in &charts.0 {
        let _ = writeln!(html, "<figure class=\"chart\" id=\"chart-{id}\">\n{svg}\n</figure>");
    }
    html.push_str("</section>\n");
    html.push_str(
        "<h2>Step viewer</h2>\n<section id=\"viewer\" hidden>\n<div>\n<div class=\"stage\"><img id=\"v-frame\" alt=\"the screen before the step\">\
         <svg id=\"v-overlay\" xmlns=\"http://www.w3.org/2000/svg\" preserveAspectRatio=\"none\"></svg>\
         <div class=\"empty\" id=\"v-empty\" hidden>This episode's trajectory was not recorded.</div></div>\n\
         <div class=\"controls\"><button id=\"v-prev\" title=\"previous step (←)\">◀</button><input type=\"range\" id=\"v-slider\" min=\"0\" value=\"0\" aria-label=\"step\">\
         <button id=\"v-next\" title=\"next step (→)\">▶</button></div>\n</div>\n<div class=\"details\">\n<h3 id=\"v-title\"></h3>\n\
         <p class=\"instruction\" id=\"v-instruction\"></p>\n<dl>\n<dt>verdict</dt><dd id=\"v-verdict\"></dd>\n<dt>failing check</dt><dd class=\"failing\" id=\"v-failing\"></dd>\n\
         <dt>step</dt><dd id=\"v-step\"></dd>\n<dt>action</dt><dd id=\"v-action\"></dd>\n<dt>screen</dt><dd id=\"v-screen\"></dd>\n</dl>\n</div>\n</section>\n",
    );
    html.push_str(
        "<h2>Episodes</h2>\n<table id=\"episodes\">\n<thead><tr><th>task</th><th>seed</th><th>appearance</th><th>category</th><th>apps</th><th>difficulty</th>\
         <th>steps</th><th>verdict</th><th>failing check</th></tr></thead>\n<tbody>\n",
    );
    for (i, entry) in report.results.iter().enumerate() {
        html.push_str(&episode_row(i, entry));
    }
    html.push_str("</tbody>\n</table>\n</main>\n");
    let episodes: Vec<Value> = report
        .results
        .iter()
        .zip(frames)
        .map(|(entry, recorded)| {
            json!({
                "template": entry.template, "seed": entry.seed, "appearance": entry.appearance,
                "instruction": entry.instruction, "success": entry.success, "steps": entry.steps,
                "failure": entry.failure.as_ref().map(|f| json!({ "step": f.step, "reason": f.reason })),
                "device": recorded.device.map(|(w, h)| [w, h]), "frames": recorded.frames,
            })
        })
        .collect();
    let _ = write!(
        html,
        "<script type=\"application/json\" id=\"run-data\">{}</script>\n<script>\n{}</script>\n</body>\n</html>\n",
        script_json(&json!({ "images": images, "episodes": episodes })),
        include_str!("../assets/viewer.js"),
    );
    html
}
