//! Drawing a template's parameters from a seed, and filling `{...}` holes with them.

use std::collections::BTreeMap;

use phoneworld_data::{valuepath, Rng};
use phoneworld_phone::Catalog;
use serde_json::Value;

use crate::template::{ParamGen, TaskTemplate};
use crate::TaskError;

/// The parameters of one task instance.
pub type Params = BTreeMap<String, Value>;

fn seed_for(id: &str, seed: u64) -> u64 {
    let h = blake3::hash(format!("{id}#{seed}").as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// The list a `Pick` draws from: app content first, then the app's initial state.
fn pick_list<'c>(catalog: &'c Catalog, app: &str, list: &str) -> Option<&'c Vec<Value>> {
    let installed = catalog.get(app)?;
    installed.content.get(list).and_then(Value::as_array).or_else(|| installed.bundle.manifest.state.get(list).and_then(Value::as_array))
}

/// Template id + seed gives one instance, always the same.
pub fn instantiate(template: &TaskTemplate, seed: u64, catalog: &Catalog) -> Result<Params, TaskError> {
    let mut rng = Rng::new(seed_for(&template.id, seed));
    let mut params = Params::new();
    for (name, generator) in &template.params {
        let value = match generator {
            ParamGen::Range(lo, hi) => Value::from(rng.range(*lo, *hi)),
            ParamGen::Choice(values) if !values.is_empty() => values[rng.below(values.len())].clone(),
            ParamGen::Choice(_) => {
                return Err(TaskError::template(&template.id, &format!("params.{name}"), "Choice needs at least one value"))
            }
            ParamGen::Pick { app, list, field } => {
                let items = pick_list(catalog, app, list).filter(|l| !l.is_empty()).ok_or_else(|| {
                    TaskError::template(&template.id, &format!("params.{name}"), &format!("no list `{list}` in {app}'s content or state"))
                })?;
                let item = &items[rng.below(items.len())];
                match field {
                    Some(f) => item.get(f).cloned().ok_or_else(|| {
                        TaskError::template(&template.id, &format!("params.{name}"), &format!("items of `{list}` have no field `{f}`"))
                    })?,
                    None => item.clone(),
                }
            }
        };
        params.insert(name.clone(), value);
    }
    for (name, text) in &template.derived {
        let value = fill_value(text, &params).map_err(|e| TaskError::template(&template.id, &format!("derived.{name}"), &e))?;
        params.insert(name.clone(), value);
    }
    Ok(params)
}

/// Number formatting: whole numbers without a fraction.
pub(crate) fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 => format!("{}", f as i64),
            (None, Some(f)) => format!("{f:.2}"),
            _ => n.to_string(),
        },
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Evaluates `a * 60 + b` style arithmetic over parameters (integers and floats).
fn arith(expr: &str, params: &Params) -> Result<f64, String> {
    let tokens: Vec<String> = {
        let mut out = Vec::new();
        let mut cur = String::new();
        for c in expr.chars() {
            if "+-*/%()".contains(c) {
                if !cur.trim().is_empty() {
                    out.push(cur.trim().to_owned());
                }
                cur.clear();
                out.push(c.to_string());
            } else {
                cur.push(c);
            }
        }
        if !cur.trim().is_empty() {
            out.push(cur.trim().to_owned());
        }
        out
    };
    let mut pos = 0;
    fn expr_(t: &[String], pos: &mut usize, p: &Params) -> Result<f64, String> {
        let mut v = term(t, pos, p)?;
        while *pos < t.len() && (t[*pos] == "+" || t[*pos] == "-") {
            let op = t[*pos].clone();
            *pos += 1;
            let r = term(t, pos, p)?;
            v = if op == "+" { v + r } else { v - r };
        }
        Ok(v)
    }
    fn term(t: &[String], pos: &mut usize, p: &Params) -> Result<f64, String> {
        let mut v = atom(t, pos, p)?;
        while *pos < t.len() && ["*", "/", "%"].contains(&t[*pos].as_str()) {
            let op = t[*pos].clone();
            *pos += 1;
            let r = atom(t, pos, p)?;
            v = match op.as_str() {
                "*" => v * r,
                "/" => v / r,
                _ => v.rem_euclid(r),
            };
        }
        Ok(v)
    }
    fn atom(t: &[String], pos: &mut usize, p: &Params) -> Result<f64, String> {
        let tok = t.get(*pos).ok_or("unexpected end of expression")?.clone();
        *pos += 1;
        if tok == "(" {
            let v = expr_(t, pos, p)?;
            if t.get(*pos).map(String::as_str) != Some(")") {
                return Err("expected `)`".into());
            }
            *pos += 1;
            return Ok(v);
        }
        if tok == "-" {
            return Ok(-atom(t, pos, p)?);
        }
        if let Ok(n) = tok.parse::<f64>() {
            return Ok(n);
        }
        let v = p.get(&tok).ok_or_else(|| format!("unknown parameter `{tok}`"))?;
        v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).ok_or_else(|| format!("parameter `{tok}` is not a number"))
    }
    let v = expr_(&tokens, &mut pos, params)?;
    if pos != tokens.len() {
        return Err(format!("unexpected `{}`", tokens[pos]));
    }
    Ok(v)
}

fn apply_filter(v: Value, filter: &str, h24: bool) -> Result<Value, String> {
    Ok(match filter.trim() {
        "pad2" => Value::String(format!("{:02}", v.as_f64().unwrap_or(0.0) as i64)),
        "upper" => Value::String(display(&v).to_uppercase()),
        "lower" => Value::String(display(&v).to_lowercase()),
        "time" => {
            let m = v.as_f64().unwrap_or(0.0) as i64;
            Value::String(phoneworld_data::format_minutes(m, h24))
        }
        "money" => Value::String(format!("{:.2}", v.as_f64().unwrap_or(0.0))),
        "first" => Value::String(display(&v).split_whitespace().next().unwrap_or_default().to_owned()),
        other => return Err(format!("unknown filter `{other}` (pad2, upper, lower, time, money, first)")),
    })
}

/// One `{...}` hole: a parameter or arithmetic, then filters.
fn eval_hole(inner: &str, params: &Params, h24: bool) -> Result<Value, String> {
    let mut parts = inner.split('|');
    let head = parts.next().unwrap_or_default().trim();
    let dotted = match head.split_once('.').and_then(|(name, path)| Some((params.get(name)?, path))) {
        Some((v, path)) => valuepath::lookup(v, &valuepath::split(path)).map_err(|e| e.to_string())?.cloned(),
        None => None,
    };
    let mut value = match params.get(head).cloned().or(dotted) {
        Some(v) => v,
        None => {
            let n = arith(head, params)?;
            if n.fract() == 0.0 {
                Value::from(n as i64)
            } else {
                Value::from(n)
            }
        }
    };
    for f in parts {
        value = apply_filter(value, f, h24)?;
    }
    Ok(value)
}

/// Fills a template string; a string that is exactly one hole keeps the value's type.
pub(crate) fn fill_value(text: &str, params: &Params) -> Result<Value, String> {
    let trimmed = text.trim();
    if trimmed.starts_with('{') && trimmed.ends_with('}') && trimmed.matches('{').count() == 1 {
        return eval_hole(&trimmed[1..trimmed.len() - 1], params, true);
    }
    fill(text, params).map(Value::String)
}

/// Fills every `{...}` hole of a string with its text.
pub fn fill(text: &str, params: &Params) -> Result<String, String> {
    fill_clock(text, params, true)
}

/// [`fill`] with `|time` as a phone with this clock setting shows times (`17:15` or `5:15 PM`),
/// for labels a solution finds on the screen.
pub fn fill_clock(text: &str, params: &Params, h24: bool) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').ok_or_else(|| format!("`{{` without `}}` in `{text}`"))? + open;
        out.push_str(&display(&eval_hole(&rest[open + 1..close], params, h24)?));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Fills the holes of every string inside a JSON value.
pub fn fill_json(value: &Value, params: &Params) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => fill_value(s, params)?,
        Value::Array(list) => Value::Array(list.iter().map(|v| fill_json(v, params)).collect::<Result<_, _>>()?),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| Ok((k.clone(), fill_json(v, params)?))).collect::<Result<_, String>>()?)
        }
        other => other.clone(),
    })
}

/// Distinct instances of a template, counting at most `cap` (seeds are tried up to 4 × cap).
pub fn distinct_instances(template: &TaskTemplate, catalog: &Catalog, cap: usize) -> usize {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..(cap as u64 * 4) {
        if let Ok(params) = instantiate(template, seed, catalog) {
            seen.insert(serde_json::to_string(&params).unwrap_or_default());
        }
        if seen.len() >= cap {
            break;
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn holes_fill_with_values_arithmetic_and_filters() {
        let p: Params = [("hour".to_owned(), json!(7)), ("minute".to_owned(), json!(5)), ("name".to_owned(), json!("Ada Lovelace"))].into();
        assert_eq!(fill("{hour|pad2}:{minute|pad2} for {name|first}", &p).unwrap(), "07:05 for Ada");
        assert_eq!(fill_value("{hour * 60 + minute}", &p).unwrap(), json!(425));
        assert_eq!(fill_value("{(hour + 1) * 60}", &p).unwrap(), json!(480));
        assert!(fill("{nope}", &p).unwrap_err().contains("unknown parameter"));
    }
}
