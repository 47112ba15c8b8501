//! An app's Lua compiled once to bytecode and shared (through an `Arc`) by every device.

use std::sync::Arc;

use phoneworld_data::AppBundle;

use crate::ScriptError;

/// What every chunk starts with (see [`Program::from_sources`]).
const ENV_PARAMETER: &str = "local _ENV = ...; ";

/// One compiled Lua file.
#[derive(Debug)]
pub(crate) struct Chunk {
    pub(crate) name: String,
    pub(crate) bytecode: Vec<u8>,
}

/// The compiled scripts of one app.
#[derive(Debug, Clone)]
pub struct Program {
    pub(crate) app: String,
    pub(crate) chunks: Arc<Vec<Chunk>>,
}

impl Program {
    /// Compiles every script of the bundle; a syntax error names the file and line.
    pub fn compile(bundle: &AppBundle) -> Result<Program, ScriptError> {
        let sources: Vec<(&str, &str)> = bundle.scripts.iter().map(|s| (s.name.as_str(), s.source.as_str())).collect();
        Program::from_sources(&bundle.manifest.package, &sources)
    }

    /// Compiles `(file name, source)` pairs for an app.
    pub fn from_sources(app: &str, sources: &[(&str, &str)]) -> Result<Program, ScriptError> {
        let lua = mlua::Lua::new();
        let mut chunks = Vec::new();
        for (name, source) in sources {
            // Each chunk takes its environment as an argument, so every event can run it into
            // a fresh one. On the first line, so line numbers stay the author's.
            let source = format!("{ENV_PARAMETER}{source}");
            let function =
                lua.load(source).set_name(format!("@{name}")).into_function().map_err(|err| ScriptError::from_lua(app, name, &err))?;
            chunks.push(Chunk { name: (*name).to_owned(), bytecode: function.dump(false) });
        }
        Ok(Program { app: app.to_owned(), chunks: Arc::new(chunks) })
    }

    pub fn app(&self) -> &str {
        &self.app
    }

    /// The name of the first script, for errors that have no position.
    pub(crate) fn main_file(&self) -> &str {
        self.chunks.first().map_or("main.lua", |c| c.name.as_str())
    }
}
