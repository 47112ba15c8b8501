//! Loading an app bundle (a folder under `apps/`) and the shared layout modules (`layouts/`).

use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

use serde::Deserialize;

use crate::manifest::Manifest;
use crate::node::Node;
use crate::ron_util::{read_text, read_value};
use crate::DataError;

/// One screen of an app: `screens/<id>.ron`.
#[derive(Debug, Clone)]
pub struct Screen {
    pub id: String,
    pub title: String,
    pub on_enter: Option<String>,
    pub root: Node,
    /// Where it was read from and its text, so later checks can point at a line.
    pub file: PathBuf,
    pub source: String,
}

#[derive(Deserialize)]
#[serde(rename = "Screen", deny_unknown_fields)]
struct RawScreen {
    #[serde(default)]
    title: String,
    #[serde(default)]
    on_enter: Option<String>,
    root: Node,
}

/// A reusable layout: `layouts/<name>.ron`, used as `Use(module: "<name>", args: {...})`.
#[derive(Debug, Clone)]
pub struct LayoutModule {
    pub name: String,
    pub params: Vec<String>,
    pub root: Node,
    pub file: PathBuf,
    pub source: String,
}

#[derive(Deserialize)]
#[serde(rename = "Module", deny_unknown_fields)]
struct RawModule {
    #[serde(default)]
    params: Vec<String>,
    root: Node,
}

/// All layout modules by name.
#[derive(Debug, Clone, Default)]
pub struct LayoutModules {
    pub modules: BTreeMap<String, LayoutModule>,
}

impl LayoutModules {
    /// Loads every `*.ron` of the folders, later folders overriding earlier ones. Returns the
    /// modules that loaded and the errors of those that did not.
    pub fn load(dirs: &[PathBuf]) -> (LayoutModules, Vec<DataError>) {
        let mut out = LayoutModules::default();
        let mut errors = Vec::new();
        for dir in dirs {
            for file in ron_files(dir) {
                let name = stem(&file);
                let loaded = read_text(&file).and_then(|source| {
                    let raw: RawModule = crate::ron_util::parse_ron(&file, &source)?;
                    Ok(LayoutModule { name: name.clone(), params: raw.params, root: raw.root, file: file.clone(), source })
                });
                match loaded {
                    Ok(module) => {
                        out.modules.insert(name, module);
                    }
                    Err(err) => errors.push(err),
                }
            }
        }
        (out, errors)
    }

    pub fn get(&self, name: &str) -> Option<&LayoutModule> {
        self.modules.get(name)
    }

    /// A hash over every module file, for cache keys and suite hashes.
    pub fn hash(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        for module in self.modules.values() {
            hasher.update(module.name.as_bytes());
            hasher.update(&[0]);
            hasher.update(module.source.as_bytes());
        }
        hasher.finalize().to_hex().to_string()
    }
}

/// One Lua file of an app.
#[derive(Debug, Clone)]
pub struct ScriptSource {
    /// Path relative to the app folder, e.g. `main.lua`.
    pub name: String,
    pub file: PathBuf,
    pub source: String,
}

/// An app: manifest, screens, scripts and read-only content.
#[derive(Debug, Clone)]
pub struct AppBundle {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub screens: BTreeMap<String, Screen>,
    pub scripts: Vec<ScriptSource>,
    /// Read-only content, one entry per manifest `content` name.
    pub content: serde_json::Value,
    /// blake3 over every file the bundle read.
    pub hash: String,
}

impl AppBundle {
    /// Loads a bundle, stopping at the first problem.
    pub fn load(dir: &FsPath) -> Result<AppBundle, DataError> {
        let (bundle, mut errors) = AppBundle::load_all(dir);
        match bundle {
            Some(bundle) if errors.is_empty() => Ok(bundle),
            _ => Err(errors.remove(0)),
        }
    }

    /// Loads a bundle and collects every problem instead of stopping at the first.
    pub fn load_all(dir: &FsPath) -> (Option<AppBundle>, Vec<DataError>) {
        let mut errors = Vec::new();
        let mut hasher = blake3::Hasher::new();
        let manifest_path = dir.join("app.ron");
        let manifest: Manifest = match read_text(&manifest_path).and_then(|text| {
            hasher.update(text.as_bytes());
            crate::ron_util::parse_ron(&manifest_path, &text)
        }) {
            Ok(m) => m,
            Err(err) => return (None, vec![err]),
        };

        let mut screens = BTreeMap::new();
        for file in ron_files(&dir.join("screens")) {
            let id = stem(&file);
            match read_text(&file).and_then(|source| {
                hasher.update(id.as_bytes());
                hasher.update(source.as_bytes());
                let raw: RawScreen = crate::ron_util::parse_ron(&file, &source)?;
                Ok(Screen { id: id.clone(), title: raw.title, on_enter: raw.on_enter, root: raw.root, file: file.clone(), source })
            }) {
                Ok(screen) => {
                    screens.insert(id, screen);
                }
                Err(err) => errors.push(err),
            }
        }
        if screens.is_empty() && errors.is_empty() {
            errors.push(DataError::Invalid {
                path: dir.join("screens"),
                field: "screens".into(),
                message: "an app needs at least one screen in screens/*.ron".into(),
            });
        }
        if !screens.contains_key(&manifest.entry) && errors.is_empty() {
            errors.push(DataError::Invalid {
                path: manifest_path.clone(),
                field: "entry".into(),
                message: format!("no screen `{}` (screens: {})", manifest.entry, keys(&screens)),
            });
        }
        for (uri, screen) in &manifest.deep_links {
            if !screens.contains_key(screen) && errors.is_empty() {
                errors.push(DataError::Invalid {
                    path: manifest_path.clone(),
                    field: format!("deep_links.\"{uri}\""),
                    message: format!("no screen `{screen}`"),
                });
            }
        }

        let mut scripts = Vec::new();
        for name in &manifest.scripts {
            let file = dir.join(name);
            match read_text(&file) {
                Ok(source) => {
                    hasher.update(name.as_bytes());
                    hasher.update(source.as_bytes());
                    scripts.push(ScriptSource { name: name.clone(), file, source });
                }
                Err(err) => errors.push(err),
            }
        }

        let mut content = serde_json::Map::new();
        for (name, rel) in &manifest.content {
            let file = dir.join(rel);
            match read_value(&file) {
                Ok(value) => {
                    hasher.update(name.as_bytes());
                    hasher.update(value.to_string().as_bytes());
                    content.insert(name.clone(), value);
                }
                Err(err) => errors.push(err),
            }
        }

        let bundle = AppBundle {
            dir: dir.to_path_buf(),
            manifest,
            screens,
            scripts,
            content: serde_json::Value::Object(content),
            hash: hasher.finalize().to_hex().to_string(),
        };
        (Some(bundle), errors)
    }

    /// The app's initial data as one JSON object.
    pub fn initial_state(&self) -> serde_json::Value {
        serde_json::Value::Object(self.manifest.state.clone().into_iter().collect())
    }
}

/// Line (1-based) of the first occurrence of `needle` in `source`, for pointing at a name.
pub fn line_of(source: &str, needle: &str) -> Option<usize> {
    source.lines().position(|line| line.contains(needle)).map(|i| i + 1)
}

fn keys<V>(map: &BTreeMap<String, V>) -> String {
    map.keys().cloned().collect::<Vec<_>>().join(", ")
}

fn stem(file: &FsPath) -> String {
    file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The `*.ron` files of a folder, sorted by name so loading order never depends on the OS.
fn ron_files(dir: &FsPath) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "ron")).collect())
        .unwrap_or_default();
    files.sort();
    files
}
