//! Values crossing between Lua and the store (JSON), with the limits that keep a hostile
//! handler from growing the host: how deep a value nests, how large it is, and the work of
//! converting it, charged to the event's budget like instructions.

use mlua::{Lua, Table, Value as LuaValue};
use serde_json::{Map, Number, Value};

use crate::budget::{Budget, STRING_BYTES_PER_UNIT};

/// How far a value may nest (tables in tables), both ways.
pub const MAX_VALUE_DEPTH: usize = 64;

/// The limits of one conversion.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValueLimits {
    /// Largest value one call may hand to the phone, in bytes of its JSON text (about).
    pub(crate) max_bytes: usize,
}

/// The approximate size of a JSON value in bytes, the measure every size limit uses.
pub fn value_size(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => items.iter().map(value_size).fold(2, usize::saturating_add),
        Value::Object(map) => {
            map.iter().map(|(k, v)| k.len().saturating_add(value_size(v)).saturating_add(4)).fold(2, usize::saturating_add)
        }
    }
}

struct FromLua<'a> {
    budget: &'a Budget,
    limits: ValueLimits,
    bytes: usize,
    /// Tables on the way from the root to the value being converted (for cycles).
    path: Vec<*const std::ffi::c_void>,
}

fn cannot(message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::runtime(format!("cannot store this value: {message}"))
}

impl FromLua<'_> {
    fn add(&mut self, bytes: usize) -> mlua::Result<()> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.limits.max_bytes {
            return Err(cannot(format_args!("it is larger than {} bytes", self.limits.max_bytes)));
        }
        if !self.budget.charge(1 + bytes as u64 / STRING_BYTES_PER_UNIT) {
            return Err(mlua::Error::runtime(self.budget.stopped_message("converting a value")));
        }
        Ok(())
    }

    fn convert(&mut self, value: LuaValue, at: &mut String) -> mlua::Result<Value> {
        match value {
            LuaValue::Nil => {
                self.add(8)?;
                Ok(Value::Null)
            }
            LuaValue::Boolean(b) => {
                self.add(8)?;
                Ok(Value::Bool(b))
            }
            LuaValue::Integer(i) => {
                self.add(8)?;
                Ok(Value::Number(i.into()))
            }
            LuaValue::Number(n) => {
                self.add(8)?;
                Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
            }
            LuaValue::String(s) => {
                let bytes = s.as_bytes();
                self.add(bytes.len() + 2)?;
                match std::str::from_utf8(&bytes) {
                    Ok(text) => Ok(Value::String(text.to_owned())),
                    Err(e) => Err(cannot(format_args!("{}a string that is not UTF-8 text (byte {})", located(at), e.valid_up_to() + 1))),
                }
            }
            LuaValue::Table(table) => self.table(table, at),
            other => Err(cannot(format_args!("{}a {} cannot be stored", located(at), other.type_name()))),
        }
    }

    fn table(&mut self, table: Table, at: &mut String) -> mlua::Result<Value> {
        let ptr = table.to_pointer();
        if self.path.contains(&ptr) {
            return Err(cannot(format_args!("{}the table contains itself", located(at))));
        }
        if self.path.len() >= MAX_VALUE_DEPTH {
            return Err(cannot(format_args!("{}tables nest more than {MAX_VALUE_DEPTH} deep", located(at))));
        }
        self.add(2)?;
        self.path.push(ptr);
        let result = if table.raw_len() > 0 { self.list(&table, at) } else { self.map(&table, at) };
        self.path.pop();
        result
    }

    fn list(&mut self, table: &Table, at: &mut String) -> mlua::Result<Value> {
        let len = table.raw_len();
        let mut items = Vec::with_capacity(len.min(1024));
        for i in 1..=len {
            let value: LuaValue = table.raw_get(i)?;
            let mark = at.len();
            push_segment(at, &i.to_string());
            items.push(self.convert(value, at)?);
            at.truncate(mark);
        }
        Ok(Value::Array(items))
    }

    fn map(&mut self, table: &Table, at: &mut String) -> mlua::Result<Value> {
        let mut map = Map::new();
        for pair in table.clone().pairs::<LuaValue, LuaValue>() {
            let (key, value) = pair?;
            let key = match key {
                LuaValue::String(s) => match s.to_str() {
                    Ok(k) => k.to_owned(),
                    Err(_) => return Err(cannot(format_args!("{}a key that is not UTF-8 text", located(at)))),
                },
                other => {
                    return Err(cannot(format_args!(
                        "{}a key of type {} (a table is either a list 1..n or a record with string keys)",
                        located(at),
                        other.type_name()
                    )))
                }
            };
            self.add(key.len() + 4)?;
            let mark = at.len();
            push_segment(at, &key);
            let value = self.convert(value, at)?;
            at.truncate(mark);
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

fn push_segment(at: &mut String, segment: &str) {
    if !at.is_empty() {
        at.push('.');
    }
    at.push_str(segment);
}

fn located(at: &str) -> String {
    if at.is_empty() {
        String::new()
    } else {
        format!("at `{at}`: ")
    }
}

/// Lua value to JSON: lists (tables with 1..n) become arrays, other tables objects with string
/// keys, an empty table an empty list (stored data almost always means a list). Also returns
/// the value's size in bytes (as [`value_size`] counts it, about).
pub(crate) fn from_lua(budget: &Budget, limits: ValueLimits, value: LuaValue) -> mlua::Result<(Value, usize)> {
    let mut conversion = FromLua { budget, limits, bytes: 0, path: Vec::new() };
    let mut value = conversion.convert(value, &mut String::new())?;
    empty_tables_as_lists(&mut value, 0);
    Ok((value, conversion.bytes))
}

/// Lua cannot tell `{}` the list from `{}` the map; stored data almost always means a list.
fn empty_tables_as_lists(value: &mut Value, depth: usize) {
    if depth > MAX_VALUE_DEPTH {
        return;
    }
    match value {
        Value::Object(map) if map.is_empty() => *value = Value::Array(Vec::new()),
        Value::Object(map) => map.values_mut().for_each(|v| empty_tables_as_lists(v, depth + 1)),
        Value::Array(list) => list.iter_mut().for_each(|v| empty_tables_as_lists(v, depth + 1)),
        _ => {}
    }
}

/// JSON to a Lua value (null becomes nil), charging the work to the budget. Data read from the
/// store or an app's content is at most as deep as its parsers allow; deeper is refused.
pub(crate) fn to_lua(lua: &Lua, budget: &Budget, value: &Value) -> mlua::Result<LuaValue> {
    match crate::raw::json_to_lua(lua, budget, value, MAX_DATA_DEPTH)? {
        Ok(value) => Ok(value),
        Err(crate::raw::JsonStop::TooDeep) => Err(mlua::Error::runtime(format!("a value nests more than {MAX_DATA_DEPTH} deep"))),
        Err(crate::raw::JsonStop::Budget) => Err(mlua::Error::runtime(budget.stopped_message("reading a value"))),
    }
}

/// How deep data from outside the scripts (content files, task parameters) may nest.
const MAX_DATA_DEPTH: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Data handed to a script comes back as it was; too deep a value or a spent budget stops
    /// the conversion with an error saying which, charging the budget as it goes.
    #[test]
    fn values_cross_into_lua_and_back_within_their_limits() {
        let lua = Lua::new();
        let budget = Budget::new(1_000);
        let value = json!({"name": "Ann", "tags": ["a", "b"], "n": -3, "x": 0.5, "on": true, "gone": null, "deep": {"k": [1, {"z": 2}]}});
        let lua_value = to_lua(&lua, &budget, &value).unwrap();
        assert_eq!(budget.used(), 14, "one unit per value met");
        let (back, _) = from_lua(&budget, ValueLimits { max_bytes: 1 << 20 }, lua_value).unwrap();
        let mut without_null = value.clone();
        without_null.as_object_mut().unwrap().remove("gone");
        assert_eq!(back, without_null, "a null is an absent key in Lua");

        let mut deep = json!(1);
        for _ in 0..=MAX_DATA_DEPTH {
            deep = json!([deep]);
        }
        let err = to_lua(&lua, &Budget::new(1_000), &deep).unwrap_err().to_string();
        assert!(err.contains(&format!("nests more than {MAX_DATA_DEPTH} deep")), "{err}");

        let long = json!((0..100).collect::<Vec<_>>());
        let err = to_lua(&lua, &Budget::new(50), &long).unwrap_err().to_string();
        assert!(err.contains("reading a value"), "{err}");
    }

    #[test]
    fn sizes_count_text_and_structure() {
        assert_eq!(value_size(&json!("abc")), 5);
        assert_eq!(value_size(&json!([1, 2])), 18);
        assert_eq!(value_size(&json!({"a": true})), 15);
    }
}
