//! The narrow API handlers get: state, locals, content, system, nav, ui, clock, timer,
//! clipboard, and seeded `math.random` / virtual `os`. Every function works on the
//! [`EventCtx`] of the running event, kept in the Lua state's app data. Whatever crosses into
//! the phone is bounded: values by depth and size, effects by count, texts by length.

use mlua::{Lua, Table, Value as LuaValue};
use phoneworld_data::CivilTime;
use serde_json::Value;

use crate::context::{ClockRead, Effect, EventCtx};
use crate::convert::{self, ValueLimits};
use crate::crossing::{crossing, from_lua, to_lua};
use crate::paths;

/// At most this many effects (navigation, toasts, dialogs, timers, ...) per event.
pub const MAX_EFFECTS_PER_EVENT: usize = 256;
/// Largest value an effect may carry (screen parameters, a dialog, a notification), in bytes.
pub const MAX_EFFECT_BYTES: usize = 64 << 10;
/// Longest text a toast or the clipboard may hold, in bytes.
pub const MAX_TEXT_BYTES: usize = 64 << 10;
/// Longest delay of `timer.after`: a year of virtual time.
pub const MAX_TIMER_MS: u64 = 366 * 24 * 3_600_000;

fn with_ctx<R>(lua: &Lua, f: impl FnOnce(&mut EventCtx) -> mlua::Result<R>) -> mlua::Result<R> {
    let mut ctx =
        lua.app_data_mut::<EventCtx>().ok_or_else(|| mlua::Error::runtime("this function is only available inside an event handler"))?;
    f(&mut ctx)
}

/// A value for an effect, held to the smaller effect limit.
fn effect_value(lua: &Lua, value: LuaValue, what: &str) -> mlua::Result<Value> {
    let (budget, _) = crossing(lua)?;
    convert::from_lua(&budget, ValueLimits { max_bytes: MAX_EFFECT_BYTES }, value)
        .map(|(value, _)| value)
        .map_err(|e| mlua::Error::runtime(format!("{what}: {e}")))
}

/// Longest name or path an API function takes (a state path, a screen, a handler, a URI), in
/// bytes: longer ones are mistakes, and each call would copy and split them.
pub const MAX_NAME_BYTES: usize = 4096;

/// A name or path argument.
struct Name(String);

impl mlua::FromLua for Name {
    fn from_lua(value: LuaValue, lua: &Lua) -> mlua::Result<Name> {
        let type_name = value.type_name();
        let text = lua.coerce_string(value)?.ok_or_else(|| mlua::Error::FromLuaConversionError {
            from: type_name,
            to: "string".into(),
            message: Some("a name or path is a string".into()),
        })?;
        let bytes = text.as_bytes();
        if bytes.len() > MAX_NAME_BYTES {
            return Err(mlua::Error::runtime(format!("a name or path of {} bytes is over the limit of {MAX_NAME_BYTES}", bytes.len())));
        }
        Ok(Name(String::from_utf8_lossy(&bytes).into_owned()))
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn checked_text(text: mlua::String, what: &str) -> mlua::Result<String> {
    let bytes = text.as_bytes();
    if bytes.len() > MAX_TEXT_BYTES {
        return Err(mlua::Error::runtime(format!("{what}: a text of {} bytes is over the limit of {MAX_TEXT_BYTES}", bytes.len())));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

type Which = fn(&mut EventCtx) -> &mut Value;

fn state_of(ctx: &mut EventCtx) -> &mut Value {
    &mut ctx.state
}
fn state_to_write(ctx: &mut EventCtx) -> &mut Value {
    ctx.wrote_state = true;
    &mut ctx.state
}
fn local_of(ctx: &mut EventCtx) -> &mut Value {
    &mut ctx.local
}
fn system_of(ctx: &mut EventCtx) -> &mut Value {
    &mut ctx.system
}

/// `get`, `set`, `insert`, `remove` over one of the context's values: `which` reads it, `to_write`
/// gives it to the writers.
fn value_table(lua: &Lua, which: Which, to_write: Which) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "get",
        lua.create_function(move |lua, path: Option<Name>| {
            let found = with_ctx(lua, |ctx| Ok(paths::get(which(ctx), path.as_deref().unwrap_or(""))?.cloned()))?;
            match found {
                Some(v) => to_lua(lua, &v),
                None => Ok(LuaValue::Nil),
            }
        })?,
    )?;
    t.set(
        "set",
        lua.create_function(move |lua, (path, value): (Name, LuaValue)| {
            let value = from_lua(lua, value)?;
            with_ctx(lua, |ctx| paths::set(to_write(ctx), &path, value))
        })?,
    )?;
    t.set(
        "insert",
        lua.create_function(move |lua, (path, value, pos): (Name, LuaValue, Option<usize>)| {
            let value = from_lua(lua, value)?;
            with_ctx(lua, |ctx| {
                let root = to_write(ctx);
                if paths::get(root, &path)?.is_none() {
                    paths::set(root, &path, Value::Array(Vec::new()))?;
                }
                let list = paths::list_mut(root, &path)?;
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
        lua.create_function(move |lua, (path, pos): (Name, usize)| {
            let removed = with_ctx(lua, |ctx| {
                let list = paths::list_mut(to_write(ctx), &path)?;
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

fn push_effect(lua: &Lua, effect: Effect) -> mlua::Result<()> {
    with_ctx(lua, |ctx| {
        if ctx.effects.len() >= MAX_EFFECTS_PER_EVENT {
            return Err(mlua::Error::runtime(format!(
                "more than {MAX_EFFECTS_PER_EVENT} effects (navigation, toasts, dialogs, timers) in one event"
            )));
        }
        ctx.effects.push(effect);
        Ok(())
    })
}

fn params(lua: &Lua, value: Option<LuaValue>) -> mlua::Result<Value> {
    match value {
        None | Some(LuaValue::Nil) => Ok(Value::Object(serde_json::Map::new())),
        Some(v) => effect_value(lua, v, "parameters"),
    }
}

fn nav_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "push",
        lua.create_function(|lua, (screen, p): (Name, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::Push { screen: screen.0, params })
        })?,
    )?;
    t.set(
        "replace",
        lua.create_function(|lua, (screen, p): (Name, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::Replace { screen: screen.0, params })
        })?,
    )?;
    t.set("pop", lua.create_function(|lua, ()| push_effect(lua, Effect::Pop))?)?;
    t.set("home", lua.create_function(|lua, ()| push_effect(lua, Effect::Home))?)?;
    t.set(
        "open_app",
        lua.create_function(|lua, (app, screen, p): (Name, Option<Name>, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::OpenApp { app: app.0, screen: screen.map(|s| s.0), params })
        })?,
    )?;
    t.set("deep_link", lua.create_function(|lua, uri: Name| push_effect(lua, Effect::DeepLink { uri: uri.0 }))?)?;
    Ok(t)
}

type MakeEffect = fn(Value) -> Effect;

/// An effect taking one table: its name, its fields, the fields holding a list of choices
/// (buttons, options, actions), and how it is queued.
type TableEffect = (&'static str, &'static [&'static str], &'static [&'static str], MakeEffect);

/// The fields of each choice of a dialog, sheet or notification.
const CHOICE_FIELDS: &[&str] = &["text", "icon", "handler", "args"];

/// Functions taking one table (`ui.dialog{...}`) and queueing it as an effect. A field the
/// effect does not know (`titel`) is refused, with the field meant, rather than dropped.
fn table_effects(lua: &Lua, t: &Table, prefix: &'static str, effects: &[TableEffect]) -> mlua::Result<()> {
    for &(name, fields, choice_lists, make) in effects {
        t.set(
            name,
            lua.create_function(move |lua, spec: Table| {
                let what = format!("{prefix}.{name}");
                let value = effect_value(lua, LuaValue::Table(spec), &what)?;
                known_fields(&what, &value, fields)?;
                for list in choice_lists {
                    if let Some(Value::Array(choices)) = value.get(*list) {
                        for choice in choices {
                            known_fields(&format!("{what}: each of `{list}`"), choice, CHOICE_FIELDS)?;
                        }
                    }
                }
                push_effect(lua, make(value))
            })?,
        )?;
    }
    Ok(())
}

/// Refuses a field of `value` (an object) that is not one of `fields`.
fn known_fields(what: &str, value: &Value, fields: &[&str]) -> mlua::Result<()> {
    let Value::Object(map) = value else { return Ok(()) };
    match map.keys().find(|key| !fields.contains(&key.as_str())) {
        None => Ok(()),
        Some(key) => {
            let shown: String = key.chars().take(40).collect();
            let meant = phoneworld_data::did_you_mean(key, fields).map(|f| format!(": did you mean `{f}`?")).unwrap_or_default();
            Err(mlua::Error::runtime(format!("{what}: unknown field `{shown}`{meant} (it takes {})", fields.join(", "))))
        }
    }
}

fn ui_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "toast",
        lua.create_function(|lua, text: mlua::String| {
            let text = checked_text(text, "ui.toast")?;
            push_effect(lua, Effect::Toast { text })
        })?,
    )?;
    table_effects(
        lua,
        &t,
        "ui",
        &[
            ("snackbar", &["text", "action", "handler", "args"], &[], Effect::Snackbar),
            ("dialog", &["title", "text", "buttons"], &["buttons"], Effect::Dialog),
            ("sheet", &["title", "options"], &["options"], Effect::Sheet),
            ("notify", &["title", "text", "icon", "screen", "params", "actions"], &["actions"], Effect::Notify),
            ("share", &["text", "item"], &[], Effect::Share),
        ],
    )?;
    Ok(t)
}

fn clock_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("now", lua.create_function(|lua, ()| with_ctx(lua, |ctx| Ok(ctx.now(ClockRead::Millis))))?)?;
    t.set(
        "minutes",
        lua.create_function(|lua, ()| {
            with_ctx(lua, |ctx| {
                let c = CivilTime::from_ms(ctx.now(ClockRead::Minute));
                Ok(i64::from(c.hour * 60 + c.minute))
            })
        })?,
    )?;
    t.set("today", lua.create_function(|lua, ()| with_ctx(lua, |ctx| Ok(CivilTime::from_ms(ctx.now(ClockRead::Day)).date_string())))?)?;
    // Minutes since midnight as the phone's clock setting shows them (`system.clock_24h`).
    t.set(
        "format_time",
        lua.create_function(|lua, minutes: f64| {
            let minutes = if minutes.is_finite() { minutes.floor().clamp(-1e12, 1e12) as i64 } else { 0 };
            with_ctx(lua, |ctx| Ok(phoneworld_data::format_minutes(minutes, phoneworld_data::clock_24h(&ctx.system))))
        })?,
    )?;
    // Day arithmetic for apps (days since 1970-01-01 and back), so no app carries its own copy.
    t.set(
        "days_from_civil",
        lua.create_function(|_, (y, m, d): (i64, i64, i64)| {
            let (y, m, d) = civil_date(y, m, d)?;
            Ok(phoneworld_data::days_from_civil(y, m, d))
        })?,
    )?;
    t.set("civil_from_days", lua.create_function(|_, days: i64| Ok(phoneworld_data::civil_from_days(in_range(days, MAX_DAYS, "days")?)))?)?;
    Ok(t)
}

fn timer_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "after",
        lua.create_function(|lua, (ms, handler, args): (u64, Name, Option<LuaValue>)| {
            if ms > MAX_TIMER_MS {
                return Err(mlua::Error::runtime(format!("timer.after: {ms} ms is longer than the limit of {MAX_TIMER_MS} ms (a year)")));
            }
            let args = params(lua, args)?;
            let id = with_ctx(lua, |ctx| {
                let id = ctx.next_timer_id;
                ctx.next_timer_id += 1;
                Ok(id)
            })?;
            push_effect(lua, Effect::TimerAfter { id, ms, handler: handler.0, args })?;
            Ok(id)
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
        lua.create_function(|lua, text: mlua::String| {
            let text = checked_text(text, "clipboard.set")?;
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
                (None, _) => Ok(LuaValue::Number(ctx.chance().next_f64())),
                (Some(m), None) if m >= 1 => Ok(LuaValue::Integer(ctx.chance().range(1, m))),
                (Some(m), Some(n)) if n >= m => Ok(LuaValue::Integer(ctx.chance().range(m, n))),
                _ => Err(mlua::Error::runtime("bad argument to 'random' (interval is empty)")),
            })
        })?,
    )?;
    // Seeding is the phone's job; a script cannot reseed.
    math.set("randomseed", lua.create_function(|_, _: mlua::MultiValue| Ok(()))?)?;
    Ok(())
}

/// Day counts the calendar functions accept (about a million years either way): beyond them
/// the arithmetic would overflow.
const MAX_DAYS: i64 = 365_250_000;

fn in_range(value: i64, limit: i64, what: &str) -> mlua::Result<i64> {
    if value.unsigned_abs() > limit.unsigned_abs() {
        return Err(mlua::Error::runtime(format!("{what}: {value} is out of range (at most {limit} either way)")));
    }
    Ok(value)
}

/// A year, month and day the calendar can work with (the day may run past the month's end,
/// as Lua's `os.time` allows).
fn civil_date(year: i64, month: i64, day: i64) -> mlua::Result<(i64, u32, u32)> {
    let year = in_range(year, MAX_DAYS / 366, "year")?;
    if !(1..=12).contains(&month) {
        return Err(mlua::Error::runtime(format!("month {month} is not between 1 and 12")));
    }
    let day = in_range(day, 100_000, "day")?;
    if day < 1 {
        return Err(mlua::Error::runtime(format!("day {day} is before the first of the month")));
    }
    Ok((year, month as u32, day as u32))
}

/// `os.time`, `os.date`, `os.clock` on the virtual clock.
fn os_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "time",
        lua.create_function(|lua, spec: Option<Table>| match spec {
            None => with_ctx(lua, |ctx| Ok(ctx.now(ClockRead::Millis).div_euclid(1000))),
            Some(tbl) => {
                let year: i64 = tbl.get("year")?;
                let month: i64 = tbl.get("month")?;
                let day: i64 = tbl.get("day")?;
                let hour: Option<i64> = tbl.get("hour")?;
                let min: Option<i64> = tbl.get("min")?;
                let sec: Option<i64> = tbl.get("sec")?;
                let (year, month, day) = civil_date(year, month, day)?;
                let days = phoneworld_data::days_from_civil(year, month, day);
                let parts = [hour.unwrap_or(12), min.unwrap_or(0), sec.unwrap_or(0)];
                let [hour, min, sec] = parts.map(|p| in_range(p, MAX_DAYS, "os.time field"));
                Ok(days * 86_400 + hour? * 3600 + min? * 60 + sec?)
            }
        })?,
    )?;
    t.set(
        "date",
        lua.create_function(|lua, (fmt, at): (Option<Name>, Option<i64>)| {
            let ms = match at {
                Some(secs) => in_range(secs, MAX_DAYS * 86_400, "os.date time")? * 1000,
                None => with_ctx(lua, |ctx| Ok(ctx.now(ClockRead::Millis)))?,
            };
            let civil = CivilTime::from_ms(ms);
            let fmt = fmt.map_or_else(|| "%a %b %e %H:%M:%S %Y".to_owned(), |f| f.0);
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
    t.set("clock", lua.create_function(|lua, ()| with_ctx(lua, |ctx| Ok(ctx.now(ClockRead::Millis) as f64 / 1000.0)))?)?;
    Ok(t)
}

/// `host.*`: what a super-app offers its mini-apps, and how it opens them.
fn host_table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "open",
        lua.create_function(|lua, (app, screen, p): (Name, Option<Name>, Option<LuaValue>)| {
            let params = params(lua, p)?;
            push_effect(lua, Effect::OpenMiniApp { app: app.0, screen: screen.map(|s| s.0), params })
        })?,
    )?;
    t.set(
        "profile",
        lua.create_function(|lua, ()| {
            let profile = with_ctx(lua, |ctx| Ok(ctx.host_profile.clone()))?;
            to_lua(lua, &profile)
        })?,
    )?;
    table_effects(
        lua,
        &t,
        "host",
        &[
            ("pay", &["amount", "merchant", "note", "handler", "args"], &[], Effect::Pay),
            ("share_to_chat", &["text"], &[], Effect::ShareToChat),
        ],
    )?;
    Ok(t)
}

/// Builds the API tables (offered to apps read-only by the sandbox) and puts the seeded
/// `math.random` into the math library.
pub(crate) fn build(lua: &Lua) -> mlua::Result<Table> {
    let g = lua.create_table()?;
    g.set("state", value_table(lua, state_of, state_to_write)?)?;
    g.set("locals", value_table(lua, local_of, local_of)?)?;
    g.set("system", value_table(lua, system_of, system_of)?)?;
    let content = lua.create_table()?;
    content.set(
        "get",
        lua.create_function(|lua, path: Option<Name>| {
            let found = with_ctx(lua, |ctx| Ok(paths::get(&ctx.content, path.as_deref().unwrap_or(""))?.cloned()))?;
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
    g.set("map", crate::map_api::table(lua)?)?;
    g.set("os", os_table(lua)?)?;
    let math: Table = lua.globals().get("math")?;
    install_random(lua, &math)?;
    Ok(g)
}
