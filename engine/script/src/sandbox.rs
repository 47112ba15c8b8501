//! Building one device's sandboxed Lua state: only the string, table, math and utf8 libraries
//! (no io, os, package, debug or coroutine, no loading of code or bytecode), library functions
//! that do work inside C charged to the budget, and `sandbox.lua`, which hands apps read-only
//! views of everything shared and runs each event in a fresh environment.

use std::sync::Arc;

use mlua::{Function, Lua, LuaOptions, StdLib, Table, Value};

use crate::budget::Budget;
use crate::strlib::{self, StrLib, MAX_RESULTS};

const SANDBOX_LUA: &str = include_str!("sandbox.lua");

/// What the host calls into (see `sandbox.lua`): building an app's world, running an event in
/// it, checking after the event that the world is as it was built, listing an app's handlers.
pub(crate) struct Sandbox {
    pub(crate) prepare: Function,
    pub(crate) run_event: Function,
    pub(crate) record_of: Function,
    pub(crate) forget: Function,
    pub(crate) handler_names: Function,
}

/// A whole number, as Lua's integer arguments accept it (`3` or `3.0`).
fn whole(value: &Value) -> Option<i64> {
    match *value {
        Value::Integer(i) => Some(i),
        Value::Number(n) if n.fract() == 0.0 && n >= -(2f64.powi(63)) && n < 2f64.powi(63) => Some(n as i64),
        _ => None,
    }
}

/// Charges the work of a range `first..=last` of list positions (moving, concatenating or
/// returning them), refusing more than `cap` results. Arguments Lua would refuse are left to
/// the library function's own error.
fn charge_range(budget: &Budget, first: Value, last: Value, cap: Option<usize>, what: &str) -> mlua::Result<()> {
    let (Some(first), Some(last)) = (whole(&first), whole(&last)) else { return Ok(()) };
    let count = i128::from(last) - i128::from(first) + 1;
    if count <= 0 {
        return Ok(());
    }
    if let Some(cap) = cap {
        if count > cap as i128 {
            return Err(mlua::Error::runtime(format!("{what}: too many results ({count}; at most {cap})")));
        }
    }
    budget.charge_or_stop(what, u64::try_from(count).unwrap_or(u64::MAX))
}

/// `%p` prints an address, which differs between runs.
fn format_problem(format: &[u8]) -> Option<&'static str> {
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if format.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while i < format.len() && (b"-+ #0.".contains(&format[i]) || format[i].is_ascii_digit()) {
            i += 1;
        }
        if format.get(i) == Some(&b'p') {
            return Some("%p is not available: addresses differ between runs");
        }
        i += 1;
    }
    None
}

fn host_functions(lua: &Lua, budget: &Arc<Budget>, api: Table) -> mlua::Result<Table> {
    let host = lua.create_table()?;
    let b = Arc::clone(budget);
    host.set("budget_spent", lua.create_function(move |_, ()| Ok(b.spent()))?)?;
    let b = Arc::clone(budget);
    host.set("charge", lua.create_function(move |_, units: i64| b.charge_or_stop("a library function", units.max(0) as u64))?)?;
    let b = Arc::clone(budget);
    host.set(
        "charge_range",
        lua.create_function(move |_, (first, last, cap, what): (Value, Value, Option<usize>, String)| {
            charge_range(&b, first, last, cap, &what)
        })?,
    )?;
    let b = Arc::clone(budget);
    host.set(
        "charge_span",
        lua.create_function(move |_, (s, i, j, cap, what): (Value, Value, Value, Option<usize>, String)| {
            let Value::String(s) = s else { return Ok(()) };
            let len = s.as_bytes().len();
            let Some(i) = (if i.is_nil() { Some(1) } else { whole(&i) }) else { return Ok(()) };
            let Some(j) = (if j.is_nil() { Some(i) } else { whole(&j) }) else { return Ok(()) };
            let first = strlib::start_position(i, len) as i64;
            let last = strlib::end_position(j, len) as i64;
            charge_range(&b, Value::Integer(first), Value::Integer(last), cap, &what)
        })?,
    )?;
    // The real metatable of a table, past a `__metatable` field (for `tostring` and `pairs`).
    host.set("metatable_of", lua.create_function(|_, value: Value| Ok(if let Value::Table(t) = value { t.metatable() } else { None }))?)?;
    host.set(
        "format_problem",
        lua.create_function(|_, format: Value| Ok(if let Value::String(s) = format { format_problem(&s.as_bytes()) } else { None }))?,
    )?;
    // The name meant by a misspelled one, among `names` (for `lib.text.trimm`).
    host.set(
        "suggest",
        lua.create_function(|_, (name, names): (String, Vec<String>)| {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            Ok(phoneworld_data::did_you_mean(&name, &names).map(str::to_owned))
        })?,
    )?;
    host.set("max_results", MAX_RESULTS)?;
    host.set("api", api)?;
    Ok(host)
}

/// Makes the Lua state of one device. `api` holds the phone's tables (`state`, `nav`, `ui`,
/// ...) to be offered to apps read-only.
#[allow(unsafe_code)]
pub(crate) fn new_state(budget: &Arc<Budget>, max_string_bytes: usize) -> mlua::Result<Lua> {
    let libs = StdLib::STRING | StdLib::TABLE | StdLib::MATH | StdLib::UTF8 | StdLib::DEBUG;
    // SAFETY: the debug library is taken by `sandbox.lua` into locals of its own and removed
    // from the globals before any app's code runs; apps never see it.
    let lua = unsafe { Lua::unsafe_new_with(libs, LuaOptions::new()) };
    let string: Table = lua.globals().get("string")?;
    let lib = StrLib { budget: Arc::clone(budget), max_string_bytes, nested: Arc::default() };
    strlib::install(&lua, &string, &lib)?;
    Ok(lua)
}

/// Runs `sandbox.lua` over the state, once the API is installed.
pub(crate) fn seal(lua: &Lua, budget: &Arc<Budget>, api: Table) -> mlua::Result<Sandbox> {
    let host = host_functions(lua, budget, api)?;
    let functions: Table = lua.load(SANDBOX_LUA).set_name("=sandbox").call(host)?;
    Ok(Sandbox {
        prepare: functions.get("prepare")?,
        run_event: functions.get("run_event")?,
        record_of: functions.get("record_of")?,
        forget: functions.get("forget")?,
        handler_names: functions.get("handler_names")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_pointer_conversions() {
        assert!(format_problem(b"%p").is_some());
        assert!(format_problem(b"x %-10p").is_some());
        assert!(format_problem(b"100%% %d").is_none());
        assert!(format_problem(b"%%p").is_none());
        assert!(format_problem(b"%5.2f %s").is_none());
    }
}
