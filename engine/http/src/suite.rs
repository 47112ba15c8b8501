//! Task families and suites as upstream draws them: `reinitialize(n, seed, family)` gives each
//! task of the family `n` instances, instance `i` of task `name` seeded with
//! `int(sha256(f"{seed}_{name}_{i}")) % 2**32`. Instances are made when asked for, so a huge `n`
//! costs nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use phoneworld_phone::Catalog;
use phoneworld_tasks::{Instance, Step, Suite, TaskError, TaskTemplate};
use sha2::{Digest, Sha256};

/// The family that serves the PhoneWorld suite the server was started with.
pub const ANDROID_WORLD: &str = "android_world";
/// The family of the templates that end with an answer.
pub const INFORMATION_RETRIEVAL: &str = "information_retrieval";

/// Every family a server can draw from: `android_world` (the suite it serves),
/// `information_retrieval` (that suite's answering templates), and each suite of the suite
/// folders under its own name.
#[derive(Debug)]
pub struct Families {
    main: Suite,
    suites: BTreeMap<String, Suite>,
}

impl Families {
    /// Loads `main` and every other suite found in `suite_dirs` (a broken other suite is left
    /// out; the main one must load).
    pub fn load(main: &str, suite_dirs: &[PathBuf], catalog: &Catalog) -> Result<Families, TaskError> {
        let main = Suite::find(main, suite_dirs, catalog)?;
        let mut suites = BTreeMap::new();
        for dir in suite_dirs {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if entry.path().is_dir() && !suites.contains_key(&name) && name != main.name {
                    if let Ok(suite) = Suite::load(&entry.path(), catalog) {
                        suites.insert(name, suite);
                    }
                }
            }
        }
        Ok(Families { main, suites })
    }

    pub fn main(&self) -> &Suite {
        &self.main
    }

    /// The family's templates, or `None` for an unknown family.
    pub fn templates(&self, family: &str) -> Option<Vec<Arc<TaskTemplate>>> {
        match family {
            ANDROID_WORLD => Some(self.main.templates.clone()),
            INFORMATION_RETRIEVAL => Some(self.main.templates.iter().filter(|t| answers(t)).cloned().collect()),
            name if name == self.main.name => Some(self.main.templates.clone()),
            name => self.suites.get(name).map(|s| s.templates.clone()),
        }
    }
}

/// Does the template's solution answer (an information-retrieval task)?
fn answers(template: &TaskTemplate) -> bool {
    template.solution.iter().any(|s| matches!(s, Step::Answer(_) | Step::PictureAnswer(..)))
}

/// Upstream's instance seed.
pub fn instance_seed(seed: i128, name: &str, instance: u64) -> u32 {
    let digest = Sha256::digest(format!("{seed}_{name}_{instance}").as_bytes());
    // The value mod 2^32 is its last four bytes, big-endian.
    u32::from_be_bytes([digest[28], digest[29], digest[30], digest[31]])
}

/// One drawn suite: which templates, how many instances each, from which seed.
#[derive(Debug, Clone)]
pub struct Draw {
    templates: Vec<Arc<TaskTemplate>>,
    combinations: u64,
    seed: i128,
}

impl Draw {
    pub fn new(templates: Vec<Arc<TaskTemplate>>, combinations: i128, seed: i128) -> Draw {
        Draw { templates, combinations: u64::try_from(combinations.max(0)).unwrap_or(u64::MAX), seed }
    }

    pub fn names(&self) -> Vec<String> {
        self.templates.iter().map(|t| t.id.clone()).collect()
    }

    fn template(&self, name: &str) -> Option<&Arc<TaskTemplate>> {
        self.templates.iter().find(|t| t.id == name)
    }

    /// How many instances task `name` has (`None`: no such task).
    pub fn length(&self, name: &str) -> Option<u64> {
        self.template(name).map(|_| self.combinations)
    }

    /// Instance `index` of task `name` (negative indexes count from the end, as in Python).
    pub fn instance(&self, name: &str, index: i128, catalog: &Catalog) -> Result<Instance, DrawError> {
        let template = self.template(name).ok_or_else(|| DrawError::NoTask(name.to_owned()))?;
        let n = i128::from(self.combinations);
        let i = if index < 0 { index + n } else { index };
        if !(0..n).contains(&i) {
            return Err(DrawError::NoIndex { task: name.to_owned(), index, length: self.combinations });
        }
        let seed = instance_seed(self.seed, name, i as u64);
        Instance::new(Arc::clone(template), u64::from(seed), catalog).map_err(DrawError::Task)
    }

    /// Where instance `index` of `name` is in the list (the key of an initialized task).
    pub fn position(&self, index: i128) -> u64 {
        let n = i128::from(self.combinations);
        (if index < 0 { index + n } else { index }) as u64
    }
}

/// Why a task instance could not be had (upstream: a `KeyError` or `IndexError`, a 500).
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error("no task `{0}` in the suite")]
    NoTask(String),
    #[error("task `{task}` has {length} instances; index {index} is out of range")]
    NoIndex { task: String, index: i128, length: u64 },
    #[error(transparent)]
    Task(TaskError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_follow_upstreams_formula() {
        // Python: int(hashlib.sha256(b"42_ContactsAddContact_0").hexdigest(), 16) % 2**32
        assert_eq!(instance_seed(42, "ContactsAddContact", 0), 2_918_885_403);
        assert_eq!(instance_seed(42, "ContactsAddContact", 1), 337_716_731);
        assert_eq!(instance_seed(7, "clock.set_alarm", 0), 751_900_269);
    }
}
