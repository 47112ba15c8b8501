//! Deciding success: checks over app data, the answer and the screen, with normalized
//! comparison; and the collateral-damage check on app data.

use phoneworld_data::valuepath;
use phoneworld_phone::Device;
use serde_json::Value;

use crate::params::{display, fill, fill_json, Params};
use crate::template::Check;

/// Case, whitespace and trailing punctuation do not matter.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").trim_end_matches(['.', '!']).to_lowercase()
}

/// A number written with currency signs, thousands separators or units.
fn as_number(text: &str) -> Option<f64> {
    let cleaned: String = text.chars().filter(|c| c.is_ascii_digit() || *c == '.' || *c == '-').collect();
    if cleaned.is_empty() || cleaned == "-" || cleaned == "." {
        return None;
    }
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    // "12 min", "$1,299.00", "3 items" are numbers; "Room 12B" is not.
    (letters <= 5).then(|| cleaned.parse().ok()).flatten()
}

/// Does `actual` match `expected` (numbers numerically, text normalized, maps field by field)?
pub fn matches(actual: &Value, expected: &Value) -> bool {
    match (expected, actual) {
        (Value::Null, a) => a.is_null(),
        (Value::Bool(e), Value::Bool(a)) => e == a,
        (Value::Bool(_), _) => false,
        (Value::Number(e), a) => {
            let e = e.as_f64().unwrap_or(f64::NAN);
            match a {
                Value::Number(n) => (n.as_f64().unwrap_or(f64::NAN) - e).abs() < 1e-6,
                Value::String(s) => as_number(s).is_some_and(|n| (n - e).abs() < 1e-6),
                _ => false,
            }
        }
        (Value::String(e), a) => {
            let a = display(a);
            normalize(&a) == normalize(e)
                || matches!((as_number(e), as_number(&a)), (Some(x), Some(y)) if e.chars().any(|c| c.is_ascii_digit()) && (x - y).abs() < 1e-6 && normalize(&strip_digits(e)) == normalize(&strip_digits(&a)))
        }
        (Value::Array(e), Value::Array(a)) => e.len() == a.len() && e.iter().all(|x| a.iter().any(|y| matches(y, x))),
        (Value::Object(e), Value::Object(_)) => e.iter().all(|(k, v)| matches(actual.get(k).unwrap_or(&Value::Null), v)),
        _ => false,
    }
}

fn strip_digits(s: &str) -> String {
    s.chars().filter(|c| c.is_alphabetic() || c.is_whitespace()).collect()
}

/// The app data a check reads: `system` is system settings.
fn data<'d>(device: &'d Device, app: &str) -> Option<&'d Value> {
    if app == "system" {
        Some(&device.store().system)
    } else {
        device.store().apps.get(app).map(|a| &**a)
    }
}

/// The value at a path (missing is `None`); a path that cannot be right is an error.
fn at<'v>(root: &'v Value, path: &str) -> Result<Option<&'v Value>, String> {
    valuepath::lookup(root, &valuepath::split(path)).map_err(|e| e.to_string())
}

/// The value a check reads at `path` of `app`'s data.
fn at_app<'d>(device: &'d Device, app: &str, path: &str) -> Result<Option<&'d Value>, String> {
    data(device, app).map_or(Ok(None), |d| at(d, path))
}

fn list<'d>(device: &'d Device, app: &str, path: &str) -> Result<&'d [Value], String> {
    Ok(at_app(device, app, path)?.and_then(Value::as_array).map_or(&[], Vec::as_slice))
}

fn fields_match(item: &Value, fields: &std::collections::BTreeMap<String, Value>, params: &Params) -> Result<bool, String> {
    for (key, expected) in fields {
        let expected = fill_json(expected, params)?;
        if !matches(at(item, key)?.unwrap_or(&Value::Null), &expected) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether a check holds on the device now.
pub fn holds(check: &Check, device: &Device, params: &Params) -> Result<bool, String> {
    Ok(match check {
        Check::Exists { app, path, fields } => {
            let mut found = false;
            for item in list(device, app, path)? {
                if fields_match(item, fields, params)? {
                    found = true;
                    break;
                }
            }
            found
        }
        Check::Absent { app, path, fields } => {
            !holds(&Check::Exists { app: app.clone(), path: path.clone(), fields: fields.clone() }, device, params)?
        }
        Check::Equals { app, path, value } => {
            let expected = fill_json(value, params)?;
            matches(at_app(device, app, path)?.unwrap_or(&Value::Null), &expected)
        }
        Check::Contains { app, path, text } => {
            let needle = normalize(&fill(text, params)?);
            at_app(device, app, path)?.is_some_and(|v| normalize(&display(v)).contains(&needle))
        }
        Check::Count { app, path, fields, equals } => {
            let mut n = 0;
            for item in list(device, app, path)? {
                if fields_match(item, fields, params)? {
                    n += 1;
                }
            }
            n == *equals
        }
        Check::Answer(expected) => {
            let expected = fill(expected, params)?;
            device.store().session.answer.as_deref().is_some_and(|a| matches(&Value::String(a.to_owned()), &Value::String(expected)))
        }
        Check::Finished(status) => device.store().session.finished.as_deref() == Some(status.as_str()),
        Check::Screen { app, screen } => {
            let (package, current) = device.foreground();
            package == *app && screen.as_ref().is_none_or(|s| *s == current)
        }
        Check::All(checks) => {
            for c in checks {
                if !holds(c, device, params)? {
                    return Ok(false);
                }
            }
            true
        }
        Check::Any(checks) => {
            for c in checks {
                if holds(c, device, params)? {
                    return Ok(true);
                }
            }
            false
        }
        Check::Not(c) => !holds(c, device, params)?,
    })
}

/// App data as one object: `{ "<package>": data, "system": settings }`.
pub fn app_data(device: &Device) -> Value {
    let mut map: serde_json::Map<String, Value> = device.store().apps.iter().map(|(k, v)| (k.clone(), (**v).clone())).collect();
    map.insert("system".into(), device.store().system.clone());
    Value::Object(map)
}

/// The paths (`package:dotted.path`) where two app-data snapshots differ.
pub fn changed_paths(before: &Value, after: &Value) -> Vec<String> {
    fn walk(a: &Value, b: &Value, path: &mut Vec<String>, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    path.push(k.clone());
                    walk(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), path, out);
                    path.pop();
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    path.push(valuepath::position_segment(i));
                    walk(p, q, path, out);
                    path.pop();
                }
            }
            // Elements only added (every old element still there, in order): `path+`;
            // only removed: `path-`. An allowance can then permit adding without editing.
            (Value::Array(x), Value::Array(y)) if y.len() > x.len() && is_subsequence(x, y) => out.push(format!("{}+", joined(path))),
            (Value::Array(x), Value::Array(y)) if y.len() < x.len() && is_subsequence(y, x) => out.push(format!("{}-", joined(path))),
            _ if a == b => {}
            _ => out.push(joined(path)),
        }
    }
    fn joined(path: &[String]) -> String {
        let (app, rest) = path.split_first().map_or((String::new(), &[][..]), |(h, t)| (h.clone(), t));
        format!("{app}:{}", rest.join("."))
    }
    fn is_subsequence(short: &[Value], long: &[Value]) -> bool {
        let mut it = long.iter();
        short.iter().all(|s| it.any(|l| l == s))
    }
    let mut out = Vec::new();
    walk(before, after, &mut Vec::new(), &mut out);
    out
}

/// Changes outside what the task allows. `package:path` allows any change at or below the
/// path; `package:list+` only adding elements to the list; `package:list-` only removing.
pub fn collateral(changed: &[String], allow: &[String]) -> Vec<String> {
    changed
        .iter()
        .filter(|c| {
            !allow.iter().any(|a| {
                let a = a.trim_end_matches('.');
                if a.ends_with('+') || a.ends_with('-') {
                    return c.as_str() == a;
                }
                let bare = c.trim_end_matches(['+', '-']);
                bare == a || c.starts_with(&format!("{a}.")) || (a.ends_with(':') && c.starts_with(a))
            })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalized_matching() {
        assert!(matches(&json!("  Gym  time."), &json!("gym time")));
        assert!(matches(&json!(425), &json!("425")));
        assert!(matches(&json!("$1,299.00"), &json!(1299)));
        assert!(matches(&json!({"a": 1, "b": "X"}), &json!({"b": "x"})));
        assert!(!matches(&json!("Gym"), &json!("Work")));
        assert!(!matches(&json!("Room 12"), &json!("Room 13")));
    }

    #[test]
    fn collateral_is_what_the_task_did_not_allow() {
        let before = json!({"com.x": {"alarms": [], "n": 1}, "system": {"wifi": true}});
        let after = json!({"com.x": {"alarms": [{"t": 1}], "n": 2}, "system": {"wifi": false}});
        let changed = changed_paths(&before, &after);
        assert_eq!(changed, vec!["com.x:alarms+", "com.x:n", "system:wifi"]);
        assert_eq!(collateral(&changed, &["com.x:alarms".into(), "com.x:n".into()]), vec!["system:wifi"]);
        assert_eq!(collateral(&changed, &["com.x:alarms+".into(), "com.x:n".into(), "system:wifi".into()]), Vec::<String>::new());
        // Adding is not editing: `alarms+` does not allow changing an existing alarm.
        let edited = changed_paths(&json!({"a": {"l": [{"t": 1}]}}), &json!({"a": {"l": [{"t": 2}, {"t": 3}]}}));
        assert_eq!(collateral(&edited, &["a:l+".into()]), vec!["a:l"]);
    }
}
