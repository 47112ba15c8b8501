//! Loading an app bundle (a folder under `apps/`) and the shared layout modules (`layouts/`).

use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

use serde::Deserialize;

use crate::confine::Source;
use crate::files::read_bounded;
use crate::manifest::Manifest;
use crate::node::Node;
use crate::ron_util::read_value;
use crate::DataError;

/// One screen of an app: `screens/<id>.ron`.
#[derive(Debug, Clone)]
pub struct Screen {
    pub id: String,
    pub title: String,
    pub on_enter: Option<String>,
    /// The screen's view function: a handler that derives what the screen shows (`vm.*` in
    /// its layout) from the data each time the screen is drawn; it may only read.
    pub view: Option<String>,
    pub root: Node,
    /// The colours the screen gives the phone's system bars.
    pub system_bars: SystemBars,
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
    #[serde(default)]
    view: Option<String>,
    #[serde(default)]
    system_bars: SystemBars,
    root: Node,
}

/// The colours (`#RRGGBB`) a screen paints the phone's status and navigation bars, as an
/// Android app sets its window's bar colours; a bar left out keeps the theme's. The bar's
/// icons and text turn light or dark to read on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemBars {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub navigation: Option<String>,
}

impl SystemBars {
    /// Refuses a bar colour that is not `#RRGGBB`, naming the file and the field.
    fn check(&self, file: &FsPath) -> Result<(), DataError> {
        for (field, colour) in [("system_bars.status", &self.status), ("system_bars.navigation", &self.navigation)] {
            if let Some(c) = colour {
                let hex = c.strip_prefix('#').unwrap_or("");
                if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(DataError::Invalid {
                        path: file.to_path_buf(),
                        field: field.into(),
                        message: format!("{c:?} is not a colour of the form \"#RRGGBB\""),
                    });
                }
            }
        }
        Ok(())
    }
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
    /// modules that loaded and the errors of those that did not. A module file that is a
    /// symlink leading out of its folder is refused.
    pub fn load(dirs: &[PathBuf]) -> (LayoutModules, Vec<DataError>) {
        let mut out = LayoutModules::default();
        let mut errors = Vec::new();
        for dir in dirs {
            // A missing folder has no modules.
            if let Ok(source) = Source::dir(dir) {
                out.add_all(&source, &mut errors);
            }
        }
        (out, errors)
    }

    /// Loads modules from memory: file name (`two_line.ron`) → text. Never panics, whatever
    /// the text (an entry point for fuzzing).
    pub fn from_memory(files: &BTreeMap<String, String>) -> (LayoutModules, Vec<DataError>) {
        let mut out = LayoutModules::default();
        let mut errors = Vec::new();
        out.add_all(&Source::Memory { dir: FsPath::new("layouts"), files }, &mut errors);
        (out, errors)
    }

    fn add_all(&mut self, source: &Source<'_>, errors: &mut Vec<DataError>) {
        let files = source.ron_files("").unwrap_or_else(|err| {
            errors.push(err);
            Vec::new()
        });
        for rel in files {
            let file = source.base().join(&rel);
            let name = stem(&file);
            let loaded = source.read_listed(&rel).and_then(|source| {
                let raw: RawModule = crate::ron_util::parse_ron(&file, &source)?;
                Ok(LayoutModule { name: name.clone(), params: raw.params, root: raw.root, file: file.clone(), source })
            });
            match loaded {
                Ok(module) => {
                    self.modules.insert(name, module);
                }
                Err(err) => errors.push(err),
            }
        }
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
    /// Loaded from memory (tests, fuzzing): there are no asset files to read.
    pub in_memory: bool,
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

    /// Loads a bundle and collects every problem instead of stopping at the first. Every file
    /// it reads stays inside `dir` (symlinks followed) and is bounded in size.
    pub fn load_all(dir: &FsPath) -> (Option<AppBundle>, Vec<DataError>) {
        match Source::dir(dir) {
            Ok(source) => AppBundle::load_from(&source),
            Err(err) => (None, vec![err]),
        }
    }

    /// Loads a bundle from memory: path inside the bundle (`app.ron`, `screens/main.ron`,
    /// `main.lua`) → text; `dir` only names the files in errors. Never panics, whatever the
    /// files hold (an entry point for fuzzing).
    pub fn from_memory(dir: &FsPath, files: &BTreeMap<String, String>) -> (Option<AppBundle>, Vec<DataError>) {
        AppBundle::load_from(&Source::Memory { dir, files })
    }

    fn load_from(source: &Source<'_>) -> (Option<AppBundle>, Vec<DataError>) {
        let dir = source.base();
        let mut errors = Vec::new();
        let mut hasher = blake3::Hasher::new();
        let manifest_path = dir.join("app.ron");
        let manifest: Manifest = match source.read_listed("app.ron").and_then(|text| {
            hasher.update(text.as_bytes());
            crate::ron_util::parse_ron(&manifest_path, &text)
        }) {
            Ok(m) => m,
            Err(err) => return (None, vec![err]),
        };
        for (key, value) in &manifest.state {
            errors.extend(long_string(&manifest_path, &format!("state.{key}"), value));
        }

        let screens = load_screens(source, &mut hasher, &mut errors);
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
            match source.read_reference(&manifest_path, name) {
                Ok(text) => {
                    hasher.update(name.as_bytes());
                    hasher.update(text.as_bytes());
                    scripts.push(ScriptSource { name: name.clone(), file: dir.join(name), source: text });
                }
                Err(err) => errors.push(err),
            }
        }

        let mut content = serde_json::Map::new();
        for (name, rel) in &manifest.content {
            let file = dir.join(rel);
            let value = source.read_reference(&manifest_path, rel).and_then(|text| read_value(&file, &text));
            match value.and_then(|value| long_string(&file, "", &value).map_or(Ok(value), Err)) {
                Ok(value) => {
                    hasher.update(name.as_bytes());
                    hasher.update(value.to_string().as_bytes());
                    content.insert(name.clone(), value);
                }
                Err(err) => errors.push(err),
            }
        }

        // Images are decoded when first drawn, but a changed picture is a changed app: the
        // bundle's hash covers their bytes too.
        for (rel, real) in source.image_files() {
            hasher.update(rel.as_bytes());
            match read_bounded(&real, MAX_ASSET_HASH_BYTES) {
                Ok(bytes) => hasher.update(&bytes),
                Err(err) => hasher.update(err.to_string().as_bytes()),
            };
        }

        let bundle = AppBundle {
            dir: dir.to_path_buf(),
            manifest,
            screens,
            scripts,
            content: serde_json::Value::Object(content),
            hash: hasher.finalize().to_hex().to_string(),
            in_memory: matches!(source, Source::Memory { .. }),
        };
        (Some(bundle), errors)
    }

    /// Reads a binary asset the bundle names (`images/cat.jpg`), at most `max_bytes`. The
    /// path stays inside the bundle like every other bundle file (no absolute paths, no `..`
    /// or symlinks leading out); `referrer` is the file that names it, for errors.
    pub fn read_asset(&self, referrer: &FsPath, reference: &str, max_bytes: u64) -> Result<Vec<u8>, DataError> {
        let files = BTreeMap::new();
        let source = if self.in_memory { Source::Memory { dir: &self.dir, files: &files } } else { Source::dir(&self.dir)? };
        source.read_bytes(referrer, reference, max_bytes)
    }

    /// The app's initial data as one JSON object.
    pub fn initial_state(&self) -> serde_json::Value {
        serde_json::Value::Object(self.manifest.state.clone().into_iter().collect())
    }
}

/// Bytes of one image file that go into a bundle's hash; a larger file (which cannot be
/// drawn: images are limited to 16 MiB) adds its error, naming its size, instead.
pub(crate) const MAX_ASSET_HASH_BYTES: u64 = 16 << 20;

/// Longest string in content and in an app's initial state, in bytes: a layout may show, filter
/// or compare it in every row of a long list.
pub const MAX_CONTENT_STRING_BYTES: usize = 64 << 10;

/// An error for the first string in `value` longer than [`MAX_CONTENT_STRING_BYTES`], naming
/// where it is (`state.notes.3.body`).
fn long_string(file: &FsPath, at: &str, value: &serde_json::Value) -> Option<DataError> {
    let mut stack = vec![(value, at.to_owned())];
    while let Some((value, at)) = stack.pop() {
        let join = |key: &dyn std::fmt::Display| if at.is_empty() { key.to_string() } else { format!("{at}.{key}") };
        match value {
            serde_json::Value::String(text) if text.len() > MAX_CONTENT_STRING_BYTES => {
                return Some(DataError::Invalid {
                    path: file.to_path_buf(),
                    field: at,
                    message: format!("a string of {} bytes (the limit is {MAX_CONTENT_STRING_BYTES})", text.len()),
                });
            }
            serde_json::Value::Array(items) => {
                stack.extend(items.iter().enumerate().rev().map(|(i, v)| (v, join(&crate::valuepath::position_segment(i)))))
            }
            serde_json::Value::Object(map) => stack.extend(map.iter().rev().map(|(k, v)| (v, join(k)))),
            _ => {}
        }
    }
    None
}

/// Reads `screens/*.ron`; a screens folder or screen file leading out of the bundle is refused.
fn load_screens(source: &Source<'_>, hasher: &mut blake3::Hasher, errors: &mut Vec<DataError>) -> BTreeMap<String, Screen> {
    let mut screens = BTreeMap::new();
    let files = source.ron_files("screens").unwrap_or_else(|err| {
        errors.push(err);
        Vec::new()
    });
    for rel in files {
        let file = source.base().join(&rel);
        let id = stem(&file);
        match source.read_listed(&rel).and_then(|text| {
            hasher.update(id.as_bytes());
            hasher.update(text.as_bytes());
            let raw: RawScreen = crate::ron_util::parse_ron(&file, &text)?;
            raw.system_bars.check(&file)?;
            Ok(Screen {
                id: id.clone(),
                title: raw.title,
                on_enter: raw.on_enter,
                view: raw.view,
                root: raw.root,
                system_bars: raw.system_bars,
                file: file.clone(),
                source: text,
            })
        }) {
            Ok(screen) => {
                screens.insert(id, screen);
            }
            Err(err) => errors.push(err),
        }
    }
    screens
}

fn keys<V>(map: &BTreeMap<String, V>) -> String {
    map.keys().cloned().collect::<Vec<_>>().join(", ")
}

fn stem(file: &FsPath) -> String {
    file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}
