//! Paths as handlers pass them to `state`, `locals`, `system` and `content`: the one path rule
//! of [`phoneworld_data::valuepath`] (positions counted from 1), plus what an empty Lua table
//! written over a list means.

use phoneworld_data::valuepath;
use serde_json::Value;

/// Reads a path (`""` is the whole value); `None` when a step is missing. A path that cannot
/// be right (a position 0) is an error, so the handler's file and line are named.
pub(crate) fn get<'v>(root: &'v Value, path: &str) -> mlua::Result<Option<&'v Value>> {
    valuepath::lookup(root, &valuepath::split(path)).map_err(mlua::Error::runtime)
}

/// Writes a path, creating maps on the way (appending at one past the last element).
pub(crate) fn set(root: &mut Value, path: &str, new: Value) -> mlua::Result<()> {
    let segments = valuepath::split(path);
    // An empty Lua table is both an empty list and an empty map: over a list it stays a list.
    let new = match (valuepath::get(root, &segments), new) {
        (Some(Value::Array(_)), Value::Object(o)) if o.is_empty() => Value::Array(Vec::new()),
        (_, new) => new,
    };
    valuepath::set(root, &segments, new).map_err(mlua::Error::runtime)
}

/// The list at a path, to insert into or remove from.
pub(crate) fn list_mut<'v>(root: &'v mut Value, path: &str) -> mlua::Result<&'v mut Vec<Value>> {
    valuepath::get_mut(root, &valuepath::split(path))
        .and_then(Value::as_array_mut)
        .ok_or_else(|| mlua::Error::runtime(format!("`{path}` is not a list")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_table_over_a_list_stays_a_list() {
        let mut v = json!({"alarms": [{"t": 1}]});
        set(&mut v, "alarms", json!({})).unwrap();
        assert_eq!(v["alarms"], json!([]));
        set(&mut v, "alarms.1", json!({"t": 2})).unwrap();
        assert_eq!(get(&v, "alarms.1.t").unwrap(), Some(&json!(2)));
        assert!(get(&v, "alarms.0.t").unwrap_err().to_string().contains("count from 1"));
    }
}
