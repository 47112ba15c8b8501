//! Apps and suites, loaded once per process and shared by every phone (they are read-only).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use phoneworld_phone::{project_root, Catalog};
use phoneworld_tasks::Suite;
use pyo3::prelude::*;

use crate::errors::{phone_error, task_error};

type SuiteKey = (String, Vec<PathBuf>, String);

static CATALOGS: Mutex<BTreeMap<Vec<PathBuf>, Arc<Catalog>>> = Mutex::new(BTreeMap::new());
static SUITES: Mutex<BTreeMap<SuiteKey, Arc<Suite>>> = Mutex::new(BTreeMap::new());

/// The bundled apps plus the apps in `apps_dirs`.
pub(crate) fn catalog(apps_dirs: &[PathBuf]) -> PyResult<Arc<Catalog>> {
    let mut cache = CATALOGS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = cache.get(apps_dirs) {
        return Ok(Arc::clone(found));
    }
    let loaded = Catalog::load_default(apps_dirs).map_err(phone_error)?;
    cache.insert(apps_dirs.to_vec(), Arc::clone(&loaded));
    Ok(loaded)
}

/// The suite `name` from the bundled `verifiers/` or `suite_dirs`.
pub(crate) fn suite(name: &str, suite_dirs: &[PathBuf], catalog: &Catalog) -> PyResult<Arc<Suite>> {
    let key = (name.to_owned(), suite_dirs.to_vec(), catalog.hash.clone());
    let mut cache = SUITES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = cache.get(&key) {
        return Ok(Arc::clone(found));
    }
    let mut dirs = vec![project_root().join("verifiers")];
    dirs.extend_from_slice(suite_dirs);
    let loaded = Arc::new(Suite::find(name, &dirs, catalog).map_err(task_error)?);
    cache.insert(key, Arc::clone(&loaded));
    Ok(loaded)
}

/// The catalog of `apps_dirs` and the suite `name` over it.
pub(crate) fn catalog_and_suite(name: &str, suite_dirs: &[PathBuf], apps_dirs: &[PathBuf]) -> PyResult<(Arc<Catalog>, Arc<Suite>)> {
    let catalog = catalog(apps_dirs)?;
    let suite = suite(name, suite_dirs, &catalog)?;
    Ok((catalog, suite))
}
