//! The parts of Lua's string library whose work inside C no hook can see, rewritten to charge
//! the event's budget: `find`, `match`, `gmatch`, `gsub` (pattern matching can take
//! exponential time) and `byte` (one call can return a million values).

mod args;
pub(crate) mod pattern;

use std::sync::Arc;

use mlua::{Lua, MultiValue, Table, Value};

pub(crate) use args::{bad_argument, end_position, start_position, Args};
use pattern::{Capture, Matcher, PatternError};

use crate::budget::Budget;

/// At most this many values come back from one library call (`string.byte`, `table.unpack`,
/// `utf8.codepoint`): each later instruction that passes them on copies them all.
pub(crate) const MAX_RESULTS: usize = 1000;

/// How many `gsub` calls may wait on a replacement function at once: each level holds Rust
/// stack, and a replacement function that calls `gsub` again would otherwise recurse until
/// Lua's own limit of 200 C calls.
const MAX_NESTED_GSUB: usize = 16;

/// What the functions need: the budget to charge, and the largest string they may build.
#[derive(Clone)]
pub(crate) struct StrLib {
    pub(crate) budget: Arc<Budget>,
    pub(crate) max_string_bytes: usize,
    pub(crate) nested: Arc<std::sync::atomic::AtomicUsize>,
}

/// What `gsub` replaces a match with.
enum Repl {
    Text(Vec<u8>),
    Table(Table),
    Function(mlua::Function),
}

/// Counts one level of `gsub` calling back into Lua while it lives.
struct Nested<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> Nested<'a> {
    fn enter(counter: &'a std::sync::atomic::AtomicUsize) -> mlua::Result<Nested<'a>> {
        let depth = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let guard = Nested(counter);
        if depth >= MAX_NESTED_GSUB {
            return Err(mlua::Error::runtime(format!("gsub: replacement functions nested more than {MAX_NESTED_GSUB} deep")));
        }
        Ok(guard)
    }
}

impl Drop for Nested<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

fn stop(budget: &Budget, function: &str) -> mlua::Error {
    mlua::Error::runtime(budget.stopped_message(&format!("string.{function}")))
}

impl StrLib {
    fn matcher<'m>(&self, src: &'m [u8], pat: &'m [u8]) -> Matcher<'m> {
        Matcher::new(src, pat, self.budget.left())
    }

    /// Charges what a matcher did and turns its error into Lua's.
    fn settle<T>(&self, function: &str, steps: u64, result: Result<T, PatternError>) -> mlua::Result<T> {
        let within = self.budget.charge(steps);
        match result {
            Err(PatternError::Malformed(message)) => Err(bad_argument(2, function, &message)),
            Err(PatternError::Budget) => Err(stop(&self.budget, function)),
            Ok(_) if !within => Err(stop(&self.budget, function)),
            Ok(value) => Ok(value),
        }
    }

    fn capture_value(&self, lua: &Lua, src: &[u8], capture: Capture) -> mlua::Result<Value> {
        Ok(match capture {
            Capture::Span { start, end } => Value::String(lua.create_string(&src[start..end])?),
            Capture::Position(at) => Value::Integer(at as i64 + 1),
        })
    }

    fn capture_values(&self, lua: &Lua, src: &[u8], captures: Vec<Capture>) -> mlua::Result<MultiValue> {
        captures.into_iter().map(|c| self.capture_value(lua, src, c)).collect()
    }

    /// `string.find` (`find` true) and `string.match`.
    fn find_aux(&self, lua: &Lua, args: MultiValue, find: bool) -> mlua::Result<MultiValue> {
        let name = if find { "find" } else { "match" };
        let args = Args::new(lua, args, name);
        let (s, p) = (args.string(1)?, args.string(2)?);
        let (src, pat) = (s.as_bytes(), p.as_bytes());
        let init = start_position(args.opt_integer(3, 1)?, src.len()) - 1;
        if init > src.len() {
            return Ok(MultiValue::from_vec(vec![Value::Nil]));
        }
        let plain = find && (!matches!(args.get(4), Value::Nil | Value::Boolean(false)) || pattern::is_plain(&pat));
        if plain {
            let (found, steps) = pattern::find_plain(&src, &pat, init);
            self.settle(name, steps, Ok(()))?;
            return Ok(match found {
                Some(at) => MultiValue::from_vec(vec![Value::Integer(at as i64 + 1), Value::Integer((at + pat.len()) as i64)]),
                None => MultiValue::from_vec(vec![Value::Nil]),
            });
        }
        let (pat, anchor) = match pat.strip_prefix(b"^") {
            Some(rest) => (rest, true),
            None => (&pat[..], false),
        };
        let mut m = self.matcher(&src, pat);
        let found = (|| {
            let mut start = init;
            loop {
                if let Some(end) = m.match_at(start)? {
                    let captures = m.captures(start, end, !find)?;
                    return Ok(Some((start, end, captures)));
                }
                start += 1;
                if anchor || start > src.len() {
                    return Ok(None);
                }
            }
        })();
        let found = self.settle(name, m.steps(), found)?;
        let Some((start, end, captures)) = found else { return Ok(MultiValue::from_vec(vec![Value::Nil])) };
        let mut out = self.capture_values(lua, &src, captures)?;
        if find {
            out.push_front(Value::Integer(end as i64));
            out.push_front(Value::Integer(start as i64 + 1));
        }
        Ok(out)
    }

    /// `string.gmatch(s, pattern [, init])`: an iterator over the matches.
    fn gmatch(&self, lua: &Lua, args: MultiValue) -> mlua::Result<mlua::Function> {
        let args = Args::new(lua, args, "gmatch");
        let (s, p) = (args.string(1)?, args.string(2)?);
        let len = s.as_bytes().len();
        let init = start_position(args.opt_integer(3, 1)?, len) - 1;
        let mut next = init.min(len + 1);
        let mut last_match: Option<usize> = None;
        let lib = self.clone();
        lua.create_function_mut(move |lua, ()| {
            let (src, pat) = (s.as_bytes(), p.as_bytes());
            let mut m = lib.matcher(&src, &pat);
            let found = (|| {
                let mut start = next;
                while start <= src.len() {
                    if let Some(end) = m.match_at(start)? {
                        if Some(end) != last_match {
                            return Ok(Some((start, end, m.captures(start, end, true)?)));
                        }
                    }
                    start += 1;
                }
                Ok(None)
            })();
            match lib.settle("gmatch", m.steps(), found)? {
                Some((_, end, captures)) => {
                    next = end;
                    last_match = Some(end);
                    lib.capture_values(lua, &src, captures)
                }
                None => {
                    next = src.len() + 1;
                    Ok(MultiValue::new())
                }
            }
        })
    }

    /// `string.gsub(s, pattern, repl [, n])`.
    fn gsub(&self, lua: &Lua, args: MultiValue) -> mlua::Result<(Value, i64)> {
        let args = Args::new(lua, args, "gsub");
        let (s, p) = (args.string(1)?, args.string(2)?);
        let repl = args.get(3);
        if !matches!(repl, Value::String(_) | Value::Integer(_) | Value::Number(_) | Value::Table(_) | Value::Function(_)) {
            let got = if args.values.len() < 3 { "no value".to_owned() } else { repl.type_name().to_owned() };
            return Err(bad_argument(3, "gsub", &format!("string/function/table expected, got {got}")));
        }
        let repl = match repl {
            Value::Table(t) => Repl::Table(t),
            Value::Function(f) => Repl::Function(f),
            _ => Repl::Text(args.string(3)?.as_bytes().to_vec()),
        };
        let src_bytes = s.as_bytes();
        let src: &[u8] = &src_bytes;
        let max_n = args.opt_integer(4, src.len() as i64 + 1)?;
        let p_bytes = p.as_bytes();
        let (pat, anchor) = match p_bytes.strip_prefix(b"^") {
            Some(rest) => (rest, true),
            None => (&p_bytes[..], false),
        };
        let mut out: Vec<u8> = Vec::new();
        let mut changed = false;
        let mut n = 0i64;
        let mut at = 0usize;
        let mut last_match: Option<usize> = None;
        let mut m = self.matcher(src, pat);
        while n < max_n {
            let end = match m.match_at(at) {
                Ok(end) => end,
                Err(e) => return self.settle("gsub", m.steps(), Err(e)),
            };
            match end {
                Some(end) if Some(end) != last_match => {
                    n += 1;
                    changed |= self.add_value(lua, &mut m, &mut out, src, (at, end), &repl)?;
                    at = end;
                    last_match = Some(end);
                }
                _ if at < src.len() => {
                    out.push(src[at]);
                    at += 1;
                }
                _ => break,
            }
            if out.len() > self.max_string_bytes {
                return Err(mlua::Error::runtime("resulting string too large"));
            }
            if anchor {
                break;
            }
        }
        self.settle("gsub", m.steps().saturating_add(out.len() as u64 / 16), Ok(()))?;
        if !changed {
            return Ok((Value::String(s.clone()), n));
        }
        out.extend_from_slice(&src[at..]);
        if out.len() > self.max_string_bytes {
            return Err(mlua::Error::runtime("resulting string too large"));
        }
        Ok((Value::String(lua.create_string(&out)?), n))
    }

    /// Appends the replacement of one match; false when the match is kept as it was.
    fn add_value(
        &self,
        lua: &Lua,
        m: &mut Matcher<'_>,
        out: &mut Vec<u8>,
        src: &[u8],
        (start, end): (usize, usize),
        repl: &Repl,
    ) -> mlua::Result<bool> {
        let value = match repl {
            Repl::Table(table) => {
                let _nested = Nested::enter(&self.nested)?;
                let first = self.settle("gsub", 0, m.capture(0, start, end))?;
                table.get::<Value>(self.capture_value(lua, src, first)?)?
            }
            Repl::Function(function) => {
                let _nested = Nested::enter(&self.nested)?;
                let captures = self.settle("gsub", 0, m.captures(start, end, true))?;
                function.call::<Value>(self.capture_values(lua, src, captures)?)?
            }
            Repl::Text(text) => {
                self.add_text(m, out, src, (start, end), text)?;
                return Ok(true);
            }
        };
        match value {
            Value::Nil | Value::Boolean(false) => {
                out.extend_from_slice(&src[start..end]);
                Ok(false)
            }
            Value::String(_) | Value::Integer(_) | Value::Number(_) => {
                let text = lua.coerce_string(value)?.map(|t| t.as_bytes().to_vec()).unwrap_or_default();
                out.extend_from_slice(&text);
                Ok(true)
            }
            other => Err(mlua::Error::runtime(format!("invalid replacement value (a {})", other.type_name()))),
        }
    }

    /// A replacement string with `%0`..`%9` and `%%`.
    fn add_text(&self, m: &mut Matcher<'_>, out: &mut Vec<u8>, src: &[u8], (start, end): (usize, usize), text: &[u8]) -> mlua::Result<()> {
        let mut i = 0;
        while i < text.len() {
            let c = text[i];
            i += 1;
            if c != b'%' {
                out.push(c);
                continue;
            }
            let d = text.get(i).copied().unwrap_or(0);
            i += 1;
            match d {
                b'%' => out.push(b'%'),
                b'0' => out.extend_from_slice(&src[start..end]),
                b'1'..=b'9' => match self.settle("gsub", 0, m.capture(usize::from(d - b'1'), start, end))? {
                    Capture::Span { start, end } => out.extend_from_slice(&src[start..end]),
                    Capture::Position(at) => out.extend_from_slice((at + 1).to_string().as_bytes()),
                },
                _ => return Err(mlua::Error::runtime("invalid use of '%' in replacement string")),
            }
            if out.len() > self.max_string_bytes {
                return Err(mlua::Error::runtime("resulting string too large"));
            }
        }
        Ok(())
    }

    /// `string.byte(s [, i [, j]])`, returning at most [`MAX_RESULTS`] values.
    fn byte(&self, lua: &Lua, args: MultiValue) -> mlua::Result<MultiValue> {
        let args = Args::new(lua, args, "byte");
        let s = args.string(1)?;
        let bytes = s.as_bytes();
        let i = args.opt_integer(2, 1)?;
        let first = start_position(i, bytes.len());
        let last = end_position(args.opt_integer(3, i)?, bytes.len());
        if first > last {
            return Ok(MultiValue::new());
        }
        let count = last - first + 1;
        if count > MAX_RESULTS {
            return Err(mlua::Error::runtime(format!("string slice too long (at most {MAX_RESULTS} values)")));
        }
        self.budget.charge_or_stop("string.byte", count as u64)?;
        Ok(bytes[first - 1..last].iter().map(|b| Value::Integer(i64::from(*b))).collect())
    }
}

/// Puts the Rust versions into the (real, not yet locked) `string` table.
pub(crate) fn install(lua: &Lua, string: &Table, lib: &StrLib) -> mlua::Result<()> {
    let l = lib.clone();
    string.raw_set("find", lua.create_function(move |lua, args: MultiValue| l.find_aux(lua, args, true))?)?;
    let l = lib.clone();
    string.raw_set("match", lua.create_function(move |lua, args: MultiValue| l.find_aux(lua, args, false))?)?;
    let l = lib.clone();
    string.raw_set("gmatch", lua.create_function(move |lua, args: MultiValue| l.gmatch(lua, args))?)?;
    let l = lib.clone();
    string.raw_set("gsub", lua.create_function(move |lua, args: MultiValue| l.gsub(lua, args))?)?;
    let l = lib.clone();
    string.raw_set("byte", lua.create_function(move |lua, args: MultiValue| l.byte(lua, args))?)?;
    Ok(())
}
