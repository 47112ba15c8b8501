//! Tasks stay solvable when interrupted: the oracle answers each interruption from the screen
//! and goes on, and whatever the answer (a permission granted, Battery Saver on, an update),
//! the verifier sees no collateral damage. A handful of templates; `make
//! verify-interruptions` sweeps the whole suite.

use std::sync::Arc;

use phoneworld_data::Action;
use phoneworld_phone::{project_root, Device, EpisodeOptions, InterruptionKind, InterruptionSetting};
use phoneworld_tasks::{episode_record, evaluate_with, play, run_episode, AgentKind, Instance, Oracle, Suite};
use phoneworld_tests::catalog;

const TEMPLATES: [&str; 4] = ["clock_add_alarm", "contacts_add_contact", "cross_maps_address_sms", "cross_email_copy_body_sms"];

fn suite() -> Suite {
    Suite::load(&project_root().join("verifiers/phoneworld-v0"), &catalog()).expect("the bundled suite loads")
}

fn instance(suite: &Suite, id: &str, seed: u64, setting: &str) -> Instance {
    let template = Arc::clone(suite.get(id).expect("template"));
    Instance::new(template, seed, &catalog()).unwrap().with_interruptions(InterruptionSetting::parse(setting).unwrap())
}

#[test]
fn the_oracle_answers_every_kind_from_step_one_and_solves_the_task() {
    let suite = suite();
    for id in TEMPLATES {
        let instance = instance(&suite, id, 1, "permission@1,notification@2,low_battery@3,app_update@5,rate_app@6");
        let mut device = instance.device(catalog()).unwrap();
        let mut oracle = Oracle::new(instance.template.solution.clone(), instance.params.clone());
        let mut next = |d: &mut Device| oracle.next_action(d);
        let result = play(catalog(), &instance, &mut next, true, None).unwrap();
        assert!(result.success, "{id}: {:?}", result.failure);
        assert!(result.collateral.is_empty(), "{id}: {:?}", result.collateral);
        // Replaying the oracle by hand shows what arrived and how it was answered.
        let mut oracle = Oracle::new(instance.template.solution.clone(), instance.params.clone());
        while let Ok(Some(action)) = oracle.next_action(&mut device) {
            device.step(&action);
        }
        let log = &device.store().session.interruptions.log;
        let kinds: Vec<InterruptionKind> = log.iter().map(|l| l.kind).collect();
        assert!(kinds.contains(&InterruptionKind::LowBattery) && kinds.contains(&InterruptionKind::Notification), "{id}: {log:?}");
        assert!(log.iter().any(|l| l.choice == "dismissed"), "{id}: the low-battery dialog was dismissed: {log:?}");
        assert!(device.store().session.interruptions.shown.is_none(), "{id}: nothing left on screen");
    }
}

#[test]
fn seeded_interruptions_keep_oracle_at_one_and_noop_at_zero() {
    let suite = suite();
    for id in TEMPLATES {
        for seed in 0..3 {
            let instance = instance(&suite, id, seed, "on");
            assert!(!instance.interruption_plan().is_empty());
            let oracle = run_episode(catalog(), &instance, AgentKind::Oracle, None).unwrap();
            assert!(oracle.success, "{id} seed {seed}: {:?}", oracle.failure);
            let noop = run_episode(catalog(), &instance, AgentKind::Noop, None).unwrap();
            assert!(!noop.success, "{id} seed {seed}");
        }
    }
}

/// An agent that says yes to every dialog (grants, Battery Saver, the update, five stars) is
/// judged on the task alone: those answers are system state, not app data.
#[test]
fn saying_yes_to_every_interruption_is_not_collateral_damage() {
    let suite = suite();
    const YES: [&str; 5] = ["While using the app", "Allow", "Battery Saver", "Update", "Rate 5 stars"];
    const DIALOGS: [&str; 3] = ["com.android.permissioncontroller:", "com.android.vending:", "com.android.systemui:id/low_battery_dialog"];
    for id in TEMPLATES {
        let instance = instance(&suite, id, 2, "permission@1,low_battery@2,app_update@3,rate_app@4,notification@5");
        let mut oracle = Oracle::new(instance.template.solution.clone(), instance.params.clone());
        let mut next = |d: &mut Device| {
            let elements = d.ui_elements();
            let dialog = elements.iter().any(|e| DIALOGS.iter().any(|p| e.resource_id.as_deref().is_some_and(|r| r.starts_with(p))));
            let yes =
                elements.iter().find(|e| YES.iter().any(|y| e.text.as_deref() == Some(*y) || e.content_description.as_deref() == Some(*y)));
            match yes.filter(|_| dialog) {
                Some(e) => {
                    let b = e.bbox_pixels.unwrap();
                    Ok(Some(Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 }))
                }
                None => oracle.next_action(d),
            }
        };
        let result = play(catalog(), &instance, &mut next, true, None).unwrap();
        assert!(result.success, "{id}: {:?}", result.failure);
        assert!(result.collateral.is_empty(), "{id}: {:?}", result.collateral);
    }
}

#[test]
fn episode_json_records_the_setting_and_its_plan() {
    let suite = suite();
    let instance = instance(&suite, "clock_add_alarm", 4, "on");
    let result = run_episode(catalog(), &instance, AgentKind::Oracle, None).unwrap();
    let record = episode_record(&suite, &catalog().hash, &instance, &result, (1080, 2400, 420));
    assert_eq!(record["interruptions"]["setting"], "on");
    let plan: Vec<phoneworld_phone::Planned> = serde_json::from_value(record["interruptions"]["plan"].clone()).unwrap();
    assert_eq!(plan, instance.interruption_plan());
    // Off records nothing, so episodes without interruptions keep their old episode.json.
    let plain = instance.clone().with_interruptions(InterruptionSetting::Off);
    assert!(episode_record(&suite, &catalog().hash, &plain, &result, (1080, 2400, 420)).get("interruptions").is_none());
}

#[test]
fn interruptions_travel_in_the_episode_options_next_to_the_appearance() {
    let suite = suite();
    let options = EpisodeOptions::with_appearance("dark", 4).unwrap().with_interruptions(InterruptionSetting::On);
    let instance = instance(&suite, "clock_add_alarm", 4, "off").with_options(options.clone());
    assert!(!instance.interruption_plan().is_empty());
    let result = run_episode(catalog(), &instance, AgentKind::Oracle, None).unwrap();
    assert!(result.success, "{:?}", result.failure);
    let record = episode_record(&suite, &catalog().hash, &instance, &result, (1080, 2400, 420));
    assert_eq!(record["options"]["interruptions"], "on");
    assert_eq!(record["options"]["appearance"]["name"], "dark");
    assert_eq!(record["interruptions"]["setting"], "on");
    // The recorded options replay the same look and the same interruptions.
    assert_eq!(EpisodeOptions::from_json(&record["options"], 999).unwrap(), options);

    // eval with an appearance and interruptions together reports per appearance.
    let mut sample = suite.clone();
    sample.templates.retain(|t| t.id == "clock_add_alarm" || t.id == "contacts_add_contact");
    let looks: Vec<String> = ["dark", "small_phone"].map(String::from).to_vec();
    let report = evaluate_with(catalog(), &sample, AgentKind::Oracle, 1, None, &looks, &InterruptionSetting::On).unwrap();
    assert_eq!(report.success_rate, 1.0, "{:#?}", report.failures);
    assert_eq!(report.by_appearance.len(), 2);
}

/// Training data with the variations: `rollouts --appearance dark_large --interruptions on`
/// keeps verified episodes whose `episode.json` says the look, the screen and the plan.
#[test]
fn rollouts_record_the_look_and_the_interruptions() {
    let full = suite();
    let suite = Suite { name: "one".into(), templates: vec![Arc::clone(full.get("clock_add_alarm").unwrap())], hash: full.hash.clone() };
    let out = std::env::temp_dir().join(format!("phoneworld-rollouts-look-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let spec = phoneworld_tasks::RolloutSpec {
        seeds: 2,
        detours: 0.0,
        images: phoneworld_agents::ImageOptions { format: phoneworld_agents::ImageFormat::Png, size: Some((90, 200)), xml: false },
        appearance: Some("dark_large".into()),
        interruptions: InterruptionSetting::parse("on").unwrap(),
    };
    let manifest = phoneworld_tasks::rollouts(catalog(), &suite, &out, &spec).unwrap();
    assert_eq!(manifest["episodes"], 2, "{manifest}");
    for seed in 0..2 {
        let text = std::fs::read_to_string(out.join(format!("clock_add_alarm-{seed}/episode.json"))).unwrap();
        let episode: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(episode["options"]["appearance"]["name"], "dark_large", "{episode}");
        assert_eq!(episode["device"]["density"], 480, "{episode}");
        assert!(!episode["interruptions"]["plan"].as_array().unwrap().is_empty(), "{episode}");
        assert_eq!(episode["outcome"]["success"], true);
    }
    let _ = std::fs::remove_dir_all(&out);
}
