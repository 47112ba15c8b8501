//! The task template format: `verifiers/<suite>/<id>.ron`. See docs/task-format.md.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Category {
    App,
    MiniApp,
    CrossApp,
}

impl TryFrom<String> for Category {
    type Error = String;
    fn try_from(name: String) -> Result<Self, Self::Error> {
        Ok(match name.as_str() {
            "app" => Category::App,
            "mini_app" => Category::MiniApp,
            "cross_app" => Category::CrossApp,
            other => return Err(format!("category `{other}`: expected app, mini_app or cross_app")),
        })
    }
}

impl Category {
    pub fn name(self) -> &'static str {
        match self {
            Category::App => "app",
            Category::MiniApp => "mini_app",
            Category::CrossApp => "cross_app",
        }
    }
}

/// How a parameter is drawn from the seed.
#[derive(Debug, Clone, Deserialize)]
pub enum ParamGen {
    /// An integer in `[min, max]`.
    Range(i64, i64),
    /// One of the values.
    Choice(Vec<Value>),
    /// A field of one element of an app's content or initial state list:
    /// `Pick(app: "...", list: "contacts", field: "name")`.
    Pick {
        app: String,
        list: String,
        #[serde(default)]
        field: Option<String>,
    },
}

/// A change applied to the phone before the episode starts. Strings are templates over the
/// parameters (`"{label}"`).
#[derive(Debug, Clone, Deserialize)]
pub enum Setup {
    /// Sets app data at a dotted path (`app: "system"` for system settings).
    Set { app: String, path: String, value: Value },
    /// Inserts into a list of app data (`at` a position counted from 1, as in paths; default: the end).
    Insert {
        app: String,
        path: String,
        value: Value,
        #[serde(default)]
        at: Option<usize>,
    },
    /// Starts the episode with this app open (optionally at a screen).
    Open {
        app: String,
        #[serde(default)]
        screen: Option<String>,
        #[serde(default)]
        params: Value,
    },
    /// Puts text on the clipboard.
    Clipboard(String),
}

/// A condition on the phone after the episode.
#[derive(Debug, Clone, Deserialize)]
pub enum Check {
    /// A list in app data has an element whose fields match.
    Exists { app: String, path: String, fields: BTreeMap<String, Value> },
    /// No element of the list matches.
    Absent { app: String, path: String, fields: BTreeMap<String, Value> },
    /// App data at the path equals the value (normalized).
    Equals { app: String, path: String, value: Value },
    /// The text at the path contains the value (normalized).
    Contains { app: String, path: String, text: String },
    /// A list has this many elements (optionally only those matching `fields`).
    Count {
        app: String,
        path: String,
        #[serde(default)]
        fields: BTreeMap<String, Value>,
        equals: usize,
    },
    /// The agent answered this (normalized: case, whitespace, numbers, dates).
    Answer(String),
    /// The agent finished with this status (`success` or `infeasible`).
    Finished(String),
    /// This app (and screen) is in the foreground. UI-observable.
    Screen {
        app: String,
        #[serde(default)]
        screen: Option<String>,
    },
    /// All of these.
    All(Vec<Check>),
    /// Any of these.
    Any(Vec<Check>),
    /// Not this.
    Not(Box<Check>),
}

/// One step of a reference solution, resolved on the current screen.
#[derive(Debug, Clone, Deserialize)]
pub enum Step {
    /// Opens an app by label or package.
    Open(String),
    /// Taps the element with this text, content description or resource id.
    Tap(String),
    /// Long-presses the element.
    LongPress(String),
    /// Taps a text field (by text, hint or id) and types into it, replacing its text.
    Fill(String, String),
    /// Types into the focused field.
    Type(String),
    /// Swipes up until the element is on screen, then taps it.
    ScrollTap(String),
    /// Swipes up until the element is on screen.
    ScrollTo(String),
    /// Chooses a picture by what it shows: swipes until the element (a resource id such as
    /// `photo_{p.id}`) is on screen, then taps it. The oracle plays it as `ScrollTap`; the
    /// tree-only agent taps one of the pictures the tree cannot tell apart instead.
    TapPicture(String),
    /// Answers with what a picture shows (`text`), one of `options` (the tree-only agent
    /// answers one of them without looking).
    PictureAnswer(String, Vec<String>),
    Back,
    Home,
    Enter,
    Wait(u64),
    Answer(String),
    Finish(String),
}

/// A sub-goal: partial progress for shaped rewards.
#[derive(Debug, Clone, Deserialize)]
pub struct SubGoal {
    pub name: String,
    pub check: Check,
}

/// A parameterized task with its verifier and reference solution.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename = "Task", deny_unknown_fields)]
pub struct TaskTemplate {
    pub id: String,
    pub category: Category,
    pub apps: Vec<String>,
    #[serde(default = "default_difficulty")]
    pub difficulty: String,
    #[serde(default = "default_max_steps")]
    pub max_steps: u32,
    #[serde(default)]
    pub skills: Vec<String>,
    pub instruction: String,
    #[serde(default)]
    pub params: BTreeMap<String, ParamGen>,
    /// Values computed from the parameters: `"{hour * 60 + minute}"`, `"{hour|pad2}:{minute|pad2}"`.
    #[serde(default)]
    pub derived: BTreeMap<String, String>,
    #[serde(default)]
    pub setup: Vec<Setup>,
    pub success: Vec<Check>,
    /// App data the task may change: `"<package>:<path prefix>"` or `"system:<key>"`.
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub subgoals: Vec<SubGoal>,
    pub solution: Vec<Step>,
}

fn default_difficulty() -> String {
    "medium".to_owned()
}

fn default_max_steps() -> u32 {
    30
}
