//! The shared Lua library: the `*.lua` files of a `lib/` folder (beside `layouts/`), each one
//! module that every app reads as `lib.<file name>` (`lib/text.lua` is `lib.text`).

use std::collections::BTreeMap;
use std::path::{Path as FsPath, PathBuf};

use crate::confine::Source;
use crate::{DataError, ScriptSource};

/// The library's modules by name.
#[derive(Debug, Clone, Default)]
pub struct LuaLibrary {
    /// Sorted by module name; `name` of each source is `lib/<module>.lua`.
    pub modules: BTreeMap<String, ScriptSource>,
}

/// A module name is what an app writes after `lib.`: a Lua identifier in lower case.
fn module_name(stem: &str) -> Option<&str> {
    let mut chars = stem.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_');
    (first_ok && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')).then_some(stem)
}

impl LuaLibrary {
    /// Loads every `*.lua` of the folders, later folders overriding earlier modules of the same
    /// name. A missing folder has no modules. Returns the modules that loaded and the errors of
    /// those that did not (a file that cannot be read, or whose name is no Lua identifier).
    pub fn load(dirs: &[PathBuf]) -> (LuaLibrary, Vec<DataError>) {
        let mut out = LuaLibrary::default();
        let mut errors = Vec::new();
        for dir in dirs {
            if let Ok(source) = Source::dir(dir) {
                out.add_all(&source, &mut errors);
            }
        }
        (out, errors)
    }

    /// Loads modules from memory: file name (`text.lua`) → source.
    pub fn from_memory(files: &BTreeMap<String, String>) -> (LuaLibrary, Vec<DataError>) {
        let mut out = LuaLibrary::default();
        let mut errors = Vec::new();
        out.add_all(&Source::Memory { dir: FsPath::new("lib"), files }, &mut errors);
        (out, errors)
    }

    fn add_all(&mut self, source: &Source<'_>, errors: &mut Vec<DataError>) {
        let files = source.lua_files("").unwrap_or_else(|err| {
            errors.push(err);
            Vec::new()
        });
        for rel in files {
            let file = source.base().join(&rel);
            let stem = FsPath::new(&rel).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let Some(name) = module_name(stem) else {
                errors.push(DataError::Invalid {
                    path: file,
                    field: "file name".into(),
                    message: format!(
                        "`{stem}` is not a module name: apps read it as `lib.{stem}`, so use lower-case letters, digits and `_`"
                    ),
                });
                continue;
            };
            match source.read_listed(&rel) {
                Ok(text) => {
                    let script = ScriptSource { name: format!("lib/{name}.lua"), file, source: text };
                    self.modules.insert(name.to_owned(), script);
                }
                Err(err) => errors.push(err),
            }
        }
    }

    /// Where the module a script error names (`lib/text.lua`) was read from.
    pub fn file_of(&self, name: &str) -> Option<&FsPath> {
        self.modules.values().find(|m| m.name == name).map(|m| m.file.as_path())
    }

    /// A hash over every module, for catalog hashes (a snapshot restores only onto the same
    /// library).
    pub fn hash(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        for (name, module) in &self.modules {
            hasher.update(name.as_bytes());
            hasher.update(&[0]);
            hasher.update(module.source.as_bytes());
            hasher.update(&[0]);
        }
        hasher.finalize().to_hex().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn modules_are_named_by_their_file_and_odd_names_are_refused() {
        let (lib, errors) = LuaLibrary::from_memory(&files(&[
            ("text.lua", "return {}"),
            ("Money.lua", "return {}"),
            ("notes.txt", "x"),
            ("two-words.lua", "return {}"),
        ]));
        assert_eq!(lib.modules.keys().collect::<Vec<_>>(), ["text"]);
        assert_eq!(lib.modules["text"].name, "lib/text.lua");
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].starts_with("lib/Money.lua: field `file name`: `Money` is not a module name"), "{messages:?}");
        assert!(messages[1].contains("`two-words` is not a module name"), "{messages:?}");
    }
}
