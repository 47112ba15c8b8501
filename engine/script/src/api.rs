//! The narrow API handlers get: state, locals, content, system, nav, ui, clock, timer,
//! clipboard, and seeded `math.random` / virtual `os`. Every function works on the
//! [`EventCtx`] of the running event, kept in the Lua state's app data.

use mlua::{DeserializeOptions, Lua, LuaSerdeExt, SerializeOptions, Table, Value as LuaValue};
use phoneworld_data::CivilTime;
use serde_json::Value;

use crate::context::{Effect, EventCtx};
use crate::paths::{get_lua_path, set_lua_path};

fn with_ctx<R>(lua: &Lua, f: impl FnOnce(&mut EventCtx) -> mlua::Result<R>) -> mlua::Result<R> {
    let mut ctx =
        lua.app_data_mut::<EventCtx>().ok_or_else(|| mlua::Error::runtime("this function is only available inside an event handler"))?;
    f(&mut ctx)
}

pub(crate) fn to_lua(lua: &Lua, value: &Value) -> mlua::Result<LuaValue> {
    lua.to_value_with(value, SerializeOptions::new().serialize_none_to_null(false).serialize_unit_to_null(false))
}

pub(crate) fn from_lua(lua: &Lua, value: LuaValue) -> mlua::Result<Value> {
    let mut value = lua
        .from_value_with(value, DeserializeOptions::new().deny_recursive_tables(true))
        .map_err(|e| mlua::Error::runtime(format!("cannot store this value: {e}")))?;
    empty_tables_as_lists(&mut value);
    Ok(value)
}

/// Lua cannot tell `{}` the list from `{}` the map; stored data almost always means a list.
fn empty_tables_as_lists(value: &mut Value) {
    match value {
        Value::Object(map) if map.is_empty() => *value = Value::Array(Vec::new()),
        Value::Object(map) => map.values_mut().for_each(empty_tables_as_lists),
        Value::Array(list) => list.iter_mut().for_each(empty_tables_as_lists),
        _ => {}
    }
}

type Which = fn(&mut EventCtx) -> &mut Value;

fn state_of(ctx: &mut EventCtx) -> &mut Value {
    &mut ctx.state
}
fn local_of(ctx: &mut EventCtx) -> &mut Value {
    &mut ctx.local
}
fn system_of(ctx: &mut EventCtx) -> &mut Value {
    &mut ctx.system
}

/// `get`, `set`, `insert`, `remove` over one of the context's values.
fn value_table(lua: &Lua, which: Which, writable: bool) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "get",
        lua.create_function(move |lua, path: Option<String>| {
            let found = with_ctx(lua, |ctx| Ok(get_lua_path(which(ctx), path.as_deref().unwrap_or("")).cloned()))?;
            match found {
                Some(v) => to_lua(lua, &v),
                None => Ok(LuaValue::Nil),
            }
        })?,
    )?;
    if !writable {
        return Ok(t);
    }
    t.set(
        "set",
        lua.create_function(move |lua, (path, value): (String, LuaValue)| {
            let value = from_lua(lua, value)?;
            with_ctx(lua, |ctx| set_lua_path(which(ctx), &path, value).map_err(mlua::Error::runtime))
        })?,
    )?;
    t.set(
        "insert",
        lua.create_function(move |lua, (path, value, pos): (String, LuaValue, Option<usize>)| {
            let value = from_lua(lua, value)?;
            with_ctx(lua, |ctx| {
                let root = which(ctx);
                if get_lua_path(root, &path).is_none() {
                    set_lua_path(root, &path, Value::Array(Vec::new())).map_err(mlua::Error::runtime)?;
                }
                let list = lua_path_mut(root, &path)
                    .and_then(Value::as_array_mut)
                    .ok_or_else(|| mlua::Error::runtime(format!("`{path}` is not a list")))?;
                let at = pos.map_or(list.len(), |p| p.saturating_sub(1));
                if at > list.len() {
                    return Err(mlua::Error::runtime(format!("position {} is outside `{path}` ({} items)", at + 1, list.len())));
                }
                list.insert(at, value);
                Ok(())
            })
        })?,
    )?;
    t.set(
        "remove",
        lua.create_function(move |lua, (path, pos): (String, usize)| {
            let removed = with_ctx(lua, |ctx| {
                let list = lua_path_mut(which(ctx), &path)
                    .and_then(Value::as_array_mut)
                    .ok_or_else(|| mlua::Error::runtime(format!("`{path}` is not a list")))?;
                if pos == 0 || pos > list.len() {
                    return Err(mlua::Error::runtime(format!("position {pos} is outside `{path}` ({} items)", list.len())));
                }
                Ok(list.remove(pos - 1))
            })?;
            to_lua(lua, &removed)
        })?,
    )?;
    Ok(t)
}

fn lua_path_mut<'v>(root: &'v mut Value, path: &str) -> Option<&'v mut Value> {
    let mut value = root;
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        value = match value {
            Value::Object(map) => map.get_mut(seg)?,
            Value::Array(list) => {
                let n: usize = seg.parse().ok()?;
                list.get_mut(n.checked_sub(1)?)?
            }
            _ => return None,
        };
    }
    Some(value)
}

fn push_effect(lua: &Lua, effect: Effect) -> mlua::Result<()> {
    with_ctx(lua, |ctx| {
        ctx.effects.push(effect);
        Ok(())
    })
}

fn params(lua: &Lua, value: Option<LuaValue>) -> mlua::Result<Value> {
    match value {
        None | Some(LuaValue::Nil) => Ok(Value::Object(serde_json::Map::new())),
        Some(v) => from_lua(lua, v),
    }
}

fn nav_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "push",
        lua.create_function(|lua, (screen, p): (String, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::Push { screen, params })
        })?,
    )?;
    t.set(
        "replace",
        lua.create_function(|lua, (screen, p): (String, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::Replace { screen, params })
        })?,
    )?;
    t.set("pop", lua.create_function(|lua, ()| push_effect(lua, Effect::Pop))?)?;
    t.set("home", lua.create_function(|lua, ()| push_effect(lua, Effect::Home))?)?;
    t.set(
        "open_app",
        lua.create_function(|lua, (app, screen, p): (String, Option<String>, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::OpenApp { app, screen, params })
        })?,
    )?;
    t.set("deep_link", lua.create_function(|lua, uri: String| push_effect(lua, Effect::DeepLink { uri }))?)?;
    Ok(t)
}

type MakeEffect = fn(Value) -> Effect;

/// Functions taking one table (`ui.dialog{...}`) and queueing it as an effect.
fn table_effects(lua: &Lua, t: &Table, effects: &[(&str, MakeEffect)]) -> mlua::Result<()> {
    for &(name, make) in effects {
        t.set(
            name,
            lua.create_function(move |lua, spec: Table| {
                let value = from_lua(lua, LuaValue::Table(spec))?;
                push_effect(lua, make(value))
            })?,
        )?;
    }
    Ok(())
}

fn ui_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("toast", lua.create_function(|lua, text: String| push_effect(lua, Effect::Toast { text }))?)?;
    table_effects(
        lua,
        &t,
        &[
            ("snackbar", Effect::Snackbar),
            ("dialog", Effect::Dialog),
            ("sheet", Effect::Sheet),
            ("notify", Effect::Notify),
            ("share", Effect::Share),
        ],
    )?;
    Ok(t)
}

fn clock_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("now", lua.create_function(|lua, ()| with_ctx(lua, |ctx| Ok(ctx.now_ms)))?)?;
    t.set(
        "minutes",
        lua.create_function(|lua, ()| {
            with_ctx(lua, |ctx| {
                let c = CivilTime::from_ms(ctx.now_ms);
                Ok(i64::from(c.hour * 60 + c.minute))
            })
        })?,
    )?;
    t.set("today", lua.create_function(|lua, ()| with_ctx(lua, |ctx| Ok(CivilTime::from_ms(ctx.now_ms).date_string())))?)?;
    // Day arithmetic for apps (days since 1970-01-01 and back), so no app carries its own copy.
    t.set("days_from_civil", lua.create_function(|_, (y, m, d): (i64, u32, u32)| Ok(phoneworld_data::days_from_civil(y, m, d)))?)?;
    t.set("civil_from_days", lua.create_function(|_, days: i64| Ok(phoneworld_data::civil_from_days(days)))?)?;
    Ok(t)
}

fn timer_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "after",
        lua.create_function(|lua, (ms, handler, args): (u64, String, Option<LuaValue>)| {
            let args = params(lua, args)?;
            with_ctx(lua, |ctx| {
                let id = ctx.next_timer_id;
                ctx.next_timer_id += 1;
                ctx.effects.push(Effect::TimerAfter { id, ms, handler, args });
                Ok(id)
            })
        })?,
    )?;
    t.set("cancel", lua.create_function(|lua, id: u64| push_effect(lua, Effect::TimerCancel { id }))?)?;
    Ok(t)
}

fn clipboard_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("get", lua.create_function(|lua, ()| with_ctx(lua, |ctx| Ok(ctx.clipboard.clone())))?)?;
    t.set(
        "set",
        lua.create_function(|lua, text: String| {
            with_ctx(lua, |ctx| {
                ctx.clipboard = text;
                Ok(())
            })
        })?,
    )?;
    Ok(t)
}

/// `math.random` drawing from the device's seeded generator, with Lua's argument rules.
fn install_random(lua: &Lua, math: &Table) -> mlua::Result<()> {
    math.set(
        "random",
        lua.create_function(|lua, (m, n): (Option<i64>, Option<i64>)| {
            with_ctx(lua, |ctx| match (m, n) {
                (None, _) => Ok(LuaValue::Number(ctx.rng.next_f64())),
                (Some(m), None) if m >= 1 => Ok(LuaValue::Integer(ctx.rng.range(1, m))),
                (Some(m), Some(n)) if n >= m => Ok(LuaValue::Integer(ctx.rng.range(m, n))),
                _ => Err(mlua::Error::runtime("bad argument to 'random' (interval is empty)")),
            })
        })?,
    )?;
    // Seeding is the phone's job; a script cannot reseed.
    math.set("randomseed", lua.create_function(|_, _: mlua::MultiValue| Ok(()))?)?;
    Ok(())
}

/// `os.time`, `os.date`, `os.clock` on the virtual clock.
fn os_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "time",
        lua.create_function(|lua, spec: Option<Table>| match spec {
            None => with_ctx(lua, |ctx| Ok(ctx.now_ms.div_euclid(1000))),
            Some(tbl) => {
                let year: i64 = tbl.get("year")?;
                let month: u32 = tbl.get("month")?;
                let day: u32 = tbl.get("day")?;
                let hour: Option<i64> = tbl.get("hour")?;
                let min: Option<i64> = tbl.get("min")?;
                let sec: Option<i64> = tbl.get("sec")?;
                let days = phoneworld_data::days_from_civil(year, month, day);
                Ok(days * 86_400 + hour.unwrap_or(12) * 3600 + min.unwrap_or(0) * 60 + sec.unwrap_or(0))
            }
        })?,
    )?;
    t.set(
        "date",
        lua.create_function(|lua, (fmt, at): (Option<String>, Option<i64>)| {
            let ms = match at {
                Some(secs) => secs * 1000,
                None => with_ctx(lua, |ctx| Ok(ctx.now_ms))?,
            };
            let civil = CivilTime::from_ms(ms);
            let fmt = fmt.unwrap_or_else(|| "%a %b %e %H:%M:%S %Y".to_owned());
            let fmt = fmt.strip_prefix('!').unwrap_or(&fmt);
            if fmt.starts_with("*t") {
                let tbl = lua.create_table()?;
                tbl.set("year", civil.year)?;
                tbl.set("month", civil.month)?;
                tbl.set("day", civil.day)?;
                tbl.set("hour", civil.hour)?;
                tbl.set("min", civil.minute)?;
                tbl.set("sec", civil.second)?;
                tbl.set("wday", (civil.weekday + 1) % 7 + 1)?;
                tbl.set("yday", civil.yday)?;
                tbl.set("isdst", false)?;
                return Ok(LuaValue::Table(tbl));
            }
            Ok(LuaValue::String(lua.create_string(civil.format(fmt))?))
        })?,
    )?;
    t.set("clock", lua.create_function(|lua, ()| with_ctx(lua, |ctx| Ok(ctx.now_ms as f64 / 1000.0)))?)?;
    Ok(t)
}

/// `host.*`: what a super-app offers its mini-apps, and how it opens them.
fn host_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "open",
        lua.create_function(|lua, (app, screen, p): (String, Option<String>, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::OpenMiniApp { app, screen, params })
        })?,
    )?;
    t.set(
        "profile",
        lua.create_function(|lua, ()| {
            let profile = with_ctx(lua, |ctx| Ok(ctx.host_profile.clone()))?;
            to_lua(lua, &profile)
        })?,
    )?;
    table_effects(lua, &t, &[("pay", Effect::Pay), ("share_to_chat", Effect::ShareToChat)])?;
    Ok(t)
}

/// Installs the whole API into the globals shared by every app environment.
pub(crate) fn install(lua: &Lua) -> mlua::Result<()> {
    let g = lua.globals();
    g.set("state", value_table(lua, state_of, true)?)?;
    g.set("locals", value_table(lua, local_of, true)?)?;
    g.set("system", value_table(lua, system_of, true)?)?;
    let content = lua.create_table()?;
    content.set(
        "get",
        lua.create_function(|lua, path: Option<String>| {
            let found = with_ctx(lua, |ctx| Ok(get_lua_path(&ctx.content, path.as_deref().unwrap_or("")).cloned()))?;
            found.map_or(Ok(LuaValue::Nil), |v| to_lua(lua, &v))
        })?,
    )?;
    g.set("content", content)?;
    g.set("nav", nav_table(lua)?)?;
    g.set("ui", ui_table(lua)?)?;
    g.set("clock", clock_table(lua)?)?;
    g.set("timer", timer_table(lua)?)?;
    g.set("clipboard", clipboard_table(lua)?)?;
    g.set("host", host_table(lua)?)?;
    g.set("os", os_table(lua)?)?;
    let math: Table = g.get("math")?;
    install_random(lua, &math)?;
    Ok(())
}
