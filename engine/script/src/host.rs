//! One device's Lua state: the per-event budget and memory limit, the apps' compiled scripts,
//! and the call of a handler against an event context.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mlua::{ChunkMode, Function, HookTriggers, Lua, Table, Value as LuaValue, VmState};
use serde_json::Value;

use crate::api;
use crate::budget::{Budget, BUDGET_MARKER};
use crate::convert::ValueLimits;
use crate::crossing::{self, Crossing};
use crate::program::Chunk;
use crate::raw::{self, AllocMeter};
use crate::sandbox::{self, Sandbox};
use crate::{EventCtx, Program, ScriptError};

/// The limits a device puts on its scripts. `docs/limits.md` lists every limit of the phone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptLimits {
    /// Bytes the Lua state of one device may hold.
    pub memory_bytes: usize,
    /// Work one event (or one app's loading) may do, in VM instructions; work done inside
    /// library functions is charged in the same units.
    pub instructions_per_event: u64,
    /// Work all the handlers of one step may do together (a tap's handler, the screens it
    /// opens, the timers that fire), in the same units.
    pub instructions_per_step: u64,
    /// Largest value one call may write into the store (`state.set`, `locals.set`, ...), in
    /// bytes of its JSON text (about).
    pub max_value_bytes: usize,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            memory_bytes: 16 << 20,
            instructions_per_event: 20_000_000,
            instructions_per_step: 200_000_000,
            max_value_bytes: 4 << 20,
        }
    }
}

/// Apps whose scripts one host keeps loaded at once. Opening another unloads the one used least
/// recently (its world and chunks, collected at once), as a phone stops a background app: an
/// app keeps nothing in Lua between events (its data lives in the store), so loading it again
/// acts as before. Four covers a cross-app task with a super-app and its mini-app open.
pub const APPS_KEPT: usize = 4;

struct LoadedApp {
    chunks: Table,
    last_used: u64,
}

/// How often the budget hook runs, in VM instructions.
const HOOK_EVERY: u32 = 4096;

/// Where the hook last saw a script running, for errors Lua reports without a position (it
/// ran out of memory inside a library function).
type LastSeen = Arc<Mutex<Option<(String, u32)>>>;

/// The Lua state of one device.
pub struct ScriptHost {
    // Declared before `meter`: the state closes (with mlua's own allocator, put back in
    // `drop`) before the meter it used goes away.
    lua: Lua,
    meter: Box<AllocMeter>,
    budget: Arc<Budget>,
    sandbox: Sandbox,
    /// Each loaded app's main chunks, ready to run into a fresh environment, with when it was
    /// last used (see [`APPS_KEPT`]).
    apps: BTreeMap<String, LoadedApp>,
    /// Counts calls, to tell which loaded app was used least recently.
    uses: u64,
    last_seen: LastSeen,
    limits: ScriptLimits,
    /// What the last handler returned (see [`ScriptHost::take_returned`]).
    returned: Value,
    /// The next call's caller reads what the handler returns.
    wants_answer: bool,
    /// Apps' worlds built so far (see [`ScriptHost::worlds_built`]).
    worlds_built: u64,
}

impl std::fmt::Debug for ScriptHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptHost").field("apps", &self.apps.keys().collect::<Vec<_>>()).finish()
    }
}

impl Drop for ScriptHost {
    fn drop(&mut self) {
        raw::uninstall(&self.lua, &self.meter);
    }
}

fn install_hook(lua: &Lua, budget: &Arc<Budget>, last_seen: &LastSeen) {
    let budget = Arc::clone(budget);
    let last_seen = Arc::clone(last_seen);
    lua.set_hook(HookTriggers::new().every_nth_instruction(HOOK_EVERY), move |_lua, debug| {
        let source = debug.source();
        let file = source.short_src.as_deref().unwrap_or("?");
        let line = debug.curr_line().max(0) as u32;
        if let (Ok(mut seen), false) = (last_seen.lock(), file == "sandbox") {
            if seen.as_ref().is_none_or(|(f, l)| *l != line || f != file) {
                *seen = Some((file.to_owned(), line));
            }
        }
        if !budget.charge(u64::from(HOOK_EVERY)) {
            return Err(mlua::Error::runtime(format!(
                "{file}:{line}: stopped: {BUDGET_MARKER} of {} instructions exceeded (an endless loop?)",
                budget.limit()
            )));
        }
        Ok(VmState::Continue)
    });
}

impl ScriptHost {
    pub fn new(limits: ScriptLimits) -> Result<ScriptHost, ScriptError> {
        let sandbox_err = |e: mlua::Error| ScriptError::from_lua("<sandbox>", "<sandbox>", &e);
        let budget = Arc::new(Budget::new(limits.instructions_per_event));
        let lua = sandbox::new_state(&budget, limits.memory_bytes).map_err(sandbox_err)?;
        lua.set_app_data(Crossing {
            budget: Arc::clone(&budget),
            limits: ValueLimits { max_bytes: limits.max_value_bytes },
            written: Default::default(),
        });
        let api = api::build(&lua).map_err(sandbox_err)?;
        let sandbox = sandbox::seal(&lua, &budget, api).map_err(sandbox_err)?;
        let last_seen = LastSeen::default();
        install_hook(&lua, &budget, &last_seen);
        lua.set_memory_limit(limits.memory_bytes).map_err(sandbox_err)?;
        // After the memory limit: mlua finds its limit only while its own allocator is set.
        let meter = raw::install(&lua, Arc::clone(&budget)).map_err(sandbox_err)?;
        // The collector runs between events only (see `pace_collector`): while a handler runs,
        // finalizers and weak tables would depend on when it last ran, which differs between a
        // device and its restored copy.
        lua.gc_stop();
        Ok(ScriptHost {
            lua,
            meter,
            budget,
            sandbox,
            apps: BTreeMap::new(),
            uses: 0,
            last_seen,
            limits,
            returned: Value::Null,
            wants_answer: false,
            worlds_built: 0,
        })
    }

    /// Loads an app's compiled scripts into this state, once per device, and runs them once to
    /// check that they load.
    pub fn ensure_loaded(&mut self, program: &Program) -> Result<(), ScriptError> {
        self.uses += 1;
        if let Some(app) = self.apps.get_mut(&program.app) {
            app.last_used = self.uses;
            return Ok(());
        }
        if self.apps.len() >= APPS_KEPT {
            self.unload_least_recent();
        }
        let chunks = self.load_chunks(program)?;
        self.budget.reset();
        let loaded = self.sandbox.handler_names.call::<Vec<String>>(&chunks);
        self.pace_collector();
        loaded.map_err(|e| self.error(program, &e))?;
        self.apps.insert(program.app.clone(), LoadedApp { chunks, last_used: self.uses });
        Ok(())
    }

    fn unload_least_recent(&mut self) {
        let Some(app) = self.apps.iter().min_by_key(|(_, a)| a.last_used).map(|(name, _)| name.clone()) else { return };
        if let Some(unloaded) = self.apps.remove(&app) {
            let _ = self.sandbox.forget.call::<()>(&unloaded.chunks);
        }
        // Between events, like every collection: nothing an app sees depends on it.
        let _ = self.lua.gc_collect();
        self.meter.take_allocated();
    }

    fn load_chunks(&self, program: &Program) -> Result<Table, ScriptError> {
        let lua_err = |file: &str, e: mlua::Error| ScriptError::from_lua(&program.app, file, &e);
        let chunks = self.lua.create_table().map_err(|e| lua_err(program.main_file(), e))?;
        for (i, chunk) in program.chunks.iter().enumerate() {
            let function = self.load_chunk(chunk).map_err(|e| lua_err(&chunk.name, e))?;
            chunks.raw_set(i + 1, function).map_err(|e| lua_err(&chunk.name, e))?;
        }
        // The library's modules, as `{ {name, chunk}, ... }` under `library` (see `sandbox.lua`).
        let modules = self.lua.create_table().map_err(|e| lua_err(program.main_file(), e))?;
        for (i, (module, chunk)) in program.library.modules.iter().enumerate() {
            let function = self.load_chunk(chunk).map_err(|e| lua_err(&chunk.name, e))?;
            let entry = self.lua.create_sequence_from([
                LuaValue::String(self.lua.create_string(module).map_err(|e| lua_err(&chunk.name, e))?),
                LuaValue::Function(function),
            ]);
            modules.raw_set(i + 1, entry.map_err(|e| lua_err(&chunk.name, e))?).map_err(|e| lua_err(&chunk.name, e))?;
        }
        chunks.raw_set("library", modules).map_err(|e| lua_err(program.main_file(), e))?;
        Ok(chunks)
    }

    fn load_chunk(&self, chunk: &Chunk) -> mlua::Result<Function> {
        self.lua.load(&chunk.bytecode[..]).set_mode(ChunkMode::Binary).set_name(format!("@{}", chunk.name)).into_function()
    }

    /// The names of the functions an app defines (its handlers), sorted; none for an app not
    /// loaded (call [`ScriptHost::ensure_loaded`] first: a host keeps [`APPS_KEPT`] apps).
    pub fn handler_names(&self, app: &str) -> Vec<String> {
        let Some(chunks) = self.apps.get(app).map(|a| &a.chunks) else { return Vec::new() };
        self.budget.reset();
        let names = self.sandbox.handler_names.call::<Vec<String>>(chunks).unwrap_or_default();
        self.pace_collector();
        names
    }

    /// Runs `handler(event)` for the program's app against `ctx`, in the app's world as its
    /// scripts built it (kept from the last event only if that left it unchanged). On success
    /// returns the context with the handler's changes and effects; on failure the context is
    /// dropped.
    pub fn call(&mut self, program: &Program, handler: &str, event: &Value, ctx: EventCtx) -> Result<EventCtx, ScriptError> {
        self.call_within(program, handler, event, ctx, u64::MAX)
    }

    /// [`ScriptHost::call`] with at most `allowance` units of work (what the step has left).
    pub fn call_within(
        &mut self,
        program: &Program,
        handler: &str,
        event: &Value,
        ctx: EventCtx,
        allowance: u64,
    ) -> Result<EventCtx, ScriptError> {
        self.returned = Value::Null;
        let wants_answer = std::mem::take(&mut self.wants_answer);
        self.ensure_loaded(program)?;
        let app = &program.app;
        let chunks = self
            .apps
            .get(app)
            .map(|a| a.chunks.clone())
            .ok_or_else(|| ScriptError::new(app, program.main_file(), None, "app scripts are not loaded"))?;
        // The app's world (its scripts run into an environment) is built with a budget of
        // its own, so the event costs the same whether it was built now or kept.
        self.budget.reset();
        self.meter.take_refused_at();
        match self.sandbox.prepare.call::<bool>(&chunks) {
            Ok(built) => self.worlds_built += u64::from(built),
            Err(err) => return Err(self.error(program, &err)),
        }
        self.budget.reset_within(allowance);
        raw::restart_hook_count(&self.lua);
        if let Some(c) = self.lua.app_data_ref::<Crossing>() {
            c.written.store(0, std::sync::atomic::Ordering::Relaxed);
        }
        if let Ok(mut seen) = self.last_seen.lock() {
            *seen = None;
        }
        let event = crossing::to_lua(&self.lua, event).map_err(|e| self.error(program, &e))?;
        self.lua.set_app_data(ctx);
        // A panic in a library function (a bug of ours) fails this handler, not the phone:
        // mlua has already unwound the Lua state when it resumes the panic here.
        let run = std::panic::AssertUnwindSafe(|| {
            let returned = self.sandbox.run_event.call::<LuaValue>((&chunks, handler, event))?;
            // What the handler returns matters only to a caller that asks (a host's service, a
            // view); there, a value that is no data (a function) fails the handler.
            if !wants_answer || returned.is_nil() {
                return Ok(Value::Null);
            }
            crossing::answer_from_lua(&self.lua, returned)
                .map_err(|e| mlua::Error::runtime(format!("`{handler}` returned what is not data: {e}")))
        });
        let result = std::panic::catch_unwind(run).unwrap_or_else(|panic| {
            let what = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()));
            Err(mlua::Error::runtime(format!("internal error in the phone's Lua library: {}", what.unwrap_or_default())))
        });
        let ctx = self.lua.remove_app_data::<EventCtx>();
        let work = self.budget.used();
        let result = result.map(|returned| self.returned = returned).map_err(|err| self.error(program, &err));
        self.settle(&chunks);
        self.budget.set_used(work);
        self.pace_collector();
        match (result, ctx) {
            (Ok(()), Some(ctx)) => Ok(ctx),
            (Ok(()), None) => Err(ScriptError::new(app, program.main_file(), None, "event context lost")),
            (Err(err), _) => Err(err),
        }
    }

    /// Keeps the app's world for the next event only if this one left it as it was built.
    fn settle(&self, chunks: &Table) {
        let record = self.sandbox.record_of.call::<Option<Table>>(chunks).ok().flatten();
        if !record.is_some_and(|r| raw::world_unchanged(&self.lua, &r)) {
            let _ = self.sandbox.forget.call::<()>(chunks);
        }
    }

    /// [`ScriptHost::call_within`] for a handler whose return value the caller reads (see
    /// [`ScriptHost::take_returned`]): a host's service, a screen's view function.
    pub fn call_for_answer(
        &mut self,
        program: &Program,
        handler: &str,
        event: &Value,
        ctx: EventCtx,
        allowance: u64,
    ) -> Result<EventCtx, ScriptError> {
        self.wants_answer = true;
        self.call_within(program, handler, event, ctx, allowance)
    }

    /// What the last handler called with [`ScriptHost::call_for_answer`] returned (`null` when
    /// nothing, or when it failed), taken.
    pub fn take_returned(&mut self) -> Value {
        std::mem::take(&mut self.returned)
    }

    /// How many times an app's world (its scripts run into a fresh environment) was built for
    /// an event. A world is kept while events leave it as built, so an app is built once
    /// however many events it handles; more means each event pays for running its scripts.
    pub fn worlds_built(&self) -> u64 {
        self.worlds_built
    }

    /// The apps whose scripts are loaded, most recently used last (at most [`APPS_KEPT`]).
    pub fn loaded_apps(&self) -> Vec<&str> {
        let mut apps: Vec<(&str, u64)> = self.apps.iter().map(|(name, a)| (name.as_str(), a.last_used)).collect();
        apps.sort_by_key(|&(_, used)| used);
        apps.into_iter().map(|(name, _)| name).collect()
    }

    /// Bytes the Lua state holds now.
    pub fn memory_used(&self) -> usize {
        self.lua.used_memory()
    }

    /// Units of work the last event used (instructions and charged library work).
    pub fn last_work(&self) -> u64 {
        self.budget.used()
    }

    /// Bytes the last event wrote into the store (`state`, `locals`, `system`), counted as
    /// [`crate::value_size`] counts them.
    pub fn last_written_bytes(&self) -> usize {
        self.lua.app_data_ref::<Crossing>().map_or(0, |c| c.written.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Lets the collector catch up with what the event allocated, as it would have while the
    /// handler ran.
    fn pace_collector(&self) {
        let kbytes = self.meter.take_allocated() / 1024;
        if kbytes > 0 {
            let _ = self.lua.gc_step_kbytes(i32::try_from(kbytes).unwrap_or(i32::MAX));
        }
    }

    /// A handler's failure as the author should read it: the budget and memory stops say so
    /// (with the last place seen running when Lua gives none), heap addresses are left out.
    fn error(&self, program: &Program, err: &mlua::Error) -> ScriptError {
        let mut error = ScriptError::from_lua(&program.app, program.main_file(), err);
        let out_of_memory = matches!(err, mlua::Error::MemoryError(_)) || error.message.contains("not enough memory");
        if self.budget.spent() && !error.message.contains(BUDGET_MARKER) {
            error.message = self.budget.stopped_message("a library function");
        } else if out_of_memory && !self.budget.spent() {
            error.message = format!("out of memory: the scripts of a device may use at most {} MiB", self.limits.memory_bytes >> 20);
        }
        let refused_at = self.meter.take_refused_at();
        if error.line.is_none() && (self.budget.spent() || out_of_memory) {
            if let Some((file, line)) = refused_at {
                error.file = file;
                error.line = Some(line);
            } else if let Some((file, line)) = self.last_seen.lock().ok().and_then(|seen| seen.clone()) {
                error.file = file;
                error.line = Some(line);
                error.message.push_str(" (the line last seen running)");
            }
        }
        error
    }
}
