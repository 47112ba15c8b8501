//! How values cross between Lua and the store inside an event: through the event's budget and
//! the value limits, counting what is written into the store.

use std::sync::Arc;

use mlua::{Lua, Value as LuaValue};
use serde_json::Value;

use crate::budget::Budget;
use crate::convert::{self, ValueLimits};

/// What the API functions need besides the event: the budget and the value limits.
pub(crate) struct Crossing {
    pub(crate) budget: Arc<Budget>,
    pub(crate) limits: ValueLimits,
    /// Bytes written into the store by the running event (state, locals, system).
    pub(crate) written: std::sync::atomic::AtomicUsize,
}

pub(crate) fn crossing(lua: &Lua) -> mlua::Result<(Arc<Budget>, ValueLimits)> {
    let c = lua.app_data_ref::<Crossing>().ok_or_else(|| mlua::Error::runtime("the sandbox is not set up"))?;
    Ok((Arc::clone(&c.budget), c.limits))
}

pub(crate) fn to_lua(lua: &Lua, value: &Value) -> mlua::Result<LuaValue> {
    let (budget, _) = crossing(lua)?;
    convert::to_lua(lua, &budget, value)
}

/// What a handler returned (a service's answer, a view): data, held to the value limits, but
/// no write into the store.
pub(crate) fn answer_from_lua(lua: &Lua, value: LuaValue) -> mlua::Result<Value> {
    let (budget, limits) = crossing(lua)?;
    convert::from_lua(&budget, limits, value).map(|(value, _)| value)
}

/// A value written into the store; its size counts towards the event's writes.
pub(crate) fn from_lua(lua: &Lua, value: LuaValue) -> mlua::Result<Value> {
    let (budget, limits) = crossing(lua)?;
    let (value, bytes) = convert::from_lua(&budget, limits, value)?;
    if let Some(c) = lua.app_data_ref::<Crossing>() {
        c.written.fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
    }
    Ok(value)
}
