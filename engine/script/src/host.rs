//! One device's Lua state: app environments, the per-event instruction budget and the memory
//! limit, and the call of a handler against an event context.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use mlua::{ChunkMode, Function, HookTriggers, Lua, RegistryKey, Table, VmState};
use serde_json::Value;

use crate::api;
use crate::sandbox::{self, BUDGET_MARKER};
use crate::{EventCtx, Program, ScriptError};

/// The limits a device puts on its scripts.
#[derive(Debug, Clone, Copy)]
pub struct ScriptLimits {
    /// Bytes the Lua state of one device may hold.
    pub memory_bytes: usize,
    /// VM instructions one event (or one app's loading) may run.
    pub instructions_per_event: u64,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits { memory_bytes: 16 << 20, instructions_per_event: 20_000_000 }
    }
}

/// How often the budget hook runs, in VM instructions.
const HOOK_EVERY: u32 = 4096;

/// The Lua state of one device.
pub struct ScriptHost {
    lua: Lua,
    envs: BTreeMap<String, RegistryKey>,
    used: Arc<AtomicU64>,
}

impl std::fmt::Debug for ScriptHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptHost").field("apps", &self.envs.keys().collect::<Vec<_>>()).finish()
    }
}

impl ScriptHost {
    pub fn new(limits: ScriptLimits) -> Result<ScriptHost, ScriptError> {
        let setup = || -> mlua::Result<(Lua, Arc<AtomicU64>)> {
            let lua = sandbox::new_state()?;
            api::install(&lua)?;
            let used = Arc::new(AtomicU64::new(0));
            let counter = Arc::clone(&used);
            let budget = limits.instructions_per_event;
            lua.set_hook(HookTriggers::new().every_nth_instruction(HOOK_EVERY), move |_lua, debug| {
                let ran = counter.fetch_add(u64::from(HOOK_EVERY), Ordering::Relaxed) + u64::from(HOOK_EVERY);
                if ran > budget {
                    let source = debug.source();
                    let file = source.short_src.as_deref().unwrap_or("?").to_owned();
                    let line = debug.curr_line();
                    return Err(mlua::Error::runtime(format!(
                        "{file}:{line}: stopped: {BUDGET_MARKER} of {budget} instructions exceeded (an endless loop?)"
                    )));
                }
                Ok(VmState::Continue)
            });
            lua.set_memory_limit(limits.memory_bytes)?;
            Ok((lua, used))
        };
        let (lua, used) = setup().map_err(|e| ScriptError::from_lua("<sandbox>", "<sandbox>", &e))?;
        Ok(ScriptHost { lua, envs: BTreeMap::new(), used })
    }

    /// Runs an app's scripts into a fresh environment, once per device.
    pub fn ensure_loaded(&mut self, program: &Program) -> Result<(), ScriptError> {
        if self.envs.contains_key(&program.app) {
            return Ok(());
        }
        let env = self.load_env(program)?;
        let key = self.lua.create_registry_value(env).map_err(|e| ScriptError::from_lua(&program.app, program.main_file(), &e))?;
        self.envs.insert(program.app.clone(), key);
        Ok(())
    }

    fn load_env(&self, program: &Program) -> Result<Table, ScriptError> {
        let app = &program.app;
        let lua_err = |file: &str, e: mlua::Error| ScriptError::from_lua(app, file, &e);
        let env = self.lua.create_table().map_err(|e| lua_err(program.main_file(), e))?;
        let meta = self.lua.create_table().map_err(|e| lua_err(program.main_file(), e))?;
        meta.set("__index", self.lua.globals()).map_err(|e| lua_err(program.main_file(), e))?;
        env.set_metatable(Some(meta.clone()));
        self.used.store(0, Ordering::Relaxed);
        for chunk in program.chunks.iter() {
            self.lua
                .load(&chunk.bytecode[..])
                .set_mode(ChunkMode::Binary)
                .set_name(format!("@{}", chunk.name))
                .set_environment(env.clone())
                .exec()
                .map_err(|e| lua_err(&chunk.name, e))?;
        }
        // From now on the environment is frozen: app scripts keep no state of their own.
        let guard = self
            .lua
            .create_function(|_, (_t, key, _v): (Table, mlua::Value, mlua::Value)| -> mlua::Result<()> {
                Err(mlua::Error::runtime(format!(
                    "cannot set global `{}`: app scripts keep no state between events; use state.set or locals.set",
                    key.to_string().unwrap_or_default()
                )))
            })
            .map_err(|e| lua_err(program.main_file(), e))?;
        meta.set("__newindex", guard).map_err(|e| lua_err(program.main_file(), e))?;
        Ok(env)
    }

    fn env(&self, app: &str) -> Option<Table> {
        self.envs.get(app).and_then(|key| self.lua.registry_value::<Table>(key).ok())
    }

    /// The names of the functions an app defines (its handlers), sorted.
    pub fn handler_names(&self, app: &str) -> Vec<String> {
        let Some(env) = self.env(app) else { return Vec::new() };
        let mut names: Vec<String> =
            env.pairs::<String, mlua::Value>().filter_map(Result::ok).filter(|(_, v)| v.is_function()).map(|(k, _)| k).collect();
        names.sort();
        names
    }

    /// Runs `handler(event)` for the program's app against `ctx`. On success returns the
    /// context with the handler's changes and effects; on failure the context is dropped.
    pub fn call(&mut self, program: &Program, handler: &str, event: &Value, ctx: EventCtx) -> Result<EventCtx, ScriptError> {
        self.ensure_loaded(program)?;
        let app = &program.app;
        let env = self.env(app).ok_or_else(|| ScriptError::new(app, program.main_file(), None, "app scripts are not loaded"))?;
        let function: Function = env
            .raw_get(handler)
            .map_err(|_| ScriptError::new(app, program.main_file(), None, format!("no handler function `{handler}`")))?;
        let event = api::to_lua(&self.lua, event).map_err(|e| ScriptError::from_lua(app, program.main_file(), &e))?;
        self.lua.set_app_data(ctx);
        self.used.store(0, Ordering::Relaxed);
        let result = function.call::<()>(event);
        let ctx = self.lua.remove_app_data::<EventCtx>();
        match (result, ctx) {
            (Ok(()), Some(ctx)) => Ok(ctx),
            (Ok(()), None) => Err(ScriptError::new(app, program.main_file(), None, "event context lost")),
            (Err(err), _) => {
                // Let the collector reclaim what a runaway handler allocated.
                let _ = self.lua.gc_collect();
                Err(ScriptError::from_lua(app, program.main_file(), &err))
            }
        }
    }
}
