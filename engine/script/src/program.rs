//! An app's Lua compiled once to bytecode and shared (through an `Arc`) by every device, and
//! the shared library (`lib/*.lua`) compiled once for every app.

use std::sync::Arc;

use phoneworld_data::{AppBundle, LuaLibrary};

use crate::ScriptError;

/// What every chunk starts with (see [`Program::from_sources`]).
const ENV_PARAMETER: &str = "local _ENV = ...; ";

/// One compiled Lua file.
#[derive(Debug)]
pub(crate) struct Chunk {
    pub(crate) name: String,
    pub(crate) bytecode: Vec<u8>,
}

/// The compiled modules of the shared Lua library, each run into a world before the app's
/// scripts and read there as `lib.<module>`.
#[derive(Debug, Clone, Default)]
pub struct Library {
    /// (module name, chunk), sorted by name.
    pub(crate) modules: Arc<Vec<(String, Chunk)>>,
}

impl Library {
    /// Compiles every module; a syntax error names the module's file and line.
    pub fn compile(library: &LuaLibrary) -> Result<Library, ScriptError> {
        let (compiled, mut errors) = Library::compile_each(library);
        if errors.is_empty() {
            Ok(compiled)
        } else {
            Err(errors.remove(0))
        }
    }

    /// Compiles what it can: each module that does not compile is left out and its error
    /// returned, so one broken module costs only the apps that use it.
    pub fn compile_each(library: &LuaLibrary) -> (Library, Vec<ScriptError>) {
        let lua = mlua::Lua::new();
        let mut modules = Vec::new();
        let mut errors = Vec::new();
        for (module, script) in &library.modules {
            match compile_chunk(&lua, "lib", &script.name, &script.source) {
                Ok(chunk) => modules.push((module.clone(), chunk)),
                Err(err) => errors.push(err),
            }
        }
        (Library { modules: Arc::new(modules) }, errors)
    }
}

/// The compiled scripts of one app, with the library its world starts from.
#[derive(Debug, Clone)]
pub struct Program {
    pub(crate) app: String,
    pub(crate) chunks: Arc<Vec<Chunk>>,
    pub(crate) library: Library,
}

/// Compiles one file to bytecode. Each chunk takes its environment as an argument, so every
/// event can run it into a fresh one; on the first line, so line numbers stay the author's.
fn compile_chunk(lua: &mlua::Lua, app: &str, name: &str, source: &str) -> Result<Chunk, ScriptError> {
    let source = format!("{ENV_PARAMETER}{source}");
    let function = lua.load(source).set_name(format!("@{name}")).into_function().map_err(|err| ScriptError::from_lua(app, name, &err))?;
    Ok(Chunk { name: name.to_owned(), bytecode: function.dump(false) })
}

impl Program {
    /// Compiles every script of the bundle, with no library (see [`Program::with_library`]); a
    /// syntax error names the file and line.
    pub fn compile(bundle: &AppBundle) -> Result<Program, ScriptError> {
        let sources: Vec<(&str, &str)> = bundle.scripts.iter().map(|s| (s.name.as_str(), s.source.as_str())).collect();
        Program::from_sources(&bundle.manifest.package, &sources)
    }

    /// Compiles `(file name, source)` pairs for an app, with no library.
    pub fn from_sources(app: &str, sources: &[(&str, &str)]) -> Result<Program, ScriptError> {
        let lua = mlua::Lua::new();
        let chunks = sources.iter().map(|(name, source)| compile_chunk(&lua, app, name, source)).collect::<Result<Vec<_>, _>>()?;
        Ok(Program { app: app.to_owned(), chunks: Arc::new(chunks), library: Library::default() })
    }

    /// The same program, its world starting from `library` (`lib.<module>`).
    pub fn with_library(mut self, library: &Library) -> Program {
        self.library = library.clone();
        self
    }

    pub fn app(&self) -> &str {
        &self.app
    }

    /// The name of the first script, for errors that have no position.
    pub(crate) fn main_file(&self) -> &str {
        self.chunks.first().map_or("main.lua", |c| c.name.as_str())
    }
}
