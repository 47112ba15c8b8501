//! Reconstruction of the real sample traces (two DroidBot runs and a LlamaTouch human
//! trace). They are not in the repository: the tests find them through `PHONEWORLD_TRACES`,
//! skip with a message when it is unset, and fail when it is unset under CI.

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use common::scratch;
use phoneworld_agents::Monkey;
use phoneworld_data::{LayoutModules, LuaLibrary};
use phoneworld_phone::{check_app, project_root, Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::{reconstruct, ReconOptions, Reconstruction};
use phoneworld_tasks::{evaluate, AgentKind, Suite};

fn traces_dir() -> Option<PathBuf> {
    match std::env::var_os("PHONEWORLD_TRACES") {
        Some(dir) => Some(PathBuf::from(dir)),
        None if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("PHONEWORLD_TRACES is not set; CI must point it at the sample traces")
        }
        None => {
            eprintln!("skipped: set PHONEWORLD_TRACES to the folder of the sample traces to run this test");
            None
        }
    }
}

/// Reconstructs one sample set and checks what every reconstruction must give: an app
/// `phoneworld check` accepts, tasks the oracle solves, a monkey walk without script errors.
fn reconstructed(name: &str) -> Option<Reconstruction> {
    let dir = traces_dir()?.join(name);
    assert!(dir.is_dir(), "{} is missing", dir.display());
    let out = scratch(&format!("real-{name}"));
    let r = reconstruct(&[dir], &out, &ReconOptions::default()).unwrap();
    let (modules, _) = LayoutModules::load(&[project_root().join("layouts")]);
    let problems = check_app(&out, &modules, &LuaLibrary::default());
    assert!(problems.is_empty(), "{name}: {problems:?}");
    let catalog = Catalog::load_default(std::slice::from_ref(&out)).unwrap();
    let suite = Suite::load(&out.join("verifiers").join(&r.suite), &catalog).unwrap();
    assert!(!suite.templates.is_empty(), "{name}: no tasks");
    let report = evaluate(Arc::clone(&catalog), &suite, AgentKind::Oracle, 1, None).unwrap();
    assert_eq!(report.success_rate, 1.0, "{name}: {:?}", report.failures);
    let mut device = Device::new(catalog, DeviceConfig::default()).unwrap();
    let mut monkey = Monkey::new(11, Some(r.model.package.clone()));
    for _ in 0..200 {
        let action = monkey.next_action(&mut device);
        let result = device.step(&action);
        assert!(result.script_errors.is_empty(), "{name}: {:?}", result.script_errors);
    }
    Some(r)
}

#[test]
fn droidbot_yelp() {
    let Some(r) = reconstructed("droidbot-yelp") else { return };
    assert_eq!(r.model.package, "com.yelp.android");
    assert_eq!(r.model.label, "Yelp");
    // 16 saved states make 14 screens, and 5 are known by hash: the launcher and 4 transient
    // screens.
    assert_eq!(r.model.screens.len(), 18);
    assert_eq!(r.model.screens.iter().filter(|s| s.kind == phoneworld_reconstruct::ScreenKind::HashOnly).count(), 4);
    for tab in ["bookmarks", "feed", "user_profile", "nearby", "search_businesses_by_list"] {
        assert!(r.model.screen(tab).is_some_and(|s| !s.handlers.is_empty()), "{tab}");
    }
    let f = &r.fidelity[0];
    assert_eq!(f.judged, 35);
    assert!(f.transition_accuracy >= 0.9, "{}", f.transition_accuracy);
    assert!(f.baseline.transition_accuracy < 0.2, "{}", f.baseline.transition_accuracy);
    assert!(f.element_recall >= 0.8, "{}", f.element_recall);
    // Colours, surfaces and text ink sampled from the screenshots (0.69 with container colours alone).
    assert!(f.visual_similarity.is_some_and(|v| v > 0.72), "{:?}", f.visual_similarity);
}

#[test]
fn llamatouch_human_trace() {
    let Some(r) = reconstructed("llamatouch-trace18") else { return };
    assert_eq!(r.model.package, "com.duolingo");
    assert_eq!(r.model.label, "Duolingo", "named after the launcher icon the person tapped");
    let ids: Vec<&str> = r.model.screens.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, vec!["login", "session"]);
    // Google News before the launcher is never reached from the app: dropped, and said so.
    assert_eq!(r.dropped.len(), 1);
    assert_eq!(r.dropped[0]["package"], "com.google.android.apps.magazines");
    let f = &r.fidelity[0];
    assert_eq!((f.succeeded, f.judged), (4, 4));
    assert_eq!(f.baseline.transition_accuracy, 0.25);
}

#[test]
fn droidbot_fdroid_adguard_noisy_run() {
    let Some(r) = reconstructed("droidbot-fdroid-adguard") else { return };
    assert_eq!(r.model.package, "com.adguard.android.contentblocker");
    // Firefox custom tabs opened from the app are kept as screens of the flow.
    let foreign = r.model.screens.iter().filter(|s| s.role == phoneworld_reconstruct::abstraction::Role::Foreign).count();
    assert_eq!(foreign, 3);
    // Back on the onboarding screen stays there in the run (76 times): the app keeps it.
    assert!(r.model.entry_guard);
    let f = &r.fidelity[0];
    assert_eq!(f.judged, 1000);
    // 766 of the 1000 events are self-loops: the baseline is high, the app must beat it.
    assert!(f.baseline.transition_accuracy > 0.8, "{}", f.baseline.transition_accuracy);
    assert!(f.transition_accuracy >= 0.9, "{}", f.transition_accuracy);
    assert!(
        f.transition_accuracy - f.baseline.transition_accuracy >= 0.08,
        "{} vs {}",
        f.transition_accuracy,
        f.baseline.transition_accuracy
    );
    assert!(f.screen_coverage >= 0.9, "{}", f.screen_coverage);
}

#[test]
fn droidtask_human_demonstrations_become_tasks() {
    let Some(r) = reconstructed("droidtask/voicerecorder") else { return };
    assert_eq!(r.model.package, "com.simplemobiletools.voicerecorder");
    let yaml: Vec<String> = std::fs::read_dir(traces_dir().unwrap().join("droidtask/voicerecorder"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("task") && n.ends_with(".yaml"))
        .collect();
    let demos: Vec<_> = r.tasks.iter().filter(|t| t.kind == "demonstration").collect();
    // Every demonstration is a proven task or is reported with the reason it is not.
    let reported = r.tasks_left_out.iter().filter(|t| t["trace"].as_str().is_some_and(|s| s.ends_with(".yaml"))).count()
        + r.tasks_left_out.iter().filter(|t| t["kind"] == "demonstration").count();
    assert_eq!(demos.len() + reported, yaml.len(), "{:?}", r.tasks_left_out);
    assert!(demos.len() * 2 >= yaml.len(), "{} of {} demonstrations are tasks", demos.len(), yaml.len());
    // The instruction is the person's own sentence, not a generated one.
    let text = std::fs::read_to_string(&demos[0].file).unwrap();
    assert!(!text.contains("go to the") && text.contains("skills: [\"navigation\", \"demonstration\"]"), "{text}");
    let f = &r.fidelity[0];
    assert!(f.transition_accuracy >= 0.85 && f.transition_accuracy > f.baseline.transition_accuracy + 0.3, "{f:?}");
}

/// Contacts' "text the group" demonstration: the messenger the person wrote in returned to the
/// group once the message went; the rebuilt messenger's Send closes into its thread. The task's
/// solution goes Back to the group, and its verifier checks the message sent there.
#[test]
fn a_demonstration_the_real_app_ended_by_going_back_is_a_task_with_back_presses() {
    let Some(r) = reconstructed("droidtask/contacts") else { return };
    let task = r.tasks.iter().find(|t| t.id.ends_with("task13")).unwrap_or_else(|| panic!("left out: {:?}", r.tasks_left_out));
    let text = std::fs::read_to_string(&task.file).unwrap();
    assert!(text.contains("screen: \"group_contacts\")") && text.contains("__saved\", value: \"GatheringInTheOldPlace\")"), "{text}");
    assert!(text.contains(", Back],\n)"), "{text}");
}
