//! Binding expressions in layouts: state paths (`state.alarms`), boolean conditions
//! (`!state.wifi`, `local.mode == 'edit'`) and text templates (`"{item.time|time} alarm"`).
//! They are parsed when a layout loads, so a typo is reported with the file and line.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::valuepath;
use crate::vtime::{parse_date, weekday_of, MONTH_NAMES, WEEKDAY_NAMES};

/// Longest template, condition or path, in bytes (layouts hold short texts; a huge one
/// repeated in every row of a list would fill memory).
pub const MAX_EXPR_BYTES: usize = 4096;
/// Most parts (paths, values, operators, filters) in one expression.
pub const MAX_EXPR_PARTS: usize = 256;
/// Deepest nesting of parentheses and `!` in one expression: parsing recurses.
pub const MAX_EXPR_DEPTH: usize = 32;
/// Longest text a template renders to, in bytes: longer text is cut there.
pub const MAX_TEXT_BYTES: usize = 4096;
/// Most parts (list items, object fields) `==` and `!=` look at in two lists or objects.
pub const MAX_COMPARED_PARTS: usize = 10_000;

/// An expression's text for a message: cut, so that a huge one cannot make a huge message.
fn excerpt(text: &str) -> Cow<'_, str> {
    const SHOWN: usize = 80;
    if text.len() <= SHOWN {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{}…", cut(text, SHOWN)))
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn check_length(text: &str) -> Result<(), String> {
    if text.len() > MAX_EXPR_BYTES {
        return Err(format!("`{}` is {} bytes long (the limit is {MAX_EXPR_BYTES})", excerpt(text), text.len()));
    }
    Ok(())
}

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathRoot {
    /// The app's data (persisted, checked by verifiers).
    State,
    /// Screen-local UI state (form fields, selected tab); dropped when the screen is popped.
    Local,
    /// The app's read-only content.
    Content,
    /// The current screen's parameters.
    Params,
    /// System settings and the clock (`system.dark_theme`, `system.time`).
    System,
    /// The current row of a list.
    Item,
    /// The current row's position (counted from 1, as paths count).
    Index,
    /// The arguments of a layout module.
    Arg,
    /// What the screen's view function computed from the data (`vm.rows`): read-only.
    Vm,
}

impl PathRoot {
    fn parse(name: &str) -> Option<PathRoot> {
        Some(match name {
            "state" => PathRoot::State,
            "local" => PathRoot::Local,
            "content" => PathRoot::Content,
            "params" => PathRoot::Params,
            "system" => PathRoot::System,
            "item" => PathRoot::Item,
            "index" => PathRoot::Index,
            "arg" => PathRoot::Arg,
            "vm" => PathRoot::Vm,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            PathRoot::State => "state",
            PathRoot::Local => "local",
            PathRoot::Content => "content",
            PathRoot::Params => "params",
            PathRoot::System => "system",
            PathRoot::Item => "item",
            PathRoot::Index => "index",
            PathRoot::Arg => "arg",
            PathRoot::Vm => "vm",
        }
    }
}

/// A dotted path into one of the scope's roots; on a list, a numeric segment is a position
/// counted from 1 (see [`crate::valuepath`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Path {
    pub root: PathRoot,
    pub segments: Vec<String>,
}

impl Path {
    pub fn parse(text: &str) -> Result<Path, String> {
        check_length(text)?;
        let text = text.trim();
        let mut parts = text.split('.');
        let head = parts.next().unwrap_or_default();
        let root = PathRoot::parse(head).ok_or_else(|| {
            format!("`{}`: a path starts with state, local, content, params, system, vm, item, index or arg", excerpt(text))
        })?;
        let segments: Vec<String> = parts.map(str::to_owned).collect();
        if segments.iter().any(|s| s.is_empty() || !s.chars().all(|c| c.is_alphanumeric() || c == '_')) {
            return Err(format!("`{}` is not a valid path", excerpt(text)));
        }
        if root == PathRoot::Index && !segments.is_empty() {
            return Err(format!("`{}`: index has no fields", excerpt(text)));
        }
        Ok(Path { root, segments })
    }

    /// The path below the root, dotted (`alarms.1.label`).
    pub fn key(&self) -> String {
        self.segments.join(".")
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.root.name())?;
        for s in &self.segments {
            write!(f, ".{s}")?;
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Path {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Path::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The arguments of a layout module, evaluated where it is used. A path's value is borrowed,
/// not copied: a module used in every row of a long list may be passed a big list.
pub type Args<'a> = std::collections::BTreeMap<String, Cow<'a, Value>>;

/// The values a binding can see while a view is built.
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    pub state: &'a Value,
    pub local: &'a Value,
    pub content: &'a Value,
    pub params: &'a Value,
    pub system: &'a Value,
    /// What the screen's view function returned (`null` when it has none).
    pub vm: &'a Value,
    pub item: Option<&'a Value>,
    pub index: Option<usize>,
    pub args: Option<&'a Args<'a>>,
}

impl<'a> Scope<'a> {
    /// The scope of a list row: its item and its 0-based place in the list (`index` in
    /// layouts counts from 1).
    pub fn with_item(self, item: &'a Value, row: usize) -> Scope<'a> {
        Scope { item: Some(item), index: Some(row + 1), ..self }
    }

    pub fn with_args(self, args: &'a Args<'a>) -> Scope<'a> {
        Scope { args: Some(args), ..self }
    }

    /// Looks a path up; `None` when any step is missing.
    pub fn get(&self, path: &Path) -> Option<Cow<'a, Value>> {
        let value = self.look_up(path);
        READS.with(|reads| {
            if let Some(reads) = reads.borrow_mut().as_mut() {
                reads.note(path, value.as_deref());
            }
        });
        value
    }

    fn look_up(&self, path: &Path) -> Option<Cow<'a, Value>> {
        let root: &'a Value = match path.root {
            PathRoot::State => self.state,
            PathRoot::Local => self.local,
            PathRoot::Content => self.content,
            PathRoot::Params => self.params,
            PathRoot::System => self.system,
            PathRoot::Vm => self.vm,
            PathRoot::Item => self.item?,
            PathRoot::Arg => {
                let args = self.args?;
                let Some((name, rest)) = path.segments.split_first() else {
                    // `arg` alone: all of them, as one object (rare, so a copy).
                    return Some(Cow::Owned(Value::Object(args.iter().map(|(k, v)| (k.clone(), v.clone().into_owned())).collect())));
                };
                return valuepath::get(args.get(name)?.as_ref(), rest).map(Cow::Borrowed);
            }
            PathRoot::Index => return self.index.map(|i| Cow::Owned(Value::from(i))),
        };
        valuepath::get(root, &path.segments).map(Cow::Borrowed)
    }
}

thread_local! {
    /// What scopes looked up on this thread while [`reads_during`] watches (`None`: nobody
    /// watches): a builder keeps a list row it built by what the row read.
    static READS: std::cell::RefCell<Option<Reads>> = const { std::cell::RefCell::new(None) };
}

/// The longest string a watched read keeps by value; longer ones, lists and objects make the
/// read opaque (comparing them on every reuse would cost what they save).
const MAX_KEPT_READ_BYTES: usize = 256;

/// What a piece of work looked up through scopes (see [`reads_during`]).
#[derive(Debug, Default)]
pub struct Reads {
    /// Roots read in a way not kept below (directly, or a value too big to keep), a bit per
    /// [`PathRoot`].
    opaque: u16,
    /// The paths read outside a row's item, index and module arguments, with what they gave,
    /// in the order first read.
    values: Vec<(Path, Option<Value>)>,
}

impl Reads {
    fn bit(root: PathRoot) -> u16 {
        1 << root as u16
    }

    /// Whether every read but those of `except` was kept with its value (so the work, done
    /// again where those paths give the same values, reads the same).
    pub fn all_kept_except(&self, except: &[PathRoot]) -> bool {
        let allowed = except.iter().fold(0, |bits, root| bits | Reads::bit(*root));
        self.opaque & !allowed == 0
    }

    /// The paths read with their values.
    pub fn into_values(self) -> Vec<(Path, Option<Value>)> {
        self.values
    }

    fn note(&mut self, path: &Path, value: Option<&Value>) {
        let bit = Reads::bit(path.root);
        if matches!(path.root, PathRoot::Item | PathRoot::Index | PathRoot::Arg) {
            // Kept apart: the row's item and index are compared whole; module arguments are
            // derived from the row's own reads (or the row is not kept).
            self.opaque |= if path.root == PathRoot::Arg { bit } else { 0 };
            return;
        }
        let small = match value {
            None | Some(Value::Null | Value::Bool(_) | Value::Number(_)) => true,
            Some(Value::String(s)) => s.len() <= MAX_KEPT_READ_BYTES,
            Some(Value::Array(_) | Value::Object(_)) => false,
        };
        if !small {
            self.opaque |= bit;
        } else if !self.values.iter().any(|(p, _)| p == path) {
            self.values.push((path.clone(), value.cloned()));
        }
    }

    fn merge(&mut self, inner: &Reads) {
        self.opaque |= inner.opaque;
        for (path, value) in &inner.values {
            if !self.values.iter().any(|(p, _)| p == path) {
                self.values.push((path.clone(), value.clone()));
            }
        }
    }
}

/// Records a read of `root` that did not go through [`Scope::get`] (a widget reading the
/// state or the clock directly): a view built from it is not kept by what it read.
pub fn note_read(root: PathRoot) {
    READS.with(|reads| {
        if let Some(reads) = reads.borrow_mut().as_mut() {
            reads.opaque |= Reads::bit(root);
        }
    });
}

/// Runs `work` and returns what it returned with what it looked up through scopes on this
/// thread; an enclosing call sees those reads too.
pub fn reads_during<T>(work: impl FnOnce() -> T) -> (T, Reads) {
    let outer = READS.with(|reads| reads.replace(Some(Reads::default())));
    let out = work();
    let inner = READS.with(|reads| reads.replace(outer)).unwrap_or_default();
    READS.with(|reads| {
        if let Some(outer) = reads.borrow_mut().as_mut() {
            outer.merge(&inner);
        }
    });
    (out, inner)
}

/// Lua-like truthiness extended to empty collections: null, false, 0, "", [] and {} are false.
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    Upper,
    Lower,
    Initials,
    Len,
    Time,
    Duration,
    Stopwatch,
    Date,
    Weekdays,
    Round,
    Money,
}

impl Filter {
    fn parse(name: &str) -> Result<Filter, String> {
        Ok(match name.trim() {
            "upper" => Filter::Upper,
            "lower" => Filter::Lower,
            "initials" => Filter::Initials,
            "len" => Filter::Len,
            "time" => Filter::Time,
            "duration" => Filter::Duration,
            "stopwatch" => Filter::Stopwatch,
            "date" => Filter::Date,
            "weekdays" => Filter::Weekdays,
            "round" => Filter::Round,
            "money" => Filter::Money,
            other => {
                return Err(format!(
                    "unknown filter `{other}` (upper, lower, initials, len, time, duration, stopwatch, date, weekdays, round, money)"
                ))
            }
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Path(Path),
    Lit(Value),
    Not(Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Filter(Box<Expr>, Filter),
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    /// Parts made so far and the current nesting, against the limits.
    parts: usize,
    depth: usize,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str) -> Self {
        Parser { text, pos: 0, parts: 0, depth: 0 }
    }

    /// Counts one more part of the expression; a chain like `a && a && ...` makes a tree as
    /// deep as it is long, and evaluating it recurses.
    fn part(&mut self) -> Result<(), String> {
        self.parts += 1;
        if self.parts > MAX_EXPR_PARTS {
            return Err(self.err(&format!("more than {MAX_EXPR_PARTS} parts in one expression")));
        }
        Ok(())
    }

    fn nested<T>(&mut self, inner: impl FnOnce(&mut Self) -> Result<T, String>) -> Result<T, String> {
        if self.depth >= MAX_EXPR_DEPTH {
            return Err(self.err(&format!("nested more than {MAX_EXPR_DEPTH} deep")));
        }
        self.depth += 1;
        let out = inner(self);
        self.depth -= 1;
        out
    }

    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn skip_ws(&mut self) {
        while self.rest().starts_with(char::is_whitespace) {
            self.pos += self.rest().chars().next().map_or(1, char::len_utf8);
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn err(&self, what: &str) -> String {
        format!("in `{}` at column {}: {what}", excerpt(self.text), self.pos + 1)
    }

    fn full(mut self) -> Result<Expr, String> {
        let expr = self.filtered()?;
        self.skip_ws();
        if !self.rest().is_empty() {
            return Err(self.err("unexpected text"));
        }
        Ok(expr)
    }

    fn filtered(&mut self) -> Result<Expr, String> {
        let mut expr = self.cond()?;
        while self.eat("|") {
            if self.rest().starts_with('|') {
                return Err(self.err("`||` cannot follow a filter"));
            }
            self.skip_ws();
            let start = self.pos;
            while let Some(c) = self.rest().chars().next().filter(|c| c.is_alphanumeric() || *c == '_') {
                self.pos += c.len_utf8();
            }
            let filter = Filter::parse(&self.text[start..self.pos]).map_err(|e| self.err(&e))?;
            self.part()?;
            expr = Expr::Filter(Box::new(expr), filter);
        }
        Ok(expr)
    }

    fn cond(&mut self) -> Result<Expr, String> {
        let test = self.or()?;
        if self.eat("?") {
            let yes = self.or()?;
            if !self.eat(":") {
                return Err(self.err("expected `:`"));
            }
            let no = self.or()?;
            self.part()?;
            return Ok(Expr::Cond(Box::new(test), Box::new(yes), Box::new(no)));
        }
        Ok(test)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while self.eat("||") {
            self.part()?;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.cmp()?;
        while self.eat("&&") {
            self.part()?;
            left = Expr::And(Box::new(left), Box::new(self.cmp()?));
        }
        Ok(left)
    }

    fn cmp(&mut self) -> Result<Expr, String> {
        let left = self.unary()?;
        let ops = [("==", CmpOp::Eq), ("!=", CmpOp::Ne), ("<=", CmpOp::Le), (">=", CmpOp::Ge), ("<", CmpOp::Lt), (">", CmpOp::Gt)];
        for (token, op) in ops {
            if self.eat(token) {
                self.part()?;
                return Ok(Expr::Cmp(op, Box::new(left), Box::new(self.unary()?)));
            }
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        self.part()?;
        if self.eat("!") {
            return self.nested(|p| Ok(Expr::Not(Box::new(p.unary()?))));
        }
        if self.eat("(") {
            let inner = self.nested(Self::filtered)?;
            if !self.eat(")") {
                return Err(self.err("expected `)`"));
            }
            return Ok(inner);
        }
        self.skip_ws();
        let rest = self.rest();
        if let Some(quoted) = rest.strip_prefix('\'') {
            let end = quoted.find('\'').ok_or_else(|| self.err("unterminated string"))?;
            self.pos += end + 2;
            return Ok(Expr::Lit(Value::String(quoted[..end].to_owned())));
        }
        let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '-')).unwrap_or(rest.len());
        let word = &rest[..len];
        if word.is_empty() {
            return Err(self.err("expected a path or a value"));
        }
        self.pos += len;
        Ok(match word {
            "true" => Expr::Lit(Value::Bool(true)),
            "false" => Expr::Lit(Value::Bool(false)),
            "null" => Expr::Lit(Value::Null),
            _ => {
                if let Ok(n) = word.parse::<i64>() {
                    Expr::Lit(Value::from(n))
                } else if let Ok(f) = word.parse::<f64>() {
                    Expr::Lit(Value::from(f))
                } else {
                    Expr::Path(Path::parse(word).map_err(|e| self.err(&e))?)
                }
            }
        })
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn compare(op: CmpOp, a: &Value, b: &Value) -> bool {
    let ordering = match (as_f64(a), as_f64(b)) {
        (Some(x), Some(y)) if !matches!((a, b), (Value::String(_), Value::String(_))) => x.partial_cmp(&y),
        _ => match (a, b) {
            (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
            _ => None,
        },
    };
    match op {
        CmpOp::Eq => ordering == Some(std::cmp::Ordering::Equal) || (ordering.is_none() && same(a, b)),
        CmpOp::Ne => !(ordering == Some(std::cmp::Ordering::Equal) || (ordering.is_none() && same(a, b))),
        CmpOp::Lt => ordering == Some(std::cmp::Ordering::Less),
        CmpOp::Le => matches!(ordering, Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)),
        CmpOp::Gt => ordering == Some(std::cmp::Ordering::Greater),
        CmpOp::Ge => matches!(ordering, Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)),
    }
}

/// Deep equality of lists and objects, which counts as different past [`MAX_COMPARED_PARTS`]
/// parts: a condition comparing two huge values in every row of a long list would otherwise
/// take minutes. A value is always equal to itself.
fn same(a: &Value, b: &Value) -> bool {
    let mut budget = MAX_COMPARED_PARTS;
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        if std::ptr::eq(a, b) {
            continue;
        }
        let parts = match (a, b) {
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x.len(),
            (Value::Object(x), Value::Object(y)) if x.len() == y.len() => x.len(),
            (Value::Array(_) | Value::Object(_), _) => return false,
            _ if a == b => continue,
            _ => return false,
        };
        if parts > budget {
            return false;
        }
        budget -= parts;
        match (a, b) {
            (Value::Array(x), Value::Array(y)) => stack.extend(x.iter().zip(y)),
            (Value::Object(x), Value::Object(y)) => {
                for (key, v) in x {
                    let Some(w) = y.get(key) else { return false };
                    stack.push((v, w));
                }
            }
            _ => {}
        }
    }
    true
}

impl Expr {
    fn eval<'a>(&self, scope: &Scope<'a>) -> Cow<'a, Value> {
        match self {
            Expr::Path(p) => scope.get(p).unwrap_or(Cow::Owned(Value::Null)),
            Expr::Lit(v) => Cow::Owned(v.clone()),
            Expr::Not(e) => Cow::Owned(Value::Bool(!truthy(&e.eval(scope)))),
            Expr::Cmp(op, a, b) => Cow::Owned(Value::Bool(compare(*op, &a.eval(scope), &b.eval(scope)))),
            Expr::And(a, b) => Cow::Owned(Value::Bool(truthy(&a.eval(scope)) && truthy(&b.eval(scope)))),
            Expr::Or(a, b) => Cow::Owned(Value::Bool(truthy(&a.eval(scope)) || truthy(&b.eval(scope)))),
            Expr::Cond(c, a, b) => {
                if truthy(&c.eval(scope)) {
                    a.eval(scope)
                } else {
                    b.eval(scope)
                }
            }
            Expr::Filter(e, f) => Cow::Owned(apply_filter(*f, &e.eval(scope), scope)),
        }
    }

    fn paths<'s>(&'s self, out: &mut Vec<&'s Path>) {
        match self {
            Expr::Path(p) => out.push(p),
            Expr::Lit(_) => {}
            Expr::Not(e) | Expr::Filter(e, _) => e.paths(out),
            Expr::Cmp(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
                a.paths(out);
                b.paths(out);
            }
            Expr::Cond(c, a, b) => {
                c.paths(out);
                a.paths(out);
                b.paths(out);
            }
        }
    }
}

fn apply_filter(filter: Filter, value: &Value, scope: &Scope<'_>) -> Value {
    let text = || display(value).into_owned();
    match filter {
        Filter::Upper => Value::String(text().to_uppercase()),
        Filter::Lower => Value::String(text().to_lowercase()),
        Filter::Initials => {
            Value::String(text().split_whitespace().filter_map(|w| w.chars().next()).take(2).flat_map(char::to_uppercase).collect())
        }
        Filter::Len => Value::from(match value {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.len(),
            Value::String(s) => s.chars().count(),
            _ => 0,
        }),
        Filter::Time => {
            let minutes = as_f64(value).unwrap_or(0.0) as i64;
            note_read(PathRoot::System);
            Value::String(crate::format_minutes(minutes, crate::clock_24h(scope.system)))
        }
        Filter::Duration => {
            let secs = (as_f64(value).unwrap_or(0.0) / 1000.0).ceil().max(0.0) as i64;
            Value::String(if secs >= 3600 {
                format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
            } else {
                format!("{:02}:{:02}", secs / 60, secs % 60)
            })
        }
        Filter::Stopwatch => {
            let ms = as_f64(value).unwrap_or(0.0).max(0.0) as i64;
            Value::String(format!("{:02}:{:02}.{:02}", ms / 60_000, ms / 1000 % 60, ms / 10 % 100))
        }
        Filter::Date => match parse_date(&text()) {
            Some((y, m, d)) => {
                Value::String(format!("{}, {} {d}, {y}", &WEEKDAY_NAMES[weekday_of(y, m, d)][..3], &MONTH_NAMES[(m - 1) as usize][..3]))
            }
            None => Value::String(text()),
        },
        Filter::Weekdays => match value {
            Value::Array(days) if days.len() == 7 && days.iter().all(|d| as_f64(d).is_some_and(|n| n != 0.0)) => {
                Value::String("Every day".into())
            }
            Value::Array(days) if days.is_empty() => Value::String("Once".into()),
            Value::Array(days) => Value::String(
                days.iter()
                    .filter_map(|d| as_f64(d).and_then(|n| WEEKDAY_NAMES.get(n as usize)))
                    .map(|n| &n[..3])
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            _ => Value::String("Once".into()),
        },
        Filter::Round => Value::from(as_f64(value).unwrap_or(0.0).round() as i64),
        Filter::Money => Value::String(format!("{:.2}", as_f64(value).unwrap_or(0.0))),
    }
}

/// How a value reads in text: strings as is, whole numbers without a fraction; at most
/// [`MAX_TEXT_BYTES`] of it (a filter on a huge string then costs no more than on a short one).
pub(crate) fn display(value: &Value) -> Cow<'_, str> {
    match value {
        Value::Null => Cow::Borrowed(""),
        Value::String(s) => Cow::Borrowed(cut(s, MAX_TEXT_BYTES)),
        Value::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Cow::Owned(i.to_string()),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => Cow::Owned(format!("{}", f as i64)),
            (None, Some(f)) => Cow::Owned(format!("{}", (f * 100.0).round() / 100.0)),
            _ => Cow::Owned(n.to_string()),
        },
        other => Cow::Owned(json_prefix(other)),
    }
}

/// The JSON of a list or object, stopping at [`MAX_TEXT_BYTES`] rather than writing it all.
fn json_prefix(value: &Value) -> String {
    struct Capped(Vec<u8>);
    impl std::io::Write for Capped {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = MAX_TEXT_BYTES - self.0.len();
            self.0.extend_from_slice(&buf[..buf.len().min(room)]);
            if buf.len() > room {
                return Err(std::io::Error::other("long enough"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Capped(Vec::new());
    // Stopping early is the point: the error only says the text is long enough.
    let _ = serde_json::to_writer(&mut out, value);
    match String::from_utf8(out.0) {
        Ok(text) => text,
        Err(err) => {
            let valid = err.utf8_error().valid_up_to();
            let mut bytes = err.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).unwrap_or_default()
        }
    }
}

/// A condition: `true`, `false`, or an expression string.
#[derive(Debug, Clone, PartialEq)]
pub struct BoolExpr(Expr);

impl BoolExpr {
    pub fn constant(value: bool) -> BoolExpr {
        BoolExpr(Expr::Lit(Value::Bool(value)))
    }

    pub fn parse(text: &str) -> Result<BoolExpr, String> {
        check_length(text)?;
        Parser::new(text).full().map(BoolExpr)
    }

    pub fn eval(&self, scope: &Scope<'_>) -> bool {
        truthy(&self.0.eval(scope))
    }

    pub fn paths(&self) -> Vec<&Path> {
        let mut out = Vec::new();
        self.0.paths(&mut out);
        out
    }
}

impl<'de> Deserialize<'de> for BoolExpr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bool(b) => Ok(BoolExpr::constant(b)),
            Raw::Text(t) => BoolExpr::parse(&t).map_err(serde::de::Error::custom),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Lit(String),
    Expr(Expr),
}

/// Text with `{expression}` holes; `{{` and `}}` are literal braces.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    pub fn literal(text: &str) -> Template {
        Template { pieces: vec![Piece::Lit(text.to_owned())] }
    }

    pub fn parse(text: &str) -> Result<Template, String> {
        check_length(text)?;
        let mut pieces = Vec::new();
        let mut lit = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' if chars.peek().map(|p| p.1) == Some('{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek().map(|p| p.1) == Some('}') => {
                    chars.next();
                    lit.push('}');
                }
                '{' => {
                    let close = text[i..].find('}').ok_or_else(|| format!("in `{}`: `{{` without `}}`", excerpt(text)))?;
                    let inner = &text[i + 1..i + close];
                    if !lit.is_empty() {
                        pieces.push(Piece::Lit(std::mem::take(&mut lit)));
                    }
                    pieces.push(Piece::Expr(Parser::new(inner).full()?));
                    while chars.peek().is_some_and(|p| p.0 <= i + close) {
                        chars.next();
                    }
                }
                '}' => return Err(format!("in `{}`: `}}` without `{{` (write `}}}}` for a brace)", excerpt(text))),
                _ => lit.push(c),
            }
        }
        if !lit.is_empty() || pieces.is_empty() {
            pieces.push(Piece::Lit(lit));
        }
        Ok(Template { pieces })
    }

    /// The path, when the template is exactly one path (`"{state.alarms}"`).
    pub fn as_path(&self) -> Option<&Path> {
        match self.pieces.as_slice() {
            [Piece::Expr(Expr::Path(p))] => Some(p),
            _ => None,
        }
    }

    pub fn is_constant(&self) -> bool {
        self.pieces.iter().all(|p| matches!(p, Piece::Lit(_)))
    }

    /// The text, cut at [`MAX_TEXT_BYTES`].
    pub fn render(&self, scope: &Scope<'_>) -> String {
        if let [Piece::Lit(s)] = self.pieces.as_slice() {
            return cut(s, MAX_TEXT_BYTES).to_owned();
        }
        let mut out = String::new();
        for piece in &self.pieces {
            let text = match piece {
                Piece::Lit(s) => Cow::Borrowed(s.as_str()),
                Piece::Expr(e) => display(&e.eval(scope)).into_owned().into(),
            };
            out.push_str(cut(&text, MAX_TEXT_BYTES - out.len()));
            if out.len() + 4 > MAX_TEXT_BYTES {
                break;
            }
        }
        out
    }

    /// Evaluates a template that is one expression to its value (a list, a number);
    /// other templates give their text.
    pub fn value<'a>(&self, scope: &Scope<'a>) -> Cow<'a, Value> {
        match self.pieces.as_slice() {
            [Piece::Expr(e)] => e.eval(scope),
            _ => Cow::Owned(Value::String(self.render(scope))),
        }
    }

    pub fn paths(&self) -> Vec<&Path> {
        let mut out = Vec::new();
        for piece in &self.pieces {
            if let Piece::Expr(e) = piece {
                e.paths(&mut out);
            }
        }
        out
    }
}

impl<'de> Deserialize<'de> for Template {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Int(i64),
            Float(f64),
            Bool(bool),
        }
        match Raw::deserialize(d)? {
            Raw::Text(t) => Template::parse(&t).map_err(serde::de::Error::custom),
            Raw::Int(i) => Ok(Template::literal(&i.to_string())),
            Raw::Float(f) => Ok(Template::literal(&f.to_string())),
            Raw::Bool(b) => Ok(Template::literal(if b { "true" } else { "false" })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with_scope(f: impl FnOnce(Scope<'_>)) {
        let state = json!({"wifi": true, "alarms": [{"time": 405, "label": "Gym"}], "name": "Ada Lovelace", "n": 3});
        let local = json!({"mode": "edit"});
        let null = Value::Null;
        f(Scope {
            state: &state,
            local: &local,
            content: &null,
            params: &null,
            system: &null,
            vm: &null,
            item: None,
            index: None,
            args: None,
        });
    }

    #[test]
    fn templates_render_paths_and_filters() {
        with_scope(|s| {
            let t = Template::parse("{state.alarms.1.label} at {state.alarms.1.time|time}").unwrap();
            assert_eq!(t.render(&s), "Gym at 06:45");
            assert_eq!(Template::parse("{state.name|initials}").unwrap().render(&s), "AL");
            assert_eq!(Template::parse("{state.wifi ? 'On' : 'Off'}").unwrap().render(&s), "On");
            assert_eq!(Template::parse("{state.alarms|len} alarm(s) {{x}}").unwrap().render(&s), "1 alarm(s) {x}");
            assert_eq!(Template::parse("{(state.alarms|len) == 1 ? 'alarm' : 'alarms'}").unwrap().render(&s), "alarm");
        });
    }

    #[test]
    fn conditions() {
        with_scope(|s| {
            assert!(BoolExpr::parse("state.wifi && local.mode == 'edit'").unwrap().eval(&s));
            assert!(!BoolExpr::parse("!state.alarms").unwrap().eval(&s));
            assert!(BoolExpr::parse("state.n > 2").unwrap().eval(&s));
            assert!(BoolExpr::parse("(state.n >= 4) || state.missing == null").unwrap().eval(&s));
        });
    }

    #[test]
    fn errors_say_where() {
        assert!(Template::parse("{state.x").unwrap_err().contains("without"));
        assert!(Template::parse("{stat.x}").unwrap_err().contains("a path starts with"));
        assert!(Template::parse("{state.x|shout}").unwrap_err().contains("unknown filter"));
        assert!(BoolExpr::parse("state.a ==").unwrap_err().contains("column"));
    }

    #[test]
    fn weekday_is_right() {
        assert_eq!(weekday_of(2026, 11, 30), 0); // a Monday
        assert_eq!(weekday_of(2024, 2, 29), 3); // a Thursday
    }
}
