//! The shared Lua library: every app reads `lib.<module>`, read-only, fresh in every world.

use std::collections::BTreeMap;

use phoneworld_data::LuaLibrary;
use phoneworld_script::{EventCtx, Library, Program, ScriptError, ScriptHost, ScriptLimits};
use serde_json::{json, Value};

const APP: &str = "com.example.lib";

fn ctx() -> EventCtx {
    EventCtx::empty(APP)
}

const TEXT: &str = r#"local M = {}
M.SPACES = { " ", "\t" }
function M.trim(s)
  if type(s) ~= "string" then return "" end
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end
function M.shout(s)
  return lib.loud.upper(M.trim(s))
end
function M.fail(s)
  return s .. nil
end
return M
"#;

const LOUD: &str = "return { upper = function(s) return string.upper(s) .. \"!\" end }\n";

const APP_SOURCE: &str = r#"local trim = lib.text.trim
function tidy(ev) state.set("out", trim(ev.text)) end
function shout(ev) state.set("out", lib.text.shout(ev.text)) end
function replace(ev) lib.text.trim = nil end
function add(ev) lib.extra = {} end
function spoil(ev) lib.text.SPACES[1] = "x"; state.set("out", lib.text.SPACES[1]) end
function read(ev) state.set("out", lib.text.SPACES[1]) end
function fail(ev) lib.text.fail("a") end
function typo(ev) return lib.text.trimm(ev.text) end
function no_module(ev) return lib.txt.trim(ev.text) end
function no_such(ev) return lib.loud.whisper(ev.text) end
"#;

fn library(files: &[(&str, &str)]) -> Library {
    let files: BTreeMap<String, String> = files.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let (lib, errors) = LuaLibrary::from_memory(&files);
    assert!(errors.is_empty(), "{errors:?}");
    Library::compile(&lib).unwrap()
}

fn program() -> Program {
    Program::from_sources(APP, &[("main.lua", APP_SOURCE)]).unwrap().with_library(&library(&[("text.lua", TEXT), ("loud.lua", LOUD)]))
}

fn host() -> ScriptHost {
    ScriptHost::new(ScriptLimits { memory_bytes: 8 << 20, instructions_per_event: 2_000_000, ..ScriptLimits::default() }).unwrap()
}

fn run(host: &mut ScriptHost, program: &Program, handler: &str, text: &str) -> Result<Value, ScriptError> {
    host.call(program, handler, &json!({ "text": text }), ctx()).map(|out| out.state["out"].clone())
}

#[test]
fn an_app_calls_the_library_and_modules_call_each_other() {
    let (mut host, program) = (host(), program());
    assert_eq!(run(&mut host, &program, "tidy", "  hello \n").unwrap(), json!("hello"));
    assert_eq!(run(&mut host, &program, "shout", " hey ").unwrap(), json!("HEY!"));
}

#[test]
fn the_library_is_read_only_and_what_a_handler_changes_inside_it_is_gone_by_the_next_event() {
    let (mut host, program) = (host(), program());
    let err = run(&mut host, &program, "replace", "").unwrap_err();
    assert_eq!((err.line, err.message.as_str()), (Some(4), "cannot change `trim`: the phone's libraries are read-only"), "{err}");
    let err = run(&mut host, &program, "add", "").unwrap_err();
    assert!(err.message.contains("cannot change `extra`"), "{err}");
    // A table a module holds can be written (Lua has no deep read-only), but the world that
    // saw it is built afresh: the next event finds the module as it was loaded.
    assert_eq!(run(&mut host, &program, "spoil", "").unwrap(), json!("x"));
    assert_eq!(run(&mut host, &program, "read", "").unwrap(), json!(" "));
}

#[test]
fn an_error_inside_a_library_function_names_the_module_file_and_line() {
    let (mut host, program) = (host(), program());
    let err = run(&mut host, &program, "fail", "").unwrap_err();
    assert_eq!((err.file.as_str(), err.line), ("lib/text.lua", Some(11)), "{err}");
    assert!(err.message.contains("attempt to concatenate a nil value"), "{err}");
}

#[test]
fn a_library_syntax_error_names_the_module_and_a_module_must_return_a_table() {
    let files: BTreeMap<String, String> = [("bad.lua".to_owned(), "local x = = 1\n".to_owned())].into();
    let err = Library::compile(&LuaLibrary::from_memory(&files).0).unwrap_err();
    assert_eq!((err.file.as_str(), err.line), ("lib/bad.lua", Some(1)), "{err}");

    let program =
        Program::from_sources(APP, &[("main.lua", "function f() end")]).unwrap().with_library(&library(&[("empty.lua", "local x = 1")]));
    let err = host().ensure_loaded(&program).unwrap_err();
    assert!(err.message.contains("lib/empty.lua: a library module must end with `return` of a table"), "{err}");
}

#[test]
fn an_app_that_fails_to_load_leaves_no_door_open_for_the_next_apps_globals() {
    let mut host = host();
    let other = Program::from_sources(APP, &[("main.lua", "function fine(ev) end\nfunction leak(ev) counter = 1 end")]).unwrap();
    // The other app's world is built and kept before the broken app loads.
    host.call(&other, "fine", &Value::Null, ctx()).unwrap();
    let broken = Program::from_sources("com.example.broken", &[("main.lua", "error('no')")]).unwrap();
    assert!(host.ensure_loaded(&broken).is_err());
    let err = host.call(&other, "leak", &Value::Null, ctx()).unwrap_err();
    assert!(err.message.contains("cannot set global `counter`"), "{err}");
}

#[test]
fn a_misspelled_library_name_is_an_error_at_its_line_naming_the_name_meant() {
    let (mut host, program) = (host(), program());
    let err = run(&mut host, &program, "typo", "").unwrap_err();
    assert_eq!((err.file.as_str(), err.line), ("main.lua", Some(9)), "{err}");
    assert_eq!(err.message, "no `trimm` in lib.text: did you mean `trim`?");
    let err = run(&mut host, &program, "no_module", "").unwrap_err();
    assert_eq!(err.message, "no `txt` in lib: did you mean `text`?", "{err}");
    let err = run(&mut host, &program, "no_such", "").unwrap_err();
    assert_eq!(err.message, "no `whisper` in lib.loud (it has upper)", "{err}");
}

#[test]
fn the_bundled_store_module_keeps_recent_searches_and_toggles_favorites() {
    let lib = library(&[("store.lua", include_str!("../../../lib/store.lua")), ("lists.lua", include_str!("../../../lib/lists.lua"))]);
    let source = r#"function go(ev)
  lib.store.remember("recent", "a", 3)
  local removed = lib.store.toggle("favs", 2)
  local added = lib.store.toggle("favs", 5)
  state.set("out", { removed = removed, added = added, count = lib.lists.sum(lib.store.list("cart"), "qty"), none = #lib.store.list("missing") })
end"#;
    let program = Program::from_sources(APP, &[("main.lua", source)]).unwrap().with_library(&lib);
    let mut ctx = ctx();
    ctx.state = json!({"recent": ["b", "a", "c", "d"], "favs": [1, 2, 3], "cart": [{"qty": 2}, {"qty": "3"}, {"qty": "x"}]});
    let out = host().call(&program, "go", &Value::Null, ctx).unwrap().state;
    assert_eq!(out["recent"], json!(["a", "b", "c"]));
    assert_eq!(out["favs"], json!([1, 3, 5]));
    assert_eq!(out["out"], json!({"removed": false, "added": true, "count": 5, "none": 0}));
}
