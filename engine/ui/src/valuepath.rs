//! Reading and writing store values at layout paths (0-based list positions).

use serde_json::Value;

pub fn get<'v>(root: &'v Value, segments: &[String]) -> Option<&'v Value> {
    phoneworld_data::lookup_path(root, segments)
}

/// Writes `new` at `segments`, creating maps on the way; a list position must exist.
pub fn set(root: &mut Value, segments: &[String], new: Value) -> Result<(), String> {
    let mut value = root;
    for seg in segments {
        if value.is_null() {
            *value = Value::Object(serde_json::Map::new());
        }
        value = match value {
            Value::Object(map) => map.entry(seg.clone()).or_insert(Value::Null),
            Value::Array(list) => {
                let len = list.len();
                let i: usize = seg.parse().map_err(|_| format!("`{seg}` is not a list position"))?;
                list.get_mut(i).ok_or_else(|| format!("position {i} is outside a list of {len}"))?
            }
            _ => return Err(format!("`{seg}` is inside a value that is not a map or list")),
        };
    }
    *value = new;
    Ok(())
}
