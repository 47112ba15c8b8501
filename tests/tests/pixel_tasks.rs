//! Pixel tasks are solvable by looking and not by reading: the reference solution passes, while
//! an agent that plays the same solution but chooses pictures from the accessibility tree alone
//! (the tree-only agent) does no better than chance, and the target moves between seeds.
//!
//! `PIXEL_SEEDS` sets the seeds per template (default 2 for a quick run; `make pixel-sweep`
//! runs 40 and checks every template on its own).

use std::collections::BTreeMap;
use std::sync::Arc;

use phoneworld_phone::project_root;
use phoneworld_tasks::{fill, play, run_episode, AgentKind, Instance, Oracle, Step, Suite, TaskTemplate};
use phoneworld_tests::catalog;

fn seeds() -> u64 {
    std::env::var("PIXEL_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(2)
}

fn pixel_templates() -> Vec<Arc<TaskTemplate>> {
    let suite = Suite::load(&project_root().join("verifiers/phoneworld-v0"), &catalog()).expect("the bundled suite loads");
    let looks = |t: &TaskTemplate| t.solution.iter().any(|s| matches!(s, Step::TapPicture(_) | Step::PictureAnswer(..)));
    suite.templates.into_iter().filter(|t| looks(t)).collect()
}

/// Successes, and the expected successes and variance of a guesser with the same odds.
#[derive(Default)]
struct Tally {
    episodes: u64,
    wins: f64,
    expected: f64,
    variance: f64,
}

impl Tally {
    /// One-sided: more wins than chance plus three standard deviations (and one episode of
    /// slack for small samples) means the tree gives the answer away.
    fn beats_chance(&self) -> bool {
        self.wins > self.expected + 3.0 * self.variance.sqrt() + 1.0
    }
}

/// What a fixed-choice agent would memorise: the answer of a `PictureAnswer`, else the picture
/// of the first `TapPicture`, filled in.
fn target(instance: &Instance) -> String {
    let steps = &instance.template.solution;
    let answer = steps.iter().find_map(|s| match s {
        Step::PictureAnswer(text, _) => Some(text.clone()),
        _ => None,
    });
    answer
        .or_else(|| {
            steps.iter().find_map(|s| match s {
                Step::TapPicture(label) => Some(label.clone()),
                _ => None,
            })
        })
        .map(|t| fill(&t, &instance.params).expect("the target fills"))
        .unwrap_or_default()
}

#[test]
fn the_tree_only_agent_does_no_better_than_chance_on_pixel_tasks() {
    let catalog = catalog();
    let templates = pixel_templates();
    assert!(templates.len() >= 12, "{} pixel templates", templates.len());
    let apps: std::collections::BTreeSet<&str> = templates.iter().flat_map(|t| t.apps.iter().map(String::as_str)).collect();
    assert!(apps.len() >= 3, "pixel tasks span several apps: {apps:?}");
    let per_template = seeds() >= 30;
    let mut all = Tally::default();
    for template in &templates {
        let mut tally = Tally::default();
        // Instances are cheap: the target's spread is measured over 40 of them.
        let mut targets: BTreeMap<String, u64> = BTreeMap::new();
        for seed in 0..40 {
            *targets.entry(target(&Instance::new(Arc::clone(template), seed, &catalog).unwrap())).or_default() += 1;
        }
        for seed in 0..seeds() {
            let instance = Instance::new(Arc::clone(template), seed, &catalog).unwrap();
            let oracle = run_episode(Arc::clone(&catalog), &instance, AgentKind::Oracle, None).unwrap();
            assert!(oracle.success, "{} seed {seed}: the oracle fails: {:?}", template.id, oracle.failure);
            let noop = run_episode(Arc::clone(&catalog), &instance, AgentKind::Noop, None).unwrap();
            assert!(!noop.success, "{} seed {seed}: doing nothing passes", template.id);
            let mut blind = Oracle::tree_only(template.solution.clone(), instance.params.clone(), &instance.instruction, seed);
            let result = play(Arc::clone(&catalog), &instance, &mut |d| blind.next_action(d), false, None).unwrap();
            let p = blind.chance();
            assert!(p < 1.0, "{} seed {seed}: the tree singles out the picture", template.id);
            tally.episodes += 1;
            tally.wins += f64::from(u8::from(result.success));
            tally.expected += p;
            tally.variance += p * (1.0 - p);
        }
        // A fixed-choice agent that always picks the most common target stays near chance.
        let most = targets.values().copied().max().unwrap_or(0) as f64 / 40.0;
        assert!(targets.len() >= 2 && most <= 0.6, "{}: the target barely varies: {targets:?}", template.id);
        if per_template {
            assert!(
                !tally.beats_chance(),
                "{}: tree-only wins {} of {} episodes, chance {:.1}",
                template.id,
                tally.wins,
                tally.episodes,
                tally.expected
            );
        }
        eprintln!("{:<36} tree-only {:>3}/{:<3} chance {:>5.1}", template.id, tally.wins, tally.episodes, tally.expected);
        all.episodes += tally.episodes;
        all.wins += tally.wins;
        all.expected += tally.expected;
        all.variance += tally.variance;
    }
    assert!(!all.beats_chance(), "tree-only wins {} of {} episodes, chance {:.1}", all.wins, all.episodes, all.expected);
}

/// Every look a pixel template writes in setup is one of the photo's variants in Gallery's
/// content, and the colour the instruction names is the one that variant shows: regenerated
/// pictures cannot silently make an instruction wrong.
#[test]
fn pixel_templates_describe_the_variants_the_gallery_has() {
    let catalog = catalog();
    let photos =
        catalog.get("com.phoneworld.gallery").expect("Gallery is installed").content["photos"].as_array().cloned().unwrap_or_default();
    let mut checked = 0;
    for template in pixel_templates() {
        for seed in 0..40 {
            let instance = Instance::new(Arc::clone(&template), seed, &catalog).unwrap();
            let Some(t) = instance.params.get("t") else { continue };
            let Some(look) = t.get("look") else { continue };
            checked += 1;
            let photo = photos.iter().find(|p| p["id"] == look["id"]).unwrap_or_else(|| panic!("{}: no photo {}", template.id, look["id"]));
            let variants = photo["variants"].as_array().cloned().unwrap_or_else(|| vec![photo.clone()]);
            let variant = variants
                .iter()
                .find(|v| v["photo"] == look["photo"])
                .unwrap_or_else(|| panic!("{}: {} is none of photo {}'s pictures", template.id, look["photo"], look["id"]));
            assert_eq!(variant["colors"], look["colors"], "{}: {}", template.id, look["photo"]);
            assert_eq!(variant["shows"], look["shows"], "{}: {}", template.id, look["photo"]);
            if let Some(color) = t.get("color").and_then(|c| c.as_str()) {
                assert_eq!(look["colors"][0].as_str(), Some(color), "{}: {}", template.id, look["photo"]);
                assert_eq!(t["id"], look["id"], "{}", template.id);
            }
        }
    }
    assert!(checked >= 12 * 40, "only {checked} looks checked");
}
