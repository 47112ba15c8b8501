//! The short Markdown summary of a fidelity report.

use std::fmt::Write as _;

use serde_json::Value;

fn pct(v: &Value) -> String {
    v.as_f64().map(|f| format!("{:.1}%", f * 100.0)).unwrap_or_else(|| "n/a".into())
}

/// The memory measure as a share and its counts: `75.0% (3/4)`; n/a without changed revisits.
fn remembered(memory: &Value) -> String {
    match (memory["reproduced"].as_u64(), memory["changed_revisits"].as_u64()) {
        (Some(r), Some(n)) if n > 0 => format!("{} ({r}/{n})", pct(&memory["share"])),
        _ => "n/a".into(),
    }
}

/// Markdown for the JSON of [`crate::pipeline::fidelity_json`].
pub fn fidelity_markdown(report: &Value) -> String {
    let mut out = String::new();
    let a = &report["aggregate"];
    let _ = writeln!(out, "# Fidelity of {} ({})\n", report["label"].as_str().unwrap_or(""), report["app"].as_str().unwrap_or(""));
    let _ = writeln!(out, "Each step of each trace is replayed on the generated app; a step succeeds when the app lands on");
    let _ = writeln!(out, "the abstract screen the trace shows next. The baseline is an app in which nothing ever changes.\n");
    let _ = writeln!(
        out,
        "| trace | format | judged steps | transition accuracy | baseline | screen coverage | element recall | visual similarity | memory |"
    );
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for t in report["traces"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            t["trace"].as_str().unwrap_or(""),
            t["format"].as_str().unwrap_or(""),
            t["judged"],
            pct(&t["transition_accuracy"]),
            pct(&t["baseline"]["transition_accuracy"]),
            pct(&t["screen_coverage"]),
            pct(&t["element_recall"]),
            pct(&t["visual_similarity"]),
            remembered(&t["memory"]),
        );
    }
    let _ = writeln!(
        out,
        "| **all** | | {} | **{}** | {} | {} | {} | {} | {} |\n",
        a["judged"],
        pct(&a["transition_accuracy"]),
        pct(&a["baseline"]["transition_accuracy"]),
        pct(&a["screen_coverage"]),
        pct(&a["element_recall"]),
        pct(&a["visual_similarity"]),
        remembered(&a["memory"]),
    );
    let _ = writeln!(
        out,
        "Memory: of the revisits where a checked value, a field or a typed text shows differently than on the screen's\n\
         earlier visit, the share the rebuilt app reproduces (`memory` in `fidelity.json`; `changed` and `remembered` per step).\n"
    );
    for t in report["traces"].as_array().into_iter().flatten() {
        let failures = t["failures"].as_object().filter(|f| !f.is_empty());
        if let Some(failures) = failures {
            let _ = writeln!(out, "Failures in {}:", t["trace"].as_str().unwrap_or(""));
            for (reason, n) in failures {
                let _ = writeln!(out, "- {n} step(s): {reason}");
            }
            out.push('\n');
        }
    }
    if report["split"].is_object() {
        held_back(&report["split"], &mut out);
    }
    let _ = writeln!(out, "Per-step detail and per-screen visual scores are in `fidelity.json`.");
    out
}

/// The split measure's table (`split::measure`).
fn held_back(split: &Value, out: &mut String) {
    let _ = writeln!(
        out,
        "## Held back\n\nEvery other demonstration (or trace) held back, the app rebuilt from the other {}, and each held-back one replayed on it.\n",
        split["rebuilt_from"]
    );
    let _ = writeln!(out, "| held-back trace | judged | transition accuracy | baseline | own verifier |\n|---|---:|---:|---:|---|");
    for t in split["traces"].as_array().into_iter().flatten() {
        let verdict = match t["verified"].as_bool() {
            Some(true) => "passes",
            Some(false) => "fails",
            None => "no task",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {verdict} |",
            t["trace"].as_str().unwrap_or(""),
            t["judged"],
            pct(&t["transition_accuracy"]),
            pct(&t["baseline"])
        );
    }
    let a = &split["aggregate"];
    let _ = writeln!(
        out,
        "| **all** | {} | **{}** | {} | {} of {} |\n",
        a["judged"],
        pct(&a["transition_accuracy"]),
        pct(&a["baseline"]),
        a["verified"],
        a["demonstrations"]
    );
}
