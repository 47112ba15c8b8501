//! Checks made before and while parsing a trace's files, so that a hostile or broken file
//! ends in an error naming it instead of exhausting memory, stack or time: a budget for
//! the bytes and nodes of a whole trace, a count of JSON values before they are parsed,
//! the shape of XML before it is parsed, and the range of every number.

use std::path::Path;

use phoneworld_data::DataError;

use crate::error::{read_text, ReconError};
use crate::limits::{
    MAX_COORD, MAX_JSON_OBJECTS, MAX_JSON_VALUES, MAX_SCREEN_NODES, MAX_TRACE_BYTES, MAX_TRACE_NODES, MAX_TREE_DEPTH, MAX_XML_ATTRIBUTES,
};
use crate::trace::TraceAction;

/// What one trace may still read: bytes of its files and nodes of its hierarchies.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    bytes: u64,
    nodes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { bytes: MAX_TRACE_BYTES, nodes: MAX_TRACE_NODES }
    }
}

impl Budget {
    /// Reads a file of at most `limit` bytes, counting it against the trace's bytes.
    pub(crate) fn read_text(&mut self, path: &Path, limit: u64) -> Result<String, ReconError> {
        let text = read_text(path, limit.min(self.bytes)).map_err(|e| match e {
            // Within the file's own limit but over what the trace has left.
            ReconError::Data(DataError::TooLarge { size, .. }) if size <= limit => self.over_bytes(path),
            e => e,
        })?;
        self.take_bytes(path, text.len() as u64)?;
        Ok(text)
    }

    pub(crate) fn take_bytes(&mut self, path: &Path, n: u64) -> Result<(), ReconError> {
        self.bytes = self.bytes.checked_sub(n).ok_or_else(|| self.over_bytes(path))?;
        Ok(())
    }

    fn over_bytes(&self, path: &Path) -> ReconError {
        ReconError::format(path, format!("the trace's files are over {} MiB together (the limit)", MAX_TRACE_BYTES >> 20))
    }

    /// Counts a screen's nodes against the trace's nodes.
    pub(crate) fn take_nodes(&mut self, path: &Path, n: usize) -> Result<(), ReconError> {
        self.nodes = self.nodes.checked_sub(n).ok_or_else(|| {
            ReconError::format(path, format!("the trace's hierarchies have over {MAX_TRACE_NODES} nodes together (the limit)"))
        })?;
        Ok(())
    }
}

/// The 1-based line of a byte offset.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Counts the values and objects a JSON text would make (by the separators that start
/// them, outside strings) and refuses one over `MAX_JSON_VALUES` or `MAX_JSON_OBJECTS`,
/// naming the line where it went over.
pub(crate) fn check_json_size(path: &Path, text: &str) -> Result<(), ReconError> {
    check_json_within(path, text, MAX_JSON_VALUES, MAX_JSON_OBJECTS)
}

/// `check_json_size` with other limits (a text parsed into typed structs takes no memory for
/// a value it skips, but one for each object it keeps).
pub(crate) fn check_json_within(path: &Path, text: &str, max_values: usize, max_objects: usize) -> Result<(), ReconError> {
    let (mut values, mut objects) = (1usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b':' | b'[' => values += 1,
            b'{' => {
                values += 1;
                objects += 1;
            }
            _ => continue,
        }
        if values > max_values || objects > max_objects {
            let what = if objects > max_objects {
                format!("more than {max_objects} JSON objects")
            } else {
                format!("more than {max_values} JSON values")
            };
            return Err(ReconError::line(path, line_at(text, i), format!("{what} (the limit)")));
        }
    }
    Ok(())
}

/// The byte offset just past the first `end` at or after `from` (the end of the text if none).
fn past(bytes: &[u8], from: usize, end: &[u8]) -> usize {
    bytes.get(from..).and_then(|rest| rest.windows(end.len()).position(|w| w == end)).map_or(bytes.len(), |p| from + p + end.len())
}

/// Checks an XML text's shape before it is parsed: elements nested at most
/// `MAX_TREE_DEPTH` deep (below `<hierarchy>`), at most `MAX_XML_ATTRIBUTES` attributes an
/// element (the XML parser's duplicate check takes time quadratic in them), and at most
/// `MAX_SCREEN_NODES` elements. Errors name the line.
pub(crate) fn check_xml_shape(path: &Path, text: &str) -> Result<(), ReconError> {
    let bytes = text.as_bytes();
    let (mut i, mut depth, mut elements) = (0, 0usize, 0usize);
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &bytes[i..];
        if rest.starts_with(b"<!--") {
            i = past(bytes, i + 4, b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = past(bytes, i + 9, b"]]>");
        } else if rest.starts_with(b"<?") || rest.starts_with(b"<!") {
            i = past(bytes, i + 2, b">");
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            i = past(bytes, i + 2, b">");
        } else {
            let start = i;
            let (end, attributes) = tag_end(bytes, i + 1);
            elements += 1;
            let self_closing = end >= 2 && bytes[end - 2] == b'/';
            if !self_closing {
                depth += 1;
            }
            // One level for <hierarchy>, one for a frame around several windows.
            if depth > MAX_TREE_DEPTH + 2 {
                return Err(too_deep(path, line_at(text, start)));
            }
            if attributes > MAX_XML_ATTRIBUTES {
                let message = format!("an element with more than {MAX_XML_ATTRIBUTES} attributes (the limit)");
                return Err(ReconError::line(path, line_at(text, start), message));
            }
            if elements > MAX_SCREEN_NODES + 1 {
                return Err(ReconError::line(path, line_at(text, start), too_many_nodes()));
            }
            i = end;
        }
    }
    Ok(())
}

/// The offset past a start tag's `>` (quotes may hold `>`), and how many attributes it has.
fn tag_end(bytes: &[u8], mut i: usize) -> (usize, usize) {
    let (mut quote, mut attributes) = (None, 0);
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'=' => attributes += 1,
                b'>' => return (i, attributes),
                _ => {}
            },
        }
    }
    (i, attributes)
}

/// The error for a hierarchy nested too deep (the message says the limit).
pub(crate) fn too_deep(path: &Path, line: usize) -> ReconError {
    ReconError::line(path, line, format!("nodes nested more than {MAX_TREE_DEPTH} levels deep (the limit)"))
}

/// The message for a screen with too many nodes.
pub(crate) fn too_many_nodes() -> String {
    format!("a hierarchy of more than {MAX_SCREEN_NODES} nodes (the limit)")
}

/// A coordinate in range, as the `i32` bounds are kept in.
pub(crate) fn coord(v: i64) -> Option<i32> {
    (-MAX_COORD..=MAX_COORD).contains(&v).then_some(v as i32)
}

/// A point's coordinate: finite and in range.
pub(crate) fn point_coord(v: f64) -> Option<f64> {
    (v.is_finite() && v.abs() <= MAX_COORD as f64).then_some(v)
}

/// A screen size: at least 1 and in range.
pub(crate) fn screen_size(v: i64) -> Option<u32> {
    (1..=MAX_COORD).contains(&v).then_some(v as u32)
}

/// Whether an action's coordinates are finite and in range; the message says why not.
pub(crate) fn action_in_range(action: &TraceAction) -> Result<(), String> {
    let coords: &[f64] = match action {
        TraceAction::Tap { x, y } | TraceAction::LongPress { x, y } => &[*x, *y],
        TraceAction::Swipe { x1, y1, x2, y2 } => &[*x1, *y1, *x2, *y2],
        _ => &[],
    };
    if coords.iter().all(|&c| point_coord(c).is_some()) {
        Ok(())
    } else {
        Err(format!("{coords:?}: {}", out_of_range("a coordinate")))
    }
}

/// Why a number is refused, for error messages.
pub(crate) fn out_of_range(what: &str) -> String {
    format!("{what} must be a finite number within ±{MAX_COORD}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_are_counted_outside_strings() {
        let p = Path::new("t.json");
        assert!(check_json_size(p, r#"{"a": [1, 2, {"b": ",,,,{{{"}]}"#).is_ok());
        let many = format!("[{}0]", "0,".repeat(MAX_JSON_VALUES));
        let e = check_json_size(p, &many).unwrap_err().to_string();
        assert!(e.starts_with("t.json:1:") && e.contains("JSON values"), "{e}");
        let objects = format!("[\n{}{{}}]", "{},".repeat(MAX_JSON_OBJECTS));
        let e = check_json_size(p, &objects).unwrap_err().to_string();
        assert!(e.starts_with("t.json:2:") && e.contains("JSON objects"), "{e}");
    }

    #[test]
    fn xml_shape_counts_depth_and_attributes_outside_quotes_and_comments() {
        let p = Path::new("d.xml");
        let ok = "<?xml version='1.0'?><!-- <a><b><c> --><hierarchy><node a=\"x>y\" b='=='/><node><![CDATA[<<<]]></node></hierarchy>";
        assert!(check_xml_shape(p, ok).is_ok());
        let deep = format!("<hierarchy>\n{}{}</hierarchy>", "<node>".repeat(MAX_TREE_DEPTH + 5), "</node>".repeat(MAX_TREE_DEPTH + 5));
        let e = check_xml_shape(p, &deep).unwrap_err().to_string();
        assert!(e.starts_with("d.xml:2:") && e.contains("200 levels"), "{e}");
        let attrs: String = (0..MAX_XML_ATTRIBUTES + 1).map(|i| format!(" a{i}=\"\"")).collect();
        let e = check_xml_shape(p, &format!("<hierarchy><node{attrs}/></hierarchy>")).unwrap_err().to_string();
        assert!(e.contains("attributes"), "{e}");
    }
}
