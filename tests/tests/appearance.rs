//! Appearances: each profile's launcher and Clock as snapshots (PNGs in `snapshots/png`), the
//! seeded draw is deterministic down to the frame, `episode.json` records the look and a replay
//! from it gives the same frames, and the oracle still solves tasks under several profiles.

use std::sync::Arc;

use phoneworld_phone::{project_root, Appearance, DeviceConfig, EpisodeOptions, PROFILES};
use phoneworld_tasks::{evaluate_appearances, run_episode, AgentKind, Instance, Suite};
use phoneworld_tests::{assert_screen, catalog, Harness};

fn harness(look: &Appearance) -> Harness {
    Harness { device: look.device(catalog(), DeviceConfig::default()).expect("device"), results: Vec::new() }
}

#[test]
fn every_profile_draws_the_launcher_and_clock() {
    for name in PROFILES {
        let look = Appearance::profile(name).unwrap();
        let mut h = harness(&look);
        assert_eq!((h.device.frame().width, h.device.frame().height), (look.width, look.height));
        assert_screen!(h, format!("appearance_{name}_home").as_str());
        h.open("Clock");
        h.tap("Clock");
        // The Clock's big time follows the 12/24-hour setting (the phone starts at 09:00).
        let time = h.expect("current_time");
        assert_eq!(time.text.as_deref(), Some(if look.clock_24h { "09:00" } else { "9:00 AM" }), "{name}");
        assert_screen!(h, format!("appearance_{name}_clock").as_str());
    }
}

#[test]
fn twelve_hour_profiles_format_times_in_apps() {
    // Alarms are formatted by the Clock's script through the engine: 12-hour shows AM/PM.
    let mut h = harness(&Appearance::profile("large_text").unwrap());
    h.open("Clock");
    let texts: Vec<String> = h.elements().into_iter().filter_map(|e| e.text).collect();
    assert!(texts.iter().any(|t| t.ends_with(" AM") || t.ends_with(" PM")), "{texts:?}");
    assert!(!texts.iter().any(|t| t.len() == 5 && t.as_bytes()[2] == b':'), "no HH:MM left: {texts:?}");
}

#[test]
fn random_looks_are_drawn_from_the_seed() {
    let frames = |seed: u64| {
        let look = Appearance::resolve("random", seed).unwrap();
        let mut h = harness(&look);
        let home = h.device.frame_hash();
        h.open("Settings");
        (look, home, h.device.frame_hash())
    };
    let (a, b) = (frames(3), frames(3));
    assert_eq!(a, b, "same seed, same look, same frames");
    let looks: Vec<Appearance> = (0..6).map(Appearance::random).collect();
    assert!(looks.windows(2).any(|w| w[0] != w[1]), "seeds vary the look");
}

fn suite() -> Suite {
    Suite::load(&project_root().join("verifiers/phoneworld-v0"), &catalog()).expect("the bundled suite loads")
}

#[test]
fn episode_json_records_the_look_and_a_replay_reproduces_it() {
    let suite = suite();
    let template = Arc::clone(suite.get("clock_add_alarm").expect("template"));
    let seed = 4;
    let options = EpisodeOptions::with_appearance("random", seed).unwrap();
    let instance = Instance::new(Arc::clone(&template), seed, &catalog()).unwrap().with_options(options.clone());
    let dir = std::env::temp_dir().join(format!("phoneworld-appearance-{}", std::process::id()));
    let play = |instance: &Instance, name: &str| {
        let out = dir.join(name);
        let mut writer = phoneworld_agents::TrajectoryWriter::create(&out, false).unwrap();
        let result = run_episode(catalog(), instance, AgentKind::Oracle, Some(&mut writer)).unwrap();
        let size = phoneworld_tasks::device_size(instance);
        writer.finish(&phoneworld_tasks::episode_record(&suite, &catalog().hash, instance, &result, size)).unwrap();
        assert!(result.success, "{:?}", result.failure);
        out
    };
    let first = play(&instance, "first");
    let record: serde_json::Value = serde_json::from_slice(&std::fs::read(first.join("episode.json")).unwrap()).unwrap();
    let look = options.appearance.as_ref().unwrap();
    assert_eq!(record["options"]["appearance"]["name"], "random");
    assert_eq!(record["device"]["width"], look.width);
    // A replay reads the look back from the record (not drawn again) and sees the same frames.
    let replayed = EpisodeOptions::from_json(&record["options"], record["seed"].as_u64().unwrap()).unwrap();
    assert_eq!(replayed, options);
    let again = play(&Instance::new(template, seed, &catalog()).unwrap().with_options(replayed), "again");
    let steps = |dir: &std::path::Path| std::fs::read_to_string(dir.join("steps.jsonl")).unwrap();
    assert!(steps(&first).contains("frame_hash"));
    assert_eq!(steps(&first), steps(&again));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_oracle_solves_a_sample_under_several_profiles() {
    let mut suite = suite();
    let sample = ["clock_add_alarm", "settings_font_size", "contacts_add_contact", "bank_transfer_savings", "calendar_add_event"];
    suite.templates.retain(|t| sample.contains(&t.id.as_str()));
    assert_eq!(suite.templates.len(), 5, "the sample names templates of the suite");
    let looks: Vec<String> = ["small_phone", "dark_large", "random"].map(String::from).to_vec();
    let report = evaluate_appearances(catalog(), &suite, AgentKind::Oracle, 1, None, &looks).unwrap();
    assert_eq!(report.success_rate, 1.0, "{:#?}", report.failures);
    assert_eq!(report.by_appearance.len(), 3);
}

#[test]
fn an_unknown_appearance_is_refused_with_the_valid_names() {
    let err = EpisodeOptions::with_appearance("neon", 0).unwrap_err().to_string();
    assert!(err.contains("`neon`") && err.contains("small_phone") && err.contains("random"), "{err}");
}
