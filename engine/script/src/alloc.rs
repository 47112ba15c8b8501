//! Metering the strings Lua builds. One VM instruction can copy megabytes (`s .. s`,
//! `s:upper()`, `table.concat`) and no hook runs inside it, so counting instructions alone
//! lets a short loop run for hours. Every new string goes through the allocator with its size,
//! so wrapping mlua's allocator charges those bytes to the event's budget at the moment they
//! are asked for, and refuses them once the budget is spent. Only long strings are metered:
//! short ones are interned, and whether an allocation happens for them depends on what earlier
//! events left in the state, which must not decide where an event stops.
//!
//! This is the only unsafe code of the workspace: Lua's allocator hook is a C function pointer
//! with a user-data pointer, which safe Rust cannot install.
#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::sync::Arc;

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
    allocated: Cell<u64>,
    /// The state (for the position of a refused allocation; Lua reports none for it).
    state: usize,
    /// Where the script was when an allocation was refused.
    refused_at: RefCell<Option<(String, u32)>>,
}

// SAFETY: the meter is only touched by the Lua state it is installed in, and that state (with
// its `ScriptHost`) moves between threads as a whole, never used from two at once.
unsafe impl Send for AllocMeter {}

impl AllocMeter {
    /// Bytes allocated since the last call.
    pub(crate) fn take_allocated(&self) -> u64 {
        self.allocated.replace(0)
    }

    /// The file and line of the script that asked for the last refused allocation.
    pub(crate) fn take_refused_at(&self) -> Option<(String, u32)> {
        self.refused_at.borrow_mut().take()
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
                *self.refused_at.borrow_mut() = Some((src, line));
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
        meter.allocated.set(meter.allocated.get().saturating_add(grown as u64));
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
    let meter = Box::new(AllocMeter { inner, inner_ud, budget, allocated: Cell::new(0), state, refused_at: RefCell::new(None) });
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
