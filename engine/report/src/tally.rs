//! Counting a run's episodes by what they share: category, app, difficulty, skill, appearance,
//! steps taken, and why they failed.

use std::collections::BTreeMap;

use phoneworld_tasks::EpisodeSummary;

/// Episodes of one group and how many passed.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    pub name: String,
    pub episodes: usize,
    pub passed: usize,
}

impl Tally {
    pub fn rate(&self) -> f64 {
        if self.episodes == 0 {
            0.0
        } else {
            self.passed as f64 / self.episodes as f64
        }
    }
}

/// Groups episodes by the names `key` gives each (an episode of two apps counts for both),
/// in name order, or in `rank`'s order for names it knows.
pub(crate) fn tally_by(results: &[EpisodeSummary], key: impl Fn(&EpisodeSummary) -> Vec<String>, rank: &[&str]) -> Vec<Tally> {
    let mut groups: BTreeMap<(usize, String), (usize, usize)> = BTreeMap::new();
    for entry in results {
        for name in key(entry) {
            let order = rank.iter().position(|r| *r == name).unwrap_or(rank.len());
            let counts = groups.entry((order, name)).or_default();
            counts.0 += 1;
            counts.1 += usize::from(entry.success);
        }
    }
    groups.into_iter().map(|((_, name), (episodes, passed))| Tally { name, episodes, passed }).collect()
}

/// The kind of a verifier's failure reason, without the instance's values: what a chart of
/// failure reasons groups by.
pub fn failure_kind(reason: &str) -> String {
    if let Some(rest) = reason.strip_prefix("success[") {
        // "success[0] does not hold: Exists { app: ..." -> "check Exists does not hold"
        if let Some((_, check)) = rest.split_once("does not hold: ") {
            let kind: String = check.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            return format!("check {kind} does not hold");
        }
        return "a check could not be evaluated".into();
    }
    if reason.starts_with("changed app data the task does not allow") {
        return "changed data the task does not allow".into();
    }
    if reason.starts_with("step budget") {
        return "step budget ran out".into();
    }
    if reason.starts_with("script error") {
        return "an app script failed".into();
    }
    // Anything else: its lead, up to the first colon, is the kind.
    let lead = reason.split(':').next().unwrap_or(reason).trim();
    lead.chars().take(60).collect()
}

/// Failed episodes per failure kind, most common first.
pub(crate) fn failure_kinds(results: &[EpisodeSummary]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for failure in results.iter().filter(|r| !r.success) {
        let kind = failure.failure.as_ref().map_or_else(|| "no reason given".to_owned(), |f| failure_kind(&f.reason));
        *counts.entry(kind).or_default() += 1;
    }
    let mut kinds: Vec<(String, usize)> = counts.into_iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    kinds
}

/// For each number of steps from 0 to the most any episode took: (passed, failed) episodes.
pub(crate) fn steps_histogram(results: &[EpisodeSummary]) -> Vec<(usize, usize)> {
    let most = results.iter().map(|r| r.steps as usize).max().unwrap_or(0);
    let mut bins = vec![(0, 0); most + 1];
    for entry in results {
        let bin = &mut bins[entry.steps as usize];
        if entry.success {
            bin.0 += 1;
        } else {
            bin.1 += 1;
        }
    }
    bins
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_reasons_group_by_what_failed_not_by_the_instance_values() {
        let exists = r#"success[0] does not hold: Exists { app: "com.phoneworld.clock", path: "alarms" }"#;
        assert_eq!(failure_kind(exists), "check Exists does not hold");
        assert_eq!(failure_kind(r#"success[1] does not hold: Answer("{amount|money}")"#), "check Answer does not hold");
        assert_eq!(failure_kind("changed app data the task does not allow: com.x:notes"), "changed data the task does not allow");
        assert_eq!(failure_kind("step budget of 30 ran out"), "step budget ran out");
        assert_eq!(failure_kind("agent error: timed out"), "agent error");
    }
}
