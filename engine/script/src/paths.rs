//! Dotted paths as Lua handlers write them: numeric segments are 1-based, as Lua lists are.

use serde_json::Value;

fn index(seg: &str, len: usize) -> Option<usize> {
    let n: usize = seg.parse().ok()?;
    (n >= 1 && n <= len).then(|| n - 1)
}

/// Nothing and empty lists (an empty Lua table) become maps when a named field is set.
fn become_map_for(value: &mut Value, seg: &str) {
    let named = seg.parse::<usize>().is_err();
    let empty_list = matches!(value, Value::Array(l) if l.is_empty());
    if value.is_null() || (named && empty_list) {
        *value = Value::Object(serde_json::Map::new());
    }
}

/// Reads a path (`""` is the whole value); `None` when a step is missing.
pub fn get_lua_path<'v>(root: &'v Value, path: &str) -> Option<&'v Value> {
    let mut value = root;
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        value = match value {
            Value::Object(map) => map.get(seg)?,
            Value::Array(list) => list.get(index(seg, list.len())?)?,
            _ => return None,
        };
    }
    Some(value)
}

/// Writes a path, creating objects on the way. Fails when a step goes through a scalar or
/// past the end of a list (appending at `len + 1` is allowed).
pub fn set_lua_path(root: &mut Value, path: &str, new: Value) -> Result<(), String> {
    let segs: Vec<&str> = path.split('.').filter(|s| !s.is_empty()).collect();
    let Some((last, parents)) = segs.split_last() else {
        *root = new;
        return Ok(());
    };
    let mut value = root;
    for seg in parents {
        become_map_for(value, seg);
        value = match value {
            Value::Object(map) => map.entry((*seg).to_owned()).or_insert(Value::Null),
            Value::Array(list) => {
                let len = list.len();
                let i = index(seg, len).ok_or_else(|| format!("`{path}`: no element {seg} in a list of {len}"))?;
                &mut list[i]
            }
            _ => return Err(format!("`{path}`: `{seg}` is inside a value that is not a table")),
        };
    }
    become_map_for(value, last);
    match value {
        Value::Object(map) => {
            // An empty Lua table written over a list stays a list.
            let new = match (map.get(*last), new) {
                (Some(Value::Array(_)), Value::Object(o)) if o.is_empty() => Value::Array(Vec::new()),
                (_, new) => new,
            };
            if new.is_null() {
                map.remove(*last);
            } else {
                map.insert((*last).to_owned(), new);
            }
            Ok(())
        }
        Value::Array(list) => {
            let len = list.len();
            let n: usize = last.parse().map_err(|_| format!("`{path}`: `{last}` is not a list position"))?;
            if n >= 1 && n <= len {
                list[n - 1] = new;
                Ok(())
            } else if n == len + 1 {
                list.push(new);
                Ok(())
            } else {
                Err(format!("`{path}`: position {n} is outside a list of {len}"))
            }
        }
        _ => Err(format!("`{path}`: cannot set a field of a value that is not a table")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_based_paths() {
        let mut v = json!({"alarms": [{"t": 1}, {"t": 2}]});
        assert_eq!(get_lua_path(&v, "alarms.2.t"), Some(&json!(2)));
        assert_eq!(get_lua_path(&v, "alarms.0.t"), None);
        set_lua_path(&mut v, "alarms.1.t", json!(5)).unwrap();
        set_lua_path(&mut v, "new.deep", json!(true)).unwrap();
        assert_eq!(v, json!({"alarms": [{"t": 5}, {"t": 2}], "new": {"deep": true}}));
        assert!(set_lua_path(&mut v, "alarms.9.t", json!(1)).is_err());
        set_lua_path(&mut v, "alarms", json!({})).unwrap();
        assert_eq!(v["alarms"], json!([]));
    }
}
