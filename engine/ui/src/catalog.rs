//! The installed apps and layout modules, loaded once and shared (read-only) by every device
//! in the process: bundles, compiled scripts and content are never copied per device.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use phoneworld_data::{AppBundle, DataError, HostServices, LayoutModules, LuaLibrary};
use phoneworld_script::{Library, Program, ScriptError};
use serde_json::Value;

use crate::store::Store;
use crate::PhoneError;

/// One installed app.
#[derive(Debug)]
pub struct InstalledApp {
    pub bundle: AppBundle,
    pub program: Program,
    pub content: Arc<Value>,
}

impl InstalledApp {
    pub fn package(&self) -> &str {
        &self.bundle.manifest.package
    }

    pub fn label(&self) -> &str {
        &self.bundle.manifest.label
    }
}

/// Every installed app, in launcher order (by label), and the layout modules.
#[derive(Debug)]
pub struct Catalog {
    pub apps: Vec<InstalledApp>,
    pub modules: LayoutModules,
    /// blake3 over every app bundle and module: snapshots only restore onto the same catalog.
    pub hash: String,
    /// Apps that could not be installed, each with the reason (file and line): a broken app
    /// is left out, never takes the phone down.
    pub broken: Vec<(PathBuf, PhoneError)>,
    /// Freshly installed stores by seed (install hooks already run), shared by the devices
    /// and snapshots of this catalog. Bounded; a miss only costs running the hooks again.
    /// The apps' image assets, decoded on first use and shared by every device.
    pub images: crate::ImageStore,
    /// The cities of the apps with maps, shared by every device.
    pub maps: crate::MapStore,
    pub baselines: std::sync::Mutex<std::collections::VecDeque<(u64, Arc<Baseline>)>>,
}

/// A freshly installed phone's store for one seed, and what its install hooks reported.
#[derive(Debug)]
pub struct Baseline {
    pub store: Store,
    pub errors: Vec<ScriptError>,
}

/// The repository's root folder: `PHONEWORLD_ROOT` when set, else where this crate was built.
pub fn project_root() -> PathBuf {
    // The one place the environment is read, so a relocated install can point at its data.
    let root = match std::env::var_os("PHONEWORLD_ROOT") {
        Some(root) => PathBuf::from(root),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
    };
    std::fs::canonicalize(&root).unwrap_or(root)
}

/// The `lib/` folders beside the layout folders (`layouts/` and `lib/` sit side by side).
fn library_dirs(layout_dirs: &[PathBuf]) -> Vec<PathBuf> {
    layout_dirs.iter().filter_map(|dir| dir.parent()).map(|parent| parent.join("lib")).collect()
}

/// The shared Lua library beside the layout folders, compiled; what fails to load or compile
/// goes to `broken`. Returns it with the hash of its sources.
fn load_library(layout_dirs: &[PathBuf], broken: &mut Vec<(PathBuf, PhoneError)>) -> (Library, String) {
    let dirs = library_dirs(layout_dirs);
    let (sources, errors) = LuaLibrary::load(&dirs);
    for err in errors {
        broken.push((err.path().map(PathBuf::from).unwrap_or_default(), PhoneError::Data(err)));
    }
    let (library, errors) = Library::compile_each(&sources);
    for err in errors {
        let path = sources.file_of(&err.file).map(Path::to_path_buf).unwrap_or_default();
        broken.push((path, PhoneError::Script(err)));
    }
    (library, sources.hash())
}

/// The app folders inside a folder of apps (those with an `app.ron`), sorted by name.
pub fn app_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("app.ron").is_file()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
}

impl Catalog {
    /// The bundled apps and layouts, plus extra app folders.
    pub fn load_default(extra_app_dirs: &[PathBuf]) -> Result<Arc<Catalog>, PhoneError> {
        let root = project_root();
        let mut dirs = vec![root.join("apps")];
        dirs.extend(extra_app_dirs.iter().cloned());
        Catalog::load(&dirs, &[root.join("layouts")])
    }

    /// Loads every app under the given folders (a folder may also be one app itself), with the
    /// layout modules of `layout_dirs` and the Lua library of the `lib/` folder beside each.
    pub fn load(app_roots: &[PathBuf], layout_dirs: &[PathBuf]) -> Result<Arc<Catalog>, PhoneError> {
        let (modules, errors) = LayoutModules::load(layout_dirs);
        let mut apps: Vec<InstalledApp> = Vec::new();
        // A broken module is reported; the screens that use it show a visible placeholder.
        let mut broken: Vec<(PathBuf, PhoneError)> = errors
            .into_iter()
            .map(|err| {
                let path = err.path().map(PathBuf::from).unwrap_or_default();
                (path, PhoneError::Data(err))
            })
            .collect();
        // A broken library module is reported and left out; the apps that use it fail to load.
        let (library, library_hash) = load_library(layout_dirs, &mut broken);
        for root in app_roots {
            if !root.is_dir() {
                return Err(PhoneError::Data(DataError::Invalid {
                    path: root.clone(),
                    field: "apps-dir".into(),
                    message: "not a folder".into(),
                }));
            }
            let dirs = if root.join("app.ron").is_file() { vec![root.clone()] } else { app_dirs(root) };
            for dir in dirs {
                let loaded = AppBundle::load(&dir).map_err(PhoneError::from).and_then(|bundle| {
                    let program = Program::compile(&bundle)?.with_library(&library);
                    Ok((bundle, program))
                });
                let (bundle, program) = match loaded {
                    Ok(ok) => ok,
                    Err(err) => {
                        broken.push((dir.clone(), err));
                        continue;
                    }
                };
                let content = Arc::new(bundle.content.clone());
                // A later folder overrides an app of the same package.
                apps.retain(|a| a.package() != bundle.manifest.package);
                apps.push(InstalledApp { bundle, program, content });
            }
        }
        apps.sort_by(|a, b| a.label().to_lowercase().cmp(&b.label().to_lowercase()).then(a.package().cmp(b.package())));
        let mut hasher = blake3::Hasher::new();
        for app in &apps {
            hasher.update(app.bundle.hash.as_bytes());
        }
        hasher.update(modules.hash().as_bytes());
        hasher.update(library_hash.as_bytes());
        Ok(Arc::new(Catalog {
            apps,
            modules,
            hash: hasher.finalize().to_hex().to_string(),
            broken,
            images: Default::default(),
            maps: Default::default(),
            baselines: Default::default(),
        }))
    }

    pub fn get(&self, package: &str) -> Option<&InstalledApp> {
        self.apps.iter().find(|a| a.package() == package)
    }

    /// The value a host names among its services, read from its own data in `store` (a path
    /// as Lua writes it): what the payment sheet and the chat picker show.
    pub fn host_value(&self, store: &Store, host: &str, pick: impl Fn(&HostServices) -> Option<&str>) -> Option<Value> {
        let path = self.get(host)?.bundle.manifest.services.as_ref().and_then(pick)?;
        phoneworld_data::valuepath::get(store.apps.get(host)?, &phoneworld_data::valuepath::split(path)).cloned()
    }

    /// Finds an app by package or label (case-insensitive).
    pub fn find(&self, name: &str) -> Option<&InstalledApp> {
        let lower = name.trim().to_lowercase();
        self.get(name.trim()).or_else(|| self.apps.iter().find(|a| a.label().to_lowercase() == lower))
    }
}

impl From<ScriptError> for PhoneError {
    fn from(err: ScriptError) -> Self {
        PhoneError::Script(err)
    }
}

impl From<DataError> for PhoneError {
    fn from(err: DataError) -> Self {
        PhoneError::Data(err)
    }
}
