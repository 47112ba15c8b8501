//! The cities of the apps that show maps: generated from the seed in the app's state and the
//! places of its content (see the manifest's `map`), once per (app, seed, home address), and
//! shared by every device of the catalog.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use phoneworld_data::MapSpec;
use phoneworld_map::{City, PlaceInput};
use serde_json::Value;

/// Cities kept; an older one is generated again (the same city) when it is needed again.
const MAX_CITIES: usize = 8;

type Key = (String, u64, String);

#[derive(Default)]
pub struct MapStore {
    inner: Mutex<VecDeque<(Key, Arc<City>)>>,
}

impl std::fmt::Debug for MapStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.inner.lock().map_or(0, |d| d.len());
        write!(f, "MapStore({n} cities)")
    }
}

fn places(list: Option<&Value>) -> Vec<PlaceInput> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    list.and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(|p| {
                    let id = p.get("id").and_then(Value::as_i64)?;
                    Some(PlaceInput { id, name: s(p, "name"), category: s(p, "category"), address: s(p, "address") })
                })
                .collect()
        })
        .unwrap_or_default()
}

impl MapStore {
    /// The city of `package` for its current state (seed and home address) and content.
    pub fn city(&self, package: &str, spec: &MapSpec, state: &Value, content: &Value) -> Arc<City> {
        let seed = state.get(&spec.seed).and_then(Value::as_u64).unwrap_or(0);
        let home = state.get(&spec.home).and_then(Value::as_str).unwrap_or_default().to_owned();
        let key = (package.to_owned(), seed, home);
        if let Some((_, c)) = self.inner.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(k, _)| *k == key) {
            return Arc::clone(c);
        }
        let city = Arc::new(City::generate(seed, &places(content.get(&spec.places)), &key.2));
        let mut d = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if d.len() >= MAX_CITIES {
            d.pop_front();
        }
        d.push_back((key, Arc::clone(&city)));
        city
    }
}
