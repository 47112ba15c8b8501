//! Entry points for fuzzing the importers. Each parses one kind of trace file from bytes,
//! touches no file, and runs what comes after import on what it read (the limits check,
//! target resolution, abstraction, the usage graph, the generated app's texts). Each
//! returns an error for bad input and must never panic, overflow the stack or hang.

use std::path::Path;

use crate::abstraction::Abstraction;
use crate::error::{text_of, ReconError};
use crate::generate::{bundle_files, model, GenOptions};
use crate::graph::UsageGraph;
use crate::import::hierarchy::{read_flat_nodes, read_uiautomator_xml, root_extent};
use crate::import::scan::Budget;
use crate::import::{droidbot, llamatouch, phoneworld, rico, uiautomator};
use crate::trace::{Screen, Trace, TraceAction, TraceStep, UiNode, TRACE_FORMAT};
use crate::visual::Rgb;

/// The name errors give the fuzzed bytes.
fn name(kind: &str) -> &Path {
    Path::new(kind)
}

/// A trace of one screen and the given actions on it (a tap in its middle when none).
fn one_screen(path: &Path, root: Option<UiNode>, mut actions: Vec<TraceAction>) -> Trace {
    let (width, height) = root.as_ref().map(root_extent).unwrap_or((1080, 2400));
    let package = root.as_ref().map(|r| r.package.clone()).filter(|p| !p.is_empty()).unwrap_or_else(|| "fuzz.app".to_owned());
    if actions.is_empty() {
        actions.push(TraceAction::Tap { x: f64::from(width) / 2.0, y: f64::from(height) / 2.0 });
    }
    let screen = Screen::from_root("s", &package, "", width, height, root);
    let steps = actions.into_iter().map(|action| TraceStep { screen: "s".into(), action, target: None, next: Some("s".into()) }).collect();
    Trace {
        format: TRACE_FORMAT.to_owned(),
        source_format: "fuzz".to_owned(),
        source: path.display().to_string(),
        base_dir: String::new(),
        screens: [("s".to_owned(), screen)].into_iter().collect(),
        steps,
        notes: Vec::new(),
        instruction: None,
    }
}

/// What follows an import, in memory: limits, targets, abstraction, graph, the app's texts.
fn after_import(path: &Path, mut trace: Trace) -> Result<(), ReconError> {
    trace.check_limits(path)?;
    trace.resolve_targets();
    let package = trace.screens.values().map(|s| s.package.clone()).find(|p| !p.is_empty()).unwrap_or_else(|| "fuzz.app".to_owned());
    let traces = [trace];
    let mut abstraction = Abstraction::new(&package, 0.5);
    let maps = vec![abstraction.add_trace(0, &traces[0])?];
    abstraction.name_screens();
    let graph = UsageGraph::build(&abstraction, &traces, &maps);
    let options = GenOptions { package, label: "Fuzz".to_owned(), full_screens: 40 };
    let app = model(&abstraction, &graph, &traces, &options);
    let _ = (graph.to_dot(), graph.to_json(), bundle_files(&app, &traces));
    Ok(())
}

/// A DroidBot `states/state_*.json` file.
pub fn droidbot_state(data: &[u8]) -> Result<(), ReconError> {
    let path = name("state.json");
    let state = droidbot::parse_state(path, &text_of(path, data)?)?;
    let mut trace = one_screen(path, state.root, Vec::new());
    if let Some(s) = trace.screens.get_mut("s") {
        s.activity = state.activity;
    }
    after_import(path, trace)
}

/// A DroidBot `events/event_*.json` file.
pub fn droidbot_event(data: &[u8]) -> Result<(), ReconError> {
    let path = name("event.json");
    let event = droidbot::parse_event(path, &text_of(path, data)?)?;
    let mut trace = one_screen(path, None, vec![event.action]);
    trace.steps[0].target = event.target;
    after_import(path, trace)
}

/// A `uiautomator dump` XML file (also a LlamaTouch `i.xml`, a PhoneWorld step's XML).
pub fn uiautomator_xml(data: &[u8]) -> Result<(), ReconError> {
    let path = name("dump.xml");
    let root = read_uiautomator_xml(path, &text_of(path, data)?)?;
    after_import(path, one_screen(path, Some(root), Vec::new()))
}

/// A uiautomator action log (JSONL); the screens it names are not read.
pub fn uiautomator_log(data: &[u8]) -> Result<(), ReconError> {
    let path = name("actions.jsonl");
    let rows = uiautomator::parse_log(path, &text_of(path, data)?)?;
    after_import(path, one_screen(path, None, rows.into_iter().map(|r| r.action).collect()))
}

/// A LlamaTouch `eventStructs.txt`, on a 1080 x 2400 screen.
pub fn llamatouch(data: &[u8]) -> Result<(), ReconError> {
    let path = name("eventStructs.txt");
    let text = text_of(path, data)?;
    let mut actions = Vec::new();
    for (line_no, line) in llamatouch::event_lines(path, &text)? {
        actions.push(llamatouch::parse_event(path, line_no, line, (1080, 2400))?);
    }
    after_import(path, one_screen(path, None, actions))
}

/// A LlamaTouch `i.vh` file (DroidBot's flat node list).
pub fn llamatouch_vh(data: &[u8]) -> Result<(), ReconError> {
    let path = name("0.vh");
    let root = read_flat_nodes(path, "(root)", &crate::error::parse_json(path, &text_of(path, data)?)?)?;
    after_import(path, one_screen(path, root, Vec::new()))
}

/// A LlamaTouch `i.json` file (the simplified element list).
pub fn llamatouch_elements(data: &[u8]) -> Result<(), ReconError> {
    let path = name("0.json");
    let root = llamatouch::read_simplified(path, &crate::error::parse_json(path, &text_of(path, data)?)?)?;
    after_import(path, one_screen(path, root, Vec::new()))
}

/// A Rico `view_hierarchies/<id>.json` file.
pub fn rico(data: &[u8]) -> Result<(), ReconError> {
    let path = name("view_hierarchy.json");
    let (activity, root) = rico::parse_hierarchy(path, &text_of(path, data)?)?.unwrap_or_default();
    let mut trace = one_screen(path, root, Vec::new());
    if let Some(s) = trace.screens.get_mut("s") {
        s.activity = activity;
    }
    after_import(path, trace)
}

/// A Rico `gestures.json` file, on a 1440 x 2560 screen.
pub fn rico_gestures(data: &[u8]) -> Result<(), ReconError> {
    let path = name("gestures.json");
    let gestures = rico::parse_gestures(path, &text_of(path, data)?)?;
    let px = |(x, y): (f64, f64)| (x * 1440.0, y * 2560.0);
    let actions = gestures
        .into_iter()
        .filter_map(|(_, points)| {
            let (first, last) = (px(*points.first()?), px(*points.last()?));
            Some(TraceAction::Swipe { x1: first.0, y1: first.1, x2: last.0, y2: last.1 })
        })
        .collect();
    after_import(path, one_screen(path, None, actions))
}

/// A PhoneWorld `steps.jsonl` (hierarchies from its UI element lists; no XML is read).
pub fn phoneworld_steps(data: &[u8]) -> Result<(), ReconError> {
    let path = name("steps.jsonl");
    let mut trace = one_screen(path, None, Vec::new());
    trace.screens.clear();
    trace.steps.clear();
    phoneworld::parse_steps(path, &text_of(path, data)?, None, None, &mut Budget::default(), &mut trace)?;
    after_import(path, trace)
}

/// A PhoneWorld `episode.json`.
pub fn phoneworld_episode(data: &[u8]) -> Result<(), ReconError> {
    let path = name("episode.json");
    phoneworld::parse_episode(path, &text_of(path, data)?)?;
    Ok(())
}

/// A canonical trace (`phoneworld-trace/1`).
pub fn canonical(data: &[u8]) -> Result<(), ReconError> {
    let path = name("trace.json");
    let trace = Trace::parse(path, &text_of(path, data)?)?;
    after_import(path, trace)
}

/// A screenshot (PNG or JPEG), decoded and sampled as the generator and replay do.
pub fn image(data: &[u8]) -> Result<(), ReconError> {
    let img = Rgb::decode(name("screenshot.png"), data)?;
    let _ = (img.median_color(0.0, 0.0, 1.0, 1.0), img.gray(img.width, img.height, 9, 20));
    Ok(())
}

#[cfg(test)]
mod tests {
    use phoneworld_data::Rng;

    use super::*;
    use crate::limits::MAX_TREE_DEPTH;

    type Entry = fn(&[u8]) -> Result<(), ReconError>;

    /// Each entry point with the fixture files it reads.
    fn seeds() -> Vec<(&'static str, Entry, Vec<&'static [u8]>)> {
        macro_rules! fixture {
            ($path:literal) => {
                include_bytes!(concat!("../tests/fixtures/", $path)).as_slice()
            };
        }
        // A LlamaTouch `.vh` is a DroidBot state's `views` alone.
        let state: serde_json::Value = serde_json::from_slice(fixture!("droidbot/states/state_2024-01-01_100001.json")).unwrap();
        let vh: &'static [u8] = Box::leak(state["views"].to_string().into_bytes().into_boxed_slice());
        vec![
            ("droidbot_state", droidbot_state as Entry, vec![fixture!("droidbot/states/state_2024-01-01_100000.json")]),
            ("droidbot_event", droidbot_event, vec![fixture!("droidbot/events/event_2024-01-01_110002.json")]),
            ("uiautomator_xml", uiautomator_xml, vec![fixture!("uiautomator/settings.xml"), fixture!("llamatouch/1.xml")]),
            ("uiautomator_log", uiautomator_log, vec![fixture!("uiautomator/actions.jsonl")]),
            ("llamatouch", llamatouch, vec![fixture!("llamatouch/eventStructs.txt")]),
            ("llamatouch_vh", llamatouch_vh, vec![vh]),
            ("llamatouch_elements", llamatouch_elements, vec![br#"[{"bounds": "[0,0][1080,200]", "text": "Hi", "clickable": true}]"#]),
            ("rico", rico, vec![fixture!("rico/view_hierarchies/10.json")]),
            ("rico_gestures", rico_gestures, vec![fixture!("rico/gestures.json")]),
            ("phoneworld_steps", phoneworld_steps, vec![fixture!("phoneworld/steps.jsonl")]),
            ("phoneworld_episode", phoneworld_episode, vec![fixture!("phoneworld/episode.json")]),
            ("image", image, vec![fixture!("llamatouch/1.png")]),
        ]
    }

    /// A copy of `seed` with a few bytes changed, a piece cut out, or a piece repeated.
    fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
        const NOISE: &[&[u8]] =
            &[b"{", b"}", b"[", b"]", b"\"", b",", b":", b"0", b"-1", b"1e308", b"NaN", b"<", b">", b"/", b"\n", b"\xff", b"2147483647"];
        let mut bytes = seed.to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len() + 1);
            match rng.below(4) {
                0 => bytes.truncate(at),
                1 => {
                    let end = (at + rng.below(64)).min(bytes.len());
                    bytes.drain(at..end);
                }
                2 => {
                    let end = (at + rng.below(64)).min(bytes.len());
                    let piece = bytes[at..end].to_vec();
                    bytes.splice(at..at, piece.iter().copied().cycle().take(piece.len() * (1 + rng.below(8))));
                }
                _ => {
                    let noise = NOISE[rng.below(NOISE.len())];
                    bytes.splice(at..(at + 1).min(bytes.len()), noise.iter().copied());
                }
            }
        }
        bytes
    }

    /// Thousands of mutated fixtures through every entry point: errors are fine, panics are not.
    #[test]
    fn mutated_inputs_never_panic() {
        let mut rng = Rng::new(20_240_101);
        let (mut runs, mut errors) = (0, 0);
        for (what, entry, files) in seeds() {
            for seed in &files {
                assert!(entry(seed).is_ok(), "{what}: the unchanged fixture fails: {:?}", entry(seed).err());
                for _ in 0..250 {
                    let input = mutate(&mut rng, seed);
                    runs += 1;
                    errors += usize::from(entry(&input).is_err());
                }
            }
        }
        assert!(runs >= 3000 && errors > runs / 10, "{errors} errors in {runs} runs");
    }

    #[test]
    fn deep_and_wide_inputs_end_in_errors_that_name_the_limit() {
        let deep = 5000;
        let xml = format!("<hierarchy>{}{}</hierarchy>", "<node bounds=\"[0,0][10,10]\">".repeat(deep), "</node>".repeat(deep));
        let e = uiautomator_xml(xml.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("dump.xml:1") && e.contains(&format!("{MAX_TREE_DEPTH} levels")), "{e}");
        let n = 20_000;
        let chain: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                let children: Vec<i64> = (i + 1 < n).then_some(i + 1).into_iter().collect();
                serde_json::json!({"temp_id": i, "parent": i - 1, "children": children, "bounds": [[0, 0], [10, 10]]})
            })
            .collect();
        let e = llamatouch_vh(serde_json::to_string(&chain).unwrap().as_bytes()).unwrap_err().to_string();
        assert!(e.contains("0.vh") && e.contains("levels deep"), "{e}");
    }
}
