//! `map.*`: what a handler may ask of its app's city (see the manifest's `map`): where a place
//! or the user is, and the route between two places along the streets. Ids are the places'
//! `id`s; 0 is the user's location. Coordinates are metres (x east, y south).

use mlua::{Lua, Table, Value as LuaValue};
use serde_json::{json, Value};

use crate::crossing::to_lua;

fn with_city<R>(lua: &Lua, f: impl FnOnce(&phoneworld_map::City) -> R) -> mlua::Result<Option<R>> {
    let ctx = lua
        .app_data_ref::<crate::context::EventCtx>()
        .ok_or_else(|| mlua::Error::runtime("this function is only available inside an event handler"))?;
    Ok(ctx.map.as_deref().map(f))
}

fn point(p: phoneworld_map::P) -> Value {
    json!({ "x": (p.x * 10.0).round() / 10.0, "y": (p.y * 10.0).round() / 10.0 })
}

/// The zoom at which a box of `w`×`h` metres fits a map of about 360×280 dp.
fn fit_zoom(w: f64, h: f64) -> u8 {
    (phoneworld_map::MIN_ZOOM..=17)
        .rev()
        .find(|&z| {
            let s = 2f64.powi(i32::from(z) - 16);
            w * s <= 330.0 && h * s <= 250.0
        })
        .unwrap_or(phoneworld_map::MIN_ZOOM)
}

fn out(lua: &Lua, v: Option<Value>) -> mlua::Result<LuaValue> {
    match v {
        Some(v) => to_lua(lua, &v),
        None => Ok(LuaValue::Nil),
    }
}

pub(crate) fn table(lua: &Lua) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set(
        "place",
        lua.create_function(|lua, id: Option<i64>| {
            let v = with_city(lua, |c| match id {
                Some(0) => Some(point(c.home)),
                Some(id) => c.pin(id).map(|p| point(p.pos)),
                None => None,
            })?;
            out(lua, v.flatten())
        })?,
    )?;
    t.set(
        "route",
        lua.create_function(|lua, (from, to): (Option<i64>, Option<i64>)| {
            let v = with_city(lua, |c| {
                let r = c.route(from?, to?)?;
                let (lo, hi) =
                    r.points.iter().fold(((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY)), |(lo, hi), p| {
                        ((lo.0.min(p.x), lo.1.min(p.y)), (hi.0.max(p.x), hi.1.max(p.y)))
                    });
                let centre = phoneworld_map::P::new((lo.0 + hi.0) / 2.0, (lo.1 + hi.1) / 2.0);
                let mut camera = point(centre);
                camera["zoom"] = json!(fit_zoom(hi.0 - lo.0, hi.1 - lo.1));
                let steps: Vec<Value> =
                    r.steps.iter().map(|s| json!({ "street": s.street, "turn": s.turn, "meters": s.meters.round() })).collect();
                Some(json!({ "meters": r.meters.round(), "steps": steps, "camera": camera }))
            })?;
            out(lua, v.flatten())
        })?,
    )?;
    Ok(t)
}
