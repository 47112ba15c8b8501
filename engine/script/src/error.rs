/// A Lua problem: a syntax error at load, or a handler that failed at run time. Names the app,
/// the file and the line whenever Lua knows them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[error("{app}: {file}:{}: {message}", line.map_or_else(|| "?".to_owned(), |l| l.to_string()))]
pub struct ScriptError {
    pub app: String,
    pub file: String,
    pub line: Option<u32>,
    pub message: String,
}

impl ScriptError {
    pub fn new(app: &str, file: &str, line: Option<u32>, message: impl Into<String>) -> ScriptError {
        ScriptError { app: app.to_owned(), file: file.to_owned(), line, message: message.into() }
    }

    /// Builds a ScriptError from an mlua error, finding `file.lua:LINE:` in the message or the
    /// traceback. `default_file` is used when Lua reports no position.
    pub(crate) fn from_lua(app: &str, default_file: &str, err: &mlua::Error) -> ScriptError {
        let (message, traceback) = flatten(err);
        // mlua appends the traceback to an error raised in Lua; the author reads the message,
        // and the sandbox's own frames in it say nothing to them.
        let (message, traceback) = match message.split_once("\nstack traceback:") {
            Some((message, trace)) => (message.to_owned(), traceback.or_else(|| Some(trace.to_owned()))),
            None => (message, traceback),
        };
        let message = without_addresses(&message);
        let located = find_location(&message).or_else(|| traceback.as_deref().and_then(find_location));
        let clean = strip_location(&message);
        match located {
            Some((file, line)) => ScriptError::new(app, &file, Some(line), clean),
            None => ScriptError::new(app, default_file, None, clean),
        }
    }
}

/// The innermost message of an mlua error and the first traceback met on the way.
fn flatten(err: &mlua::Error) -> (String, Option<String>) {
    match err {
        mlua::Error::CallbackError { traceback, cause } => {
            let (msg, inner_tb) = flatten(cause);
            (msg, inner_tb.or_else(|| Some(traceback.clone())))
        }
        mlua::Error::SyntaxError { message, .. } => (message.clone(), None),
        mlua::Error::RuntimeError(message) => (message.clone(), None),
        mlua::Error::MemoryError(message) => (format!("out of memory: {message}"), None),
        mlua::Error::ExternalError(e) => (e.to_string(), None),
        mlua::Error::WithContext { context, cause } => {
            let (msg, tb) = flatten(cause);
            (format!("{context}: {msg}"), tb)
        }
        other => (other.to_string(), None),
    }
}

/// Lua names tables and functions by their heap address (`error({})` reads `table:
/// 0x55d0c3e2a6b0`), which differs between runs; the same run must print the same errors.
fn without_addresses(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(": 0x") {
        let kind_start = rest[..at].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).map_or(0, |i| i + 1);
        let digits = rest[at + 4..].bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str(&rest[..at]);
        if kind_start < at && digits >= 4 {
            out.push_str(" value");
            if rest[..kind_start].is_empty() || rest[..kind_start].ends_with(' ') {
                // `table: 0x…` stands alone: say what it is.
            }
            rest = &rest[at + 4 + digits..];
        } else {
            out.push_str(": 0x");
            rest = &rest[at + 4..];
        }
    }
    out.push_str(rest);
    out
}

/// Finds the first `name.lua:LINE:` in a text.
fn find_location(text: &str) -> Option<(String, u32)> {
    let mut search = text;
    while let Some(pos) = search.find(".lua:") {
        let start = search[..pos].rfind(|c: char| c.is_whitespace() || c == '"' || c == '[' || c == '\t').map_or(0, |i| i + 1);
        let file = &search[start..pos + 4];
        let digits: String = search[pos + 5..].chars().take_while(char::is_ascii_digit).collect();
        if let Ok(line) = digits.parse() {
            return Some((file.to_owned(), line));
        }
        search = &search[pos + 5..];
    }
    None
}

/// Drops a leading `file.lua:LINE: ` so the message does not repeat the location.
fn strip_location(message: &str) -> String {
    if let Some((file, line)) = find_location(message) {
        let prefix = format!("{file}:{line}: ");
        if let Some(rest) = message.strip_prefix(&prefix) {
            return rest.to_owned();
        }
    }
    message.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_locations() {
        assert_eq!(find_location("main.lua:12: boom"), Some(("main.lua".into(), 12)));
        assert_eq!(find_location("x\n\tlib/util.lua:3: in function"), Some(("lib/util.lua".into(), 3)));
        assert_eq!(strip_location("main.lua:12: boom"), "boom");
    }

    #[test]
    fn heap_addresses_are_left_out() {
        assert_eq!(without_addresses("table: 0x55d0c3e2a6b0"), "table value");
        assert_eq!(without_addresses("bad key function: 0x7f00aa in list"), "bad key function value in list");
        assert_eq!(without_addresses("ratio: 0x1 is odd"), "ratio: 0x1 is odd");
    }
}
