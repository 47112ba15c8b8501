//! Paths into app data, with one rule wherever a path is written (layouts, task files, Lua
//! handlers, the engine): dotted segments, each a map key or, on a list, a position counted
//! from 1 as Lua counts (`notes.1.title` is the first note's title).

use serde_json::Value;
use thiserror::Error;

/// Why a path cannot be followed or written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PathError {
    #[error("`{path}`: list positions count from 1, so `0` names no element (the first is `{first}`)")]
    PositionZero { path: String, first: String },
    #[error("`{path}`: position {position} is outside a list of {len}")]
    OutsideList { path: String, position: usize, len: usize },
    #[error("`{path}`: `{segment}` is not a position, and `{list}` is a list")]
    NotAPosition { path: String, segment: String, list: String },
    #[error("`{path}`: `{segment}` is inside a value that is neither a map nor a list")]
    ThroughScalar { path: String, segment: String },
}

impl PathError {
    /// The same error for a path that continues `prefix` (`state` for a layout's `state.*`).
    pub fn within(self, prefix: &str) -> PathError {
        let at = |p: String| if p.is_empty() { prefix.to_owned() } else { format!("{prefix}.{p}") };
        match self {
            PathError::PositionZero { path, first } => PathError::PositionZero { path: at(path), first: at(first) },
            PathError::OutsideList { path, position, len } => PathError::OutsideList { path: at(path), position, len },
            PathError::NotAPosition { path, segment, list } => PathError::NotAPosition { path: at(path), segment, list: at(list) },
            PathError::ThroughScalar { path, segment } => PathError::ThroughScalar { path: at(path), segment },
        }
    }
}

/// The segments of a dotted path (`""` is the whole value).
pub fn split(path: &str) -> Vec<&str> {
    path.split('.').filter(|s| !s.is_empty()).collect()
}

/// The path segment naming the element at a 0-based Rust index.
pub fn position_segment(index: usize) -> String {
    (index + 1).to_string()
}

fn joined<S: AsRef<str>>(segments: &[S]) -> String {
    segments.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(".")
}

/// The error for segment `at` of `segments`, which stands on a list of `len` elements.
fn list_error<S: AsRef<str>>(segments: &[S], at: usize, len: usize) -> PathError {
    let path = joined(segments);
    let segment = segments[at].as_ref();
    let list = joined(&segments[..at]);
    match segment.parse::<usize>() {
        Ok(0) if list.is_empty() => PathError::PositionZero { path, first: "1".into() },
        Ok(0) => PathError::PositionZero { path, first: format!("{list}.1") },
        Ok(position) => PathError::OutsideList { path, position, len },
        Err(_) => PathError::NotAPosition { path, segment: segment.to_owned(), list },
    }
}

/// The 0-based index a segment names in a list of `len`, if it names an element.
fn index_of(segment: &str, len: usize) -> Option<usize> {
    let n: usize = segment.parse().ok()?;
    (1..=len).contains(&n).then(|| n - 1)
}

/// Follows a path. `Ok(None)` when a key or element is missing (data may simply not have it
/// yet); `Err` when the path cannot be right whatever the data: a position 0 in a list.
pub fn lookup<'v, S: AsRef<str>>(root: &'v Value, segments: &[S]) -> Result<Option<&'v Value>, PathError> {
    let mut value = root;
    for (at, seg) in segments.iter().enumerate() {
        let seg = seg.as_ref();
        value = match value {
            Value::Object(map) => match map.get(seg) {
                Some(v) => v,
                None => return Ok(None),
            },
            Value::Array(list) => match index_of(seg, list.len()) {
                Some(i) => &list[i],
                None if seg == "0" => return Err(list_error(segments, at, list.len())),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
    }
    Ok(Some(value))
}

/// Follows a path; `None` when any step is missing or wrong.
pub fn get<'v, S: AsRef<str>>(root: &'v Value, segments: &[S]) -> Option<&'v Value> {
    lookup(root, segments).ok().flatten()
}

/// Follows a path to a value that can be changed in place.
pub fn get_mut<'v, S: AsRef<str>>(root: &'v mut Value, segments: &[S]) -> Option<&'v mut Value> {
    let mut value = root;
    for seg in segments {
        let seg = seg.as_ref();
        value = match value {
            Value::Object(map) => map.get_mut(seg)?,
            Value::Array(list) => {
                let i = index_of(seg, list.len())?;
                &mut list[i]
            }
            _ => return None,
        };
    }
    Some(value)
}

/// Nothing, and an empty list (an empty Lua table) given a named field, become maps.
fn become_map_for(value: &mut Value, seg: &str) {
    let named = seg.parse::<usize>().is_err();
    let empty_list = matches!(value, Value::Array(l) if l.is_empty());
    if value.is_null() || (named && empty_list) {
        *value = Value::Object(serde_json::Map::new());
    }
}

/// Writes `new` at a path, creating maps on the way. On a list, a position names an element
/// and the one after the last appends; writing null into a map removes the key.
pub fn set<S: AsRef<str>>(root: &mut Value, segments: &[S], new: Value) -> Result<(), PathError> {
    let Some((last, parents)) = segments.split_last() else {
        *root = new;
        return Ok(());
    };
    let mut value = root;
    for (at, seg) in parents.iter().enumerate() {
        let seg = seg.as_ref();
        become_map_for(value, seg);
        value = match value {
            Value::Object(map) => map.entry(seg.to_owned()).or_insert(Value::Null),
            Value::Array(list) => match index_of(seg, list.len()) {
                Some(i) => &mut list[i],
                None => return Err(list_error(segments, at, list.len())),
            },
            _ => return Err(PathError::ThroughScalar { path: joined(segments), segment: seg.to_owned() }),
        };
    }
    let last = last.as_ref();
    become_map_for(value, last);
    match value {
        Value::Object(map) => {
            if new.is_null() {
                map.remove(last);
            } else {
                map.insert(last.to_owned(), new);
            }
            Ok(())
        }
        Value::Array(list) => {
            let len = list.len();
            match last.parse::<usize>() {
                Ok(n) if (1..=len).contains(&n) => list[n - 1] = new,
                Ok(n) if n == len + 1 => list.push(new),
                _ => return Err(list_error(segments, segments.len() - 1, len)),
            }
            Ok(())
        }
        _ => Err(PathError::ThroughScalar { path: joined(segments), segment: last.to_owned() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn positions_count_from_one_everywhere() {
        let mut v = json!({"alarms": [{"t": 1}, {"t": 2}]});
        assert_eq!(get(&v, &split("alarms.2.t")), Some(&json!(2)));
        assert_eq!(get(&v, &split("alarms.3.t")), None);
        set(&mut v, &split("alarms.1.t"), json!(5)).unwrap();
        set(&mut v, &split("alarms.3"), json!({"t": 9})).unwrap();
        set(&mut v, &split("new.deep"), json!(true)).unwrap();
        assert_eq!(v, json!({"alarms": [{"t": 5}, {"t": 2}, {"t": 9}], "new": {"deep": true}}));
        set(&mut v, &split("new"), Value::Null).unwrap();
        assert!(v.get("new").is_none());
    }

    #[test]
    fn a_wrong_position_is_named_with_the_one_meant() {
        let mut v = json!({"emails": [{"body": "hi"}]});
        let zero = lookup(&v, &split("emails.0.body")).unwrap_err();
        assert_eq!(zero.to_string(), "`emails.0.body`: list positions count from 1, so `0` names no element (the first is `emails.1`)");
        let far = set(&mut v, &split("emails.5.body"), json!("x")).unwrap_err();
        assert_eq!(far.to_string(), "`emails.5.body`: position 5 is outside a list of 1");
        let named = set(&mut v, &split("emails.first.body"), json!("x")).unwrap_err();
        assert_eq!(named.to_string(), "`emails.first.body`: `first` is not a position, and `emails` is a list");
        assert!(set(&mut v, &split("emails.1.body.x"), json!(1)).is_err());
    }
}
