//! Query parameters read as the upstream server (FastAPI over pydantic) reads them, with its
//! validation errors: a missing or unparseable parameter is a 422 whose `detail` lists every
//! problem, in the order the endpoint declares its parameters.

use serde_json::{json, Value};

/// One entry of FastAPI's 422 `detail` list.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub kind: &'static str,
    pub loc: Vec<Value>,
    pub msg: String,
    pub input: Value,
    /// Pydantic's `ctx` (why the JSON could not be read), after `input` when present.
    pub ctx: Option<Box<Value>>,
}

impl FieldError {
    /// The entry as FastAPI writes it, keys in its order.
    pub fn to_json_text(&self) -> String {
        let ctx = self.ctx.as_ref().map(|c| format!(",\"ctx\":{c}")).unwrap_or_default();
        format!("{{\"type\":{},\"loc\":{},\"msg\":{},\"input\":{}{ctx}}}", json!(self.kind), json!(self.loc), json!(self.msg), self.input)
    }

    /// A 422 body listing `errors`.
    pub fn detail_text(errors: &[FieldError]) -> String {
        format!("{{\"detail\":[{}]}}", errors.iter().map(FieldError::to_json_text).collect::<Vec<_>>().join(","))
    }

    fn query(kind: &'static str, name: &str, msg: &str, input: Value) -> FieldError {
        FieldError { kind, loc: vec![json!("query"), json!(name)], msg: msg.to_owned(), input, ctx: None }
    }
}

/// The parameters of one request's query string, decoded as a form (`+` is a space). A name
/// given twice takes its last value, as Starlette does.
#[derive(Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

/// Reads one endpoint's parameters from a [`Query`], collecting every problem.
#[derive(Debug)]
pub struct Reader<'a> {
    query: &'a Query,
    errors: Vec<FieldError>,
}

impl Query {
    pub fn parse(raw: Option<&str>) -> Query {
        let pairs = raw.map(form_decode).unwrap_or_default();
        Query { pairs }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn reader(&self) -> Reader<'_> {
        Reader { query: self, errors: Vec::new() }
    }
}

impl Reader<'_> {
    /// A required string.
    pub fn string(&mut self, name: &str) -> Option<String> {
        match self.query.get(name) {
            Some(v) => Some(v.to_owned()),
            None => self.missing(name),
        }
    }

    /// A string with a default.
    pub fn string_or(&mut self, name: &str, default: &str) -> String {
        self.query.get(name).unwrap_or(default).to_owned()
    }

    /// A required boolean.
    pub fn boolean(&mut self, name: &str) -> Option<bool> {
        self.required(name, &BOOL)
    }

    /// A boolean with a default.
    pub fn boolean_or(&mut self, name: &str, default: bool) -> bool {
        self.optional(name, &BOOL).unwrap_or(default)
    }

    /// A required integer.
    pub fn integer(&mut self, name: &str) -> Option<i128> {
        self.required(name, &INT)
    }

    /// An integer with a default.
    pub fn integer_or(&mut self, name: &str, default: i128) -> i128 {
        self.optional(name, &INT).unwrap_or(default)
    }

    /// One of `choices`, or `default` when absent.
    pub fn choice_or(&mut self, name: &str, choices: &[&'static str], default: &'static str) -> &'static str {
        let Some(raw) = self.query.get(name) else { return default };
        if let Some(found) = choices.iter().find(|c| **c == raw) {
            return found;
        }
        let listed: Vec<String> = choices.iter().map(|c| format!("'{c}'")).collect();
        let msg = match listed.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("Input should be {} or {last}", rest.join(", ")),
            _ => format!("Input should be {}", listed.join("")),
        };
        self.errors.push(FieldError::query("literal_error", name, &msg, json!(raw)));
        default
    }

    /// The problems found, if any: the request is then answered 422.
    pub fn finish(self) -> Result<(), Vec<FieldError>> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self.errors)
        }
    }

    fn missing<T>(&mut self, name: &str) -> Option<T> {
        self.errors.push(FieldError::query("missing", name, "Field required", Value::Null));
        None
    }

    fn required<T>(&mut self, name: &str, scalar: &Scalar<T>) -> Option<T> {
        let Some(raw) = self.query.get(name) else { return self.missing(name) };
        self.read(name, raw, scalar)
    }

    /// `None` when absent or unreadable (then noted).
    fn optional<T>(&mut self, name: &str, scalar: &Scalar<T>) -> Option<T> {
        let raw = self.query.get(name)?;
        self.read(name, raw, scalar)
    }

    fn read<T>(&mut self, name: &str, raw: &str, scalar: &Scalar<T>) -> Option<T> {
        let parsed = (scalar.parse)(raw);
        if parsed.is_none() {
            self.errors.push(FieldError::query(scalar.kind, name, scalar.msg, json!(raw)));
        }
        parsed
    }
}

/// A scalar parameter type: how pydantic reads it, and its error when it cannot.
struct Scalar<T> {
    parse: fn(&str) -> Option<T>,
    kind: &'static str,
    msg: &'static str,
}

const BOOL: Scalar<bool> =
    Scalar { parse: parse_bool, kind: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input" };
const INT: Scalar<i128> =
    Scalar { parse: parse_int, kind: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" };

/// pydantic's lax string-to-bool: these words in any case (spaces around them are refused).
pub fn parse_bool(raw: &str) -> Option<bool> {
    match raw.to_ascii_lowercase().as_str() {
        "1" | "on" | "t" | "true" | "y" | "yes" => Some(true),
        "0" | "off" | "f" | "false" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// pydantic's lax string-to-int: surrounding spaces, a sign, underscores between digits and a
/// fraction of zeros (`"42.0"`) are allowed. Values beyond ±2^127 are refused.
pub fn parse_int(raw: &str) -> Option<i128> {
    let s = raw.trim();
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (whole, fraction) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    // `42.0` is 42; `42.` and `42.5` are not integers.
    if fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b == b'0')) {
        return None;
    }
    let bytes = whole.as_bytes();
    if bytes.is_empty() || bytes[0] == b'_' || bytes[bytes.len() - 1] == b'_' || whole.contains("__") {
        return None;
    }
    let mut value: i128 = 0;
    for b in bytes {
        match b {
            b'0'..=b'9' => value = value.checked_mul(10)?.checked_add(i128::from(b - b'0'))?,
            b'_' => {}
            _ => return None,
        }
    }
    Some(if negative { -value } else { value })
}

/// Splits and decodes `a=1&b=x+y`; a name without `=` has an empty value, as Python's
/// `parse_qsl(keep_blank_values=True)` gives it.
fn form_decode(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() && hex(bytes[i + 1]).is_some() && hex(bytes[i + 2]).is_some() => {
                out.push(hex(bytes[i + 1]).unwrap_or(0) * 16 + hex(bytes[i + 2]).unwrap_or(0));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_pydantic_reads_them() {
        for (raw, want) in
            [("42", Some(42)), (" 7 ", Some(7)), ("+5", Some(5)), ("42.0", Some(42)), ("-3", Some(-3)), ("1_000", Some(1000))]
        {
            assert_eq!(parse_int(raw), want, "{raw}");
        }
        for raw in ["", "4.5", "4.", "abc", "1__0", "_1", "0x10", "1e3", "+", "- 1"] {
            assert_eq!(parse_int(raw), None, "{raw}");
        }
    }

    #[test]
    fn booleans_in_any_case() {
        assert_eq!(parse_bool("TRUE"), Some(true));
        assert_eq!(parse_bool("Off"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
        assert_eq!(parse_bool(" true "), None);
    }

    #[test]
    fn every_problem_is_listed_in_order() {
        let q = Query::parse(Some("task_idx=x&go_home=maybe"));
        let mut r = q.reader();
        r.string("task_type");
        r.integer("task_idx");
        r.boolean("go_home");
        let errors = r.finish().unwrap_err();
        let kinds: Vec<_> = errors.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, ["missing", "int_parsing", "bool_parsing"]);
        assert_eq!(
            errors[1].to_json_text(),
            r#"{"type":"int_parsing","loc":["query","task_idx"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}"#
        );
    }

    #[test]
    fn form_decoding() {
        let q = Query::parse(Some("a=x+y%21&b&a=last&c=%zz"));
        assert_eq!(q.get("a"), Some("last"));
        assert_eq!(q.get("b"), Some(""));
        assert_eq!(q.get("c"), Some("%zz"));
    }
}
