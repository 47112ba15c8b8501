//! Building the sandboxed Lua state: only string, table, math and utf8; no io, os, package,
//! debug or coroutine libraries; no loading of code or bytecode from inside a script.

use mlua::{Lua, LuaOptions, StdLib};

/// Marker in the error a budget overrun raises, so `pcall` cannot swallow it.
pub(crate) const BUDGET_MARKER: &str = "instruction budget";

pub(crate) fn new_state() -> mlua::Result<Lua> {
    let lua = Lua::new_with(StdLib::STRING | StdLib::TABLE | StdLib::MATH | StdLib::UTF8, LuaOptions::new())?;
    let globals = lua.globals();
    for name in ["dofile", "loadfile", "load", "collectgarbage", "require", "print"] {
        globals.raw_set(name, mlua::Nil)?;
    }
    let string: mlua::Table = globals.get("string")?;
    string.raw_set("dump", mlua::Nil)?;
    // pcall/xpcall must not catch a stopped handler: re-raise budget and memory errors.
    lua.load(format!(
        r#"
        local raw_pcall, raw_xpcall, pack, unpack = pcall, xpcall, table.pack, table.unpack
        local function fatal(err)
          local text = tostring(err)
          return text:find("{BUDGET_MARKER}", 1, true) or text:find("not enough memory", 1, true)
        end
        pcall = function(f, ...)
          local r = pack(raw_pcall(f, ...))
          if not r[1] and fatal(r[2]) then error(r[2], 0) end
          return unpack(r, 1, r.n)
        end
        xpcall = function(f, handler, ...)
          local r = pack(raw_pcall(f, ...))
          if r[1] then return unpack(r, 1, r.n) end
          if fatal(r[2]) then error(r[2], 0) end
          return false, handler(r[2])
        end
        "#
    ))
    .set_name("=sandbox")
    .exec()?;
    Ok(lua)
}
