//! Reading the arguments of library functions written in Rust the way Lua's own `luaL_check*`
//! do, so an app author sees Lua's messages (`bad argument #2 to 'find' (string expected, got
//! nil)`), not the host's.

use mlua::{Lua, Value};

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::Thread(_) => "thread",
        _ => "userdata",
    }
}

pub(crate) fn bad_argument(n: usize, function: &str, message: &str) -> mlua::Error {
    mlua::Error::runtime(format!("bad argument #{n} to '{function}' ({message})"))
}

fn expected(n: usize, function: &str, what: &str, got: Option<&Value>) -> mlua::Error {
    let got = got.map_or("no value", type_name);
    bad_argument(n, function, &format!("{what} expected, got {got}"))
}

/// The arguments of one call, by position (1-based, as Lua numbers them).
pub(crate) struct Args<'a> {
    pub(crate) lua: &'a Lua,
    pub(crate) values: Vec<Value>,
    pub(crate) function: &'static str,
}

impl<'a> Args<'a> {
    pub(crate) fn new(lua: &'a Lua, values: mlua::MultiValue, function: &'static str) -> Args<'a> {
        Args { lua, values: values.into_vec(), function }
    }

    pub(crate) fn get(&self, n: usize) -> Value {
        self.values.get(n - 1).cloned().unwrap_or(Value::Nil)
    }

    /// A string, or a number turned into one (`luaL_checklstring`).
    fn given(&self, n: usize) -> Option<&Value> {
        self.values.get(n - 1)
    }

    pub(crate) fn string(&self, n: usize) -> mlua::Result<mlua::String> {
        let value = self.get(n);
        match &value {
            Value::String(s) => Ok(s.clone()),
            Value::Integer(_) | Value::Number(_) => {
                self.lua.coerce_string(value.clone())?.ok_or_else(|| expected(n, self.function, "string", self.given(n)))
            }
            _ => Err(expected(n, self.function, "string", self.given(n))),
        }
    }

    /// An integer (`luaL_checkinteger`): integral floats and numeric strings are accepted.
    pub(crate) fn integer(&self, n: usize) -> mlua::Result<i64> {
        let value = self.get(n);
        match &value {
            Value::Integer(i) => Ok(*i),
            Value::Number(_) | Value::String(_) => match self.lua.coerce_integer(value.clone())? {
                Some(i) => Ok(i),
                None if self.lua.coerce_number(value.clone())?.is_some() => {
                    Err(bad_argument(n, self.function, "number has no integer representation"))
                }
                None => Err(expected(n, self.function, "number", self.given(n))),
            },
            _ => Err(expected(n, self.function, "number", self.given(n))),
        }
    }

    /// An optional integer (`luaL_optinteger`): nil or absent gives `default`.
    pub(crate) fn opt_integer(&self, n: usize, default: i64) -> mlua::Result<i64> {
        match self.get(n) {
            Value::Nil => Ok(default),
            _ => self.integer(n),
        }
    }
}

/// Lua's `posrelatI`: a 1-based start position, negatives counting from the end, clamped at 1.
pub(crate) fn start_position(pos: i64, len: usize) -> usize {
    if pos > 0 {
        usize::try_from(pos).unwrap_or(usize::MAX)
    } else if pos == 0 || pos.unsigned_abs() > len as u64 {
        1
    } else {
        (len as i64 + pos + 1) as usize
    }
}

/// Lua's `getendpos`: a 1-based end position, negatives counting from the end, clamped to the
/// length.
pub(crate) fn end_position(pos: i64, len: usize) -> usize {
    if pos > len as i64 {
        len
    } else if pos >= 0 {
        pos as usize
    } else if pos.unsigned_abs() > len as u64 {
        0
    } else {
        (len as i64 + pos + 1) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_lua() {
        assert_eq!(start_position(3, 10), 3);
        assert_eq!(start_position(0, 10), 1);
        assert_eq!(start_position(-2, 10), 9);
        assert_eq!(start_position(-20, 10), 1);
        assert_eq!(start_position(i64::MIN, 10), 1);
        assert_eq!(end_position(-1, 10), 10);
        assert_eq!(end_position(20, 10), 10);
        assert_eq!(end_position(-20, 10), 0);
        assert_eq!(end_position(i64::MIN, 10), 0);
    }
}
