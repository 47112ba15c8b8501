//! The unsafe corner of the workspace: what safe Rust cannot reach in a Lua state, or reaches
//! too slowly for every event: metering the strings Lua builds, restarting the instruction
//! count of the budget hook, checking that an app's world is as built, and building Lua tables
//! from JSON on the stack (mlua's tables hold a registry reference each, which cost more than
//! the conversion itself when a handler reads the whole state).
//!
//! Metering the strings Lua builds. One VM instruction can copy megabytes (`s .. s`,
//! `s:upper()`, `table.concat`) and no hook runs inside it, so counting instructions alone
//! lets a short loop run for hours. Every new string goes through the allocator with its size,
//! so wrapping mlua's allocator charges those bytes to the event's budget at the moment they
//! are asked for, and refuses them once the budget is spent. Only long strings are metered:
//! short ones are interned, and whether an allocation happens for them depends on what earlier
//! events left in the state, which must not decide where an event stops.
//!
//! Lua's allocator hook is a C function pointer with a user-data pointer, which safe Rust cannot
//! install.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

use mlua::{ffi, Lua};

use crate::budget::{Budget, STRING_BYTES_PER_UNIT};

/// Strings of at least this many bytes (with Lua's header) are metered.
const METERED_STRING_BYTES: usize = 256;

/// The wrapper's state: mlua's allocator and its user data, and what is being counted.
pub(crate) struct AllocMeter {
    inner: ffi::lua_Alloc,
    inner_ud: usize,
    budget: Arc<Budget>,
    /// Bytes asked for since the last [`AllocMeter::take_allocated`], to pace the collector.
    allocated: AtomicU64,
    /// The state (for the position of a refused allocation; Lua reports none for it).
    state: usize,
    /// Where the script was when an allocation was refused.
    refused_at: Mutex<Option<(String, u32)>>,
}

impl AllocMeter {
    /// Bytes allocated since the last call.
    pub(crate) fn take_allocated(&self) -> u64 {
        self.allocated.swap(0, Ordering::Relaxed)
    }

    /// The file and line of the script that asked for the last refused allocation.
    pub(crate) fn take_refused_at(&self) -> Option<(String, u32)> {
        self.refused_at.lock().ok().and_then(|mut at| at.take())
    }

    /// Notes the innermost Lua function running, without allocating in Lua (called from
    /// inside the allocator).
    fn note_position(&self) {
        let state = self.state as *mut ffi::lua_State;
        for level in 0..16 {
            // SAFETY: `lua_getstack` and `lua_getinfo` with "Sl" read the call stack and the
            // function's debug information into `ar`; neither allocates nor raises.
            let found = unsafe {
                let mut ar: ffi::lua_Debug = std::mem::MaybeUninit::zeroed().assume_init();
                if ffi::lua_getstack(state, level, &mut ar) == 0 {
                    return;
                }
                ffi::lua_getinfo(state, c"Sl".as_ptr(), &mut ar);
                (ar.currentline > 0).then(|| {
                    let src = std::ffi::CStr::from_ptr(ar.short_src.as_ptr()).to_string_lossy().into_owned();
                    (src, ar.currentline as u32)
                })
            };
            if let Some((src, line)) = found.filter(|(src, _)| src != "sandbox") {
                if let Ok(mut at) = self.refused_at.lock() {
                    *at = Some((src, line));
                }
                return;
            }
        }
    }
}

unsafe extern "C-unwind" fn metered(ud: *mut c_void, ptr: *mut c_void, osize: usize, nsize: usize) -> *mut c_void {
    // SAFETY: `ud` is the `AllocMeter` installed with this function; it outlives the state's
    // use of it (see `uninstall`).
    let meter = unsafe { &*(ud as *const AllocMeter) };
    if nsize > 0 {
        let grown = if ptr.is_null() { nsize } else { nsize.saturating_sub(osize) };
        meter.allocated.fetch_add(grown as u64, Ordering::Relaxed);
        // For a new object Lua passes its type in `osize`.
        let new_string = ptr.is_null() && osize == ffi::LUA_TSTRING as usize;
        if new_string && nsize >= METERED_STRING_BYTES && !meter.budget.charge(nsize as u64 / STRING_BYTES_PER_UNIT) {
            meter.note_position();
            return std::ptr::null_mut();
        }
    }
    // SAFETY: forwarding the call unchanged to the allocator the state was created with.
    let block = unsafe { (meter.inner)(meter.inner_ud as *mut c_void, ptr, osize, nsize) };
    if block.is_null() && nsize > 0 {
        // Over the memory limit.
        meter.note_position();
    }
    block
}

/// Wraps the state's allocator. The returned meter must stay alive until [`uninstall`].
pub(crate) fn install(lua: &Lua, budget: Arc<Budget>) -> mlua::Result<Box<AllocMeter>> {
    let mut found: Option<(ffi::lua_Alloc, usize, usize)> = None;
    // SAFETY: reads the state's allocator; no Lua value is touched.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            let mut ud: *mut c_void = std::ptr::null_mut();
            let f = ffi::lua_getallocf(state, &mut ud);
            found = Some((f, ud as usize, state as usize));
        })?;
    }
    let (inner, inner_ud, state) = found.ok_or_else(|| mlua::Error::runtime("the Lua state has no allocator"))?;
    let meter = Box::new(AllocMeter { inner, inner_ud, budget, allocated: AtomicU64::new(0), state, refused_at: Mutex::new(None) });
    let ud = &*meter as *const AllocMeter as *mut c_void;
    // SAFETY: `metered` forwards every call to the previous allocator, and `meter` is kept by
    // the caller until `uninstall` puts the previous allocator back.
    unsafe {
        lua.exec_raw::<()>((), |state| ffi::lua_setallocf(state, metered, ud))?;
    }
    Ok(meter)
}

/// Puts mlua's own allocator back, so the state can be closed after the meter is gone.
pub(crate) fn uninstall(lua: &Lua, meter: &AllocMeter) {
    // SAFETY: restores exactly the allocator and user data that were there before `install`.
    let _ = unsafe { lua.exec_raw::<()>((), |state| ffi::lua_setallocf(state, meter.inner, meter.inner_ud as *mut c_void)) };
}

/// Restarts the countdown of the instruction hook, so every event is counted from its first
/// instruction: otherwise the first hook call of an event comes after whatever was left of the
/// last event's count, and where a long event stops would depend on the events before it.
pub(crate) fn restart_hook_count(lua: &Lua) {
    // SAFETY: reads the hook, its mask and its count, and sets the same three again, which
    // restarts the count; the hook function itself is mlua's and stays installed.
    let _ = unsafe {
        lua.exec_raw::<()>((), |state| {
            let (hook, mask, count) = (ffi::lua_gethook(state), ffi::lua_gethookmask(state), ffi::lua_gethookcount(state));
            ffi::lua_sethook(state, hook, mask, count);
        })
    };
}

/// Whether an app's world is as `sandbox.lua` recorded it when it was built: every upvalue
/// cell holds the same value, every recorded table the same keys, values and metatable. Done
/// here rather than in Lua because it runs after every event, and in Lua each of its calls
/// would pay the instruction hook.
pub(crate) fn world_unchanged(lua: &Lua, record: &mlua::Table) -> bool {
    // SAFETY: only reads: the record's arrays with `lua_rawgeti`, upvalues with
    // `lua_getupvalue`, metatables with `lua_getmetatable`, tables with `lua_next` (none of
    // them modified meanwhile); every comparison is raw, so no metamethod runs. The stack is
    // checked before it grows and left with the one boolean `exec_raw` returns.
    let same = unsafe {
        lua.exec_raw::<bool>(record, |state| {
            let same = ffi::lua_checkstack(state, 8) != 0 && cells_unchanged(state) && tables_unchanged(state);
            ffi::lua_settop(state, 0);
            ffi::lua_pushboolean(state, i32::from(same));
        })
    };
    same.unwrap_or(false)
}

/// `record[1]`: (function, upvalue index, value) triples, `record[3]` entries long (a nil
/// value is a hole, so the array's length cannot be asked). The record is at index 1.
unsafe fn cells_unchanged(state: *mut ffi::lua_State) -> bool {
    // SAFETY (for the whole body): see `world_unchanged`.
    unsafe {
        ffi::lua_rawgeti(state, 1, 3);
        let n = ffi::lua_tointegerx(state, 2, std::ptr::null_mut());
        ffi::lua_settop(state, 1);
        ffi::lua_rawgeti(state, 1, 1);
        let mut i = 1;
        while i + 2 <= n {
            ffi::lua_rawgeti(state, 2, i); // 3: function
            ffi::lua_rawgeti(state, 2, i + 1); // 4: upvalue index
            let index = ffi::lua_tointegerx(state, 4, std::ptr::null_mut()) as std::ffi::c_int;
            let found = !ffi::lua_getupvalue(state, 3, index).is_null(); // 5: its value
            let same = found && {
                ffi::lua_rawgeti(state, 2, i + 2); // 6: the value recorded
                ffi::lua_rawequal(state, 5, 6) != 0
            };
            ffi::lua_settop(state, 2);
            if !same {
                return false;
            }
            i += 3;
        }
        ffi::lua_settop(state, 1);
        true
    }
}

/// `record[2]`: (table, copy, metatable or false, entry count) quadruples. The record is at
/// index 1.
unsafe fn tables_unchanged(state: *mut ffi::lua_State) -> bool {
    // SAFETY (for the whole body): see `world_unchanged`.
    unsafe {
        ffi::lua_rawgeti(state, 1, 2); // 2
        let n = ffi::lua_rawlen(state, 2) as ffi::lua_Integer;
        let mut i = 1;
        while i + 3 <= n {
            ffi::lua_rawgeti(state, 2, i); // 3: table
            ffi::lua_rawgeti(state, 2, i + 1); // 4: copy
            ffi::lua_rawgeti(state, 2, i + 2); // 5: metatable or false
            if ffi::lua_getmetatable(state, 3) == 0 {
                ffi::lua_pushboolean(state, 0);
            } // 6: the metatable now
            ffi::lua_rawgeti(state, 2, i + 3); // 7: the copy's entry count
            let count = ffi::lua_tointegerx(state, 7, std::ptr::null_mut());
            ffi::lua_settop(state, 6);
            let same = ffi::lua_rawequal(state, 5, 6) != 0 && entries_unchanged(state, count);
            ffi::lua_settop(state, 2);
            if !same {
                return false;
            }
            i += 4;
        }
        ffi::lua_settop(state, 1);
        true
    }
}

/// The table at 3 holds exactly what its copy at 4, of `count` entries, holds: each of its
/// entries is in the copy (values are never nil, so the key is too) and there are as many.
unsafe fn entries_unchanged(state: *mut ffi::lua_State, count: i64) -> bool {
    // SAFETY (for the whole body): see `world_unchanged`.
    unsafe {
        let top = ffi::lua_gettop(state);
        let mut seen: i64 = 0;
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, 3) != 0 {
            // key at -2, value at -1
            ffi::lua_pushvalue(state, -2);
            ffi::lua_rawget(state, 4); // copy[key]
            let same = ffi::lua_rawequal(state, -1, -2) != 0;
            ffi::lua_settop(state, top + 1); // keep the key for lua_next
            if !same {
                ffi::lua_settop(state, top);
                return false;
            }
            seen += 1;
            if seen > count {
                ffi::lua_settop(state, top);
                return false;
            }
        }
        ffi::lua_settop(state, top);
        seen == count
    }
}

/// Why [`json_to_lua`] stopped.
pub(crate) enum JsonStop {
    /// Nested deeper than the limit given.
    TooDeep,
    /// The budget was spent.
    Budget,
}

/// `value` as Lua data (tables, strings, numbers, booleans, nil), each value charged to
/// `budget` before it is made (one unit plus its string bytes over `bytes_per_unit`), in the
/// order a walk of `value` meets them; `Ok(Err(..))` when it nests deeper than `max_depth` or
/// the budget runs out.
pub(crate) fn json_to_lua(
    lua: &Lua,
    budget: &Budget,
    value: &serde_json::Value,
    max_depth: usize,
) -> mlua::Result<Result<mlua::Value, JsonStop>> {
    let mut stop = None;
    // SAFETY: `exec_raw` runs this in protected mode, so a memory error raised by Lua while
    // a table or string is made unwinds to it; `push_json` holds no value with a destructor,
    // so nothing is skipped. The stack is checked before each level grows it (three slots:
    // the table, a key, a value) and holds exactly the converted value at the end.
    let value = unsafe {
        lua.exec_raw::<mlua::Value>((), |state| {
            ffi::lua_settop(state, 0);
            push_json(state, budget, value, 0, max_depth, &mut stop);
        })
    }?;
    Ok(match stop {
        None => Ok(value),
        Some(stop) => Err(stop),
    })
}

/// Pushes `value` (see [`json_to_lua`]); once `stop` is set, pushes nil for whatever is left.
unsafe fn push_json(
    state: *mut ffi::lua_State,
    budget: &Budget,
    value: &serde_json::Value,
    depth: usize,
    max_depth: usize,
    stop: &mut Option<JsonStop>,
) {
    use serde_json::Value;
    // SAFETY (for the whole body): see `json_to_lua`.
    unsafe {
        if stop.is_some() {
            ffi::lua_pushnil(state);
            return;
        }
        if depth > max_depth || ffi::lua_checkstack(state, 3) == 0 {
            *stop = Some(JsonStop::TooDeep);
            ffi::lua_pushnil(state);
            return;
        }
        let bytes = match value {
            Value::String(s) => s.len(),
            _ => 0,
        };
        if !budget.charge(1 + bytes as u64 / STRING_BYTES_PER_UNIT) {
            *stop = Some(JsonStop::Budget);
            ffi::lua_pushnil(state);
            return;
        }
        match value {
            Value::Null => ffi::lua_pushnil(state),
            Value::Bool(b) => ffi::lua_pushboolean(state, i32::from(*b)),
            Value::Number(n) => match n.as_i64() {
                Some(i) => ffi::lua_pushinteger(state, i),
                None => ffi::lua_pushnumber(state, n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => {
                ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
            }
            Value::Array(items) => {
                ffi::lua_createtable(state, i32::try_from(items.len()).unwrap_or(i32::MAX), 0);
                for (i, item) in items.iter().enumerate() {
                    push_json(state, budget, item, depth + 1, max_depth, stop);
                    ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
                    if stop.is_some() {
                        return;
                    }
                }
            }
            Value::Object(map) => {
                ffi::lua_createtable(state, 0, i32::try_from(map.len()).unwrap_or(i32::MAX));
                for (key, item) in map {
                    ffi::lua_pushlstring(state, key.as_ptr().cast(), key.len());
                    push_json(state, budget, item, depth + 1, max_depth, stop);
                    ffi::lua_rawset(state, -3);
                    if stop.is_some() {
                        return;
                    }
                }
            }
        }
    }
}
