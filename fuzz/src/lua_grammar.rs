//! Lua handler programs generated from a grammar of the sandbox API: what an app can call
//! (state, locals, system, nav, ui, timer, clipboard, content, clock, os, math, string, table),
//! the control flow around it, state kept in upvalues, and the known tricks against the
//! sandbox. Every program defines handlers `h1` .. `h4`; the fuzzer's bytes choose the rest.

use crate::choices::Choices;

/// The handlers every generated program defines.
pub const HANDLERS: [&str; 4] = ["h1", "h2", "h3", "h4"];

const PATHS: &[&str] = &["'a'", "'b.c'", "'list'", "'list.1'", "'deep.x.y'", "'n'", "'text'"];
const LIST_PATHS: &[&str] = &["'list'", "'items'", "'b.list'"];
const NUMBERS: &[&str] =
    &["0", "1", "-1", "7", "42", "1000", "3.5", "-0.0", "1e308", "2^53", "0/0", "1/0", "math.maxinteger", "math.mininteger", "math.pi"];
const STRINGS: &[&str] =
    &["'a'", "''", "'hello world'", "'héllo'", "'日本語'", "'%d'", "'a.b'", "'(x)'", "'\\0'", "'😀'", "('x'):rep(100)", "('ab'):rep(5000)"];
const PATTERNS: &[&str] =
    &["'%a+'", "'.-'", "'(%d+)'", "'^h'", "'[%w_]+'", "'%b()'", "'.-.-.-b'", "'x*y'", "'(a)%1'", "'()'", "'[a'", "'%f[%w]%w+'", "'%'"];
const MS: &[&str] = &["0", "1", "500", "1000", "60000", "-5", "1 << 62"];
const TRICKS: &[&str] = &[
    "string.upper = function() return 'HACKED' end",
    "rawset(_ENV, 'leak', 1)",
    "_G.leak = 1",
    "leak = 1",
    "getmetatable(_ENV).__newindex = nil",
    "getmetatable('').__index = {}",
    "setmetatable(_ENV, nil)",
    "rawset(string, 'upper', print)",
    "setmetatable({}, { __gc = function() end })",
    "math.random = function() return 4 end",
    "tostring = function() return '' end",
    "state.set = nil",
    "local t = {} t.t = t state.set('loop', t)",
    "local t = {} for i = 1, 100 do t = { t } end state.set('deep', t)",
    "error({})",
    "error(setmetatable({}, { __tostring = function() return 'custom' end }))",
    "string.format('%p', {})",
    "local t = { [{}] = 1 } for k in pairs(t) do end",
];

/// Builds one program's source from the choices.
pub fn program(c: &mut Choices<'_>) -> String {
    let mut out = String::from("local counter = 0\nlocal cache = {}\n");
    for name in HANDLERS {
        out.push_str(&format!("function {name}(ev)\n"));
        block(c, &mut out, 1, 0);
        out.push_str("end\n");
    }
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn block(c: &mut Choices<'_>, out: &mut String, level: usize, depth: usize) {
    let n = 1 + c.below(if depth == 0 { 6 } else { 3 });
    for _ in 0..n {
        indent(out, level);
        statement(c, out, level, depth);
        out.push('\n');
    }
}

fn statement(c: &mut Choices<'_>, out: &mut String, level: usize, depth: usize) {
    let nested = depth < 3;
    let kind = c.below(if nested { 30 } else { 24 });
    let line = match kind {
        0 | 1 => format!("state.set({}, {})", c.pick(PATHS), expr(c, 0)),
        2 => format!("state.insert({}, {})", c.pick(LIST_PATHS), expr(c, 0)),
        3 => format!("pcall(state.remove, {}, 1)", c.pick(LIST_PATHS)),
        4 => format!("locals.set({}, {})", c.pick(PATHS), expr(c, 0)),
        5 => format!("system.set('fuzz', {})", expr(c, 0)),
        6 => format!("nav.push('detail', {{ k = {} }})", expr(c, 0)),
        7 => (*c.pick(&["nav.pop()", "nav.replace('detail')", "nav.home()", "nav.open_app('Settings')", "nav.deep_link('nowhere://x')"]))
            .to_owned(),
        8 => format!("ui.toast({})", string_expr(c, 0)),
        9 => format!(
            "ui.dialog{{ title = {}, text = {}, buttons = {{ {{ text = 'OK' }}, {{ text = 'Go', handler = '{}' }} }} }}",
            string_expr(c, 0),
            string_expr(c, 0),
            c.pick(&HANDLERS)
        ),
        10 => format!("ui.snackbar{{ text = {}, action = 'Undo', handler = '{}' }}", string_expr(c, 0), c.pick(&HANDLERS)),
        11 => format!("ui.notify{{ title = {}, text = 'x', screen = 'detail' }}", string_expr(c, 0)),
        12 => format!("ui.sheet{{ title = 'Pick', options = {{ {{ text = 'A', handler = '{}' }} }} }}", c.pick(&HANDLERS)),
        13 => format!("timer.after({}, '{}', {{ a = {} }})", c.pick(MS), c.pick(&HANDLERS), expr(c, 0)),
        14 => format!("timer.cancel({})", c.pick(NUMBERS)),
        15 => format!("clipboard.set({})", string_expr(c, 0)),
        16 => "counter = counter + 1 state.set('counter', counter)".to_owned(),
        17 => format!("cache[#cache + 1] = {} state.set('cached', #cache)", expr(c, 0)),
        18 => format!("local v = {} state.set('v', type(v))", expr(c, 0)),
        19 => format!("pcall(function() {} end)", c.pick(TRICKS)),
        20 => format!("state.set('m', {{ ({}):find({}) }})", string_expr(c, 0), c.pick(PATTERNS)),
        21 => format!(
            "state.set('g', ({}):gsub({}, {}))",
            string_expr(c, 0),
            c.pick(PATTERNS),
            c.pick(&["'%0%0'", "'-'", "{ a = 'b' }", "string.upper"])
        ),
        22 => format!(
            "local t = {} local keys = {{}} for k in pairs(t) do keys[#keys + 1] = tostring(k) end state.set('keys', keys)",
            table(c, 0)
        ),
        23 => format!("state.set('r', {{ math.random({}, {}) }})", c.pick(NUMBERS), c.pick(NUMBERS)),
        // Control flow (nested blocks).
        24 => {
            let mut s = format!("for i = 1, {} do\n", c.pick(&["3", "10", "1000", "100000000"]));
            block(c, &mut s, level + 1, depth + 1);
            indent(&mut s, level);
            s.push_str("end");
            s
        }
        25 => {
            let mut s = String::from("while true do\n");
            block(c, &mut s, level + 1, depth + 1);
            indent(&mut s, level + 1);
            s.push_str(if c.one_in(4) { "\n" } else { "break\n" });
            indent(&mut s, level);
            s.push_str("end");
            s
        }
        26 => {
            let mut s = format!("if {} then\n", expr(c, 0));
            block(c, &mut s, level + 1, depth + 1);
            indent(&mut s, level);
            s.push_str("else\n");
            block(c, &mut s, level + 1, depth + 1);
            indent(&mut s, level);
            s.push_str("end");
            s
        }
        27 => {
            let mut s = String::from("pcall(function()\n");
            block(c, &mut s, level + 1, depth + 1);
            indent(&mut s, level);
            s.push_str("end)");
            s
        }
        28 => format!("if {} then error({}) end", expr(c, 0), string_expr(c, 0)),
        _ => format!("state.set('os', {{ os.time(), os.date({}), clock.now() }})", c.pick(&["'%Y-%m-%d %H:%M'", "'*t'", "'%p %a %b'"])),
    };
    out.push_str(&line);
}

fn expr(c: &mut Choices<'_>, depth: usize) -> String {
    let kinds = if depth < 2 { 12 } else { 5 };
    match c.below(kinds) {
        0 => (*c.pick(NUMBERS)).to_owned(),
        1 => string_expr(c, depth),
        2 => (*c.pick(&["true", "false", "nil"])).to_owned(),
        3 => format!("state.get({})", c.pick(PATHS)),
        4 => "counter".to_owned(),
        5 => table(c, depth + 1),
        6 => format!("locals.get({})", c.pick(PATHS)),
        7 => "content.get('items')".to_owned(),
        8 => format!("#{}", string_expr(c, depth + 1)),
        9 => format!("({} + {})", c.pick(NUMBERS), c.pick(NUMBERS)),
        10 => "(ev.params and ev.params.k)".to_owned(),
        _ => "(ev.args and ev.args.a)".to_owned(),
    }
}

fn string_expr(c: &mut Choices<'_>, depth: usize) -> String {
    let kinds = if depth < 2 { 8 } else { 1 };
    match c.below(kinds) {
        0 => (*c.pick(STRINGS)).to_owned(),
        1 => format!("tostring({})", expr(c, depth + 1)),
        2 => format!("string.format('%d items and %s', {}, {})", c.pick(&["1", "2^31", "-7"]), expr(c, depth + 1)),
        3 => format!("({}):upper()", c.pick(STRINGS)),
        4 => format!("({}):rep({})", c.pick(STRINGS), c.pick(&["0", "3", "1000", "1 << 40"])),
        5 => format!("table.concat({{ {}, {} }}, ',')", c.pick(STRINGS), c.pick(STRINGS)),
        6 => format!("(({}):gsub({}, 'z'))", c.pick(STRINGS), c.pick(PATTERNS)),
        _ => format!("(({}):sub({}, {}))", c.pick(STRINGS), c.pick(NUMBERS), c.pick(NUMBERS)),
    }
}

fn table(c: &mut Choices<'_>, depth: usize) -> String {
    match c.below(4) {
        0 => "{}".to_owned(),
        1 => format!("{{ {}, {}, {} }}", expr(c, depth + 1), expr(c, depth + 1), expr(c, depth + 1)),
        2 => format!("{{ a = {}, b = {{ {} }} }}", expr(c, depth + 1), expr(c, depth + 1)),
        _ => format!("{{ [1] = {}, x = {} }}", expr(c, depth + 1), expr(c, depth + 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choices::seeded_bytes;

    #[test]
    fn programs_compile_and_differ() {
        let mut sources = std::collections::BTreeSet::new();
        for seed in 0..50 {
            let bytes = seeded_bytes(seed, 400);
            let source = program(&mut Choices::new(&bytes));
            phoneworld_script::Program::from_sources("com.fuzz", &[("main.lua", &source)])
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{source}"));
            sources.insert(source);
        }
        assert!(sources.len() > 45);
        // No input at all is a valid program too.
        let source = program(&mut Choices::new(&[]));
        assert!(phoneworld_script::Program::from_sources("com.fuzz", &[("main.lua", &source)]).is_ok());
    }
}
