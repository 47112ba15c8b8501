//! Where a problem of a layout is: the widget it is about, found in the RON file's outline,
//! and within the widget's own text (not its children's) the first place holding what the
//! problem names. A file that cannot be outlined falls back to the first line holding it.

use std::ops::Range;
use std::path::Path;

use phoneworld_data::{line_and_column, Outline, Problem};

/// Longest problem message, in characters (names quoted in messages come from the bundle).
const MAX_MESSAGE_CHARS: usize = 400;

/// A file, its text, and the widget being checked when its outline is known.
#[derive(Clone, Copy)]
pub(super) struct Place<'a> {
    pub(super) file: &'a Path,
    pub(super) source: &'a str,
    pub(super) node: Option<&'a Outline>,
}

impl<'a> Place<'a> {
    pub(super) fn file(file: &'a Path, source: &'a str) -> Place<'a> {
        Place { file, source, node: None }
    }

    /// The same file, at another widget.
    pub(super) fn at(self, node: Option<&'a Outline>) -> Place<'a> {
        Place { node, ..self }
    }

    /// The outlines of a widget's `children`, in order (none when unknown or not matching
    /// the widget's `count` children).
    pub(super) fn children(&self, count: usize) -> Vec<Option<&'a Outline>> {
        let items = self.node.and_then(|n| n.field("children")).map(Outline::items).unwrap_or_default();
        if items.len() == count {
            items.iter().map(Some).collect()
        } else {
            vec![None; count]
        }
    }

    /// The outline of a widget-valued field (`row`, `empty`), through `Some(...)`.
    pub(super) fn child_field(&self, field: &str) -> Option<&'a Outline> {
        self.node.and_then(|n| n.field(field)).map(|v| v.unwrap_some(self.source))
    }

    /// A problem at the first place holding `needle`: in the widget's own text when the widget
    /// is known (at the widget's name when the needle is not there), else in the whole file.
    pub(super) fn problem(&self, needle: &str, message: String) -> Problem {
        let message = if message.chars().count() > MAX_MESSAGE_CHARS {
            format!("{}…", message.chars().take(MAX_MESSAGE_CHARS).collect::<String>())
        } else {
            message
        };
        let offset = match self.node {
            Some(node) => Some(self.own_text(node).into_iter().find_map(|r| find_in(self.source, r, needle)).unwrap_or(node.span.start)),
            None => (!needle.is_empty()).then(|| self.source.find(needle)).flatten(),
        };
        let (line, column) = offset.map(|at| line_and_column(self.source, at)).unzip();
        Problem { file: self.file.display().to_string(), line, column, message }
    }

    /// The widget's text less the widgets nested in it.
    fn own_text(&self, node: &Outline) -> Vec<Range<usize>> {
        let mut nested: Vec<Range<usize>> =
            node.field("children").map(Outline::items).unwrap_or_default().iter().map(|c| c.span.clone()).collect();
        nested.extend(["row", "empty"].into_iter().filter_map(|f| node.field(f)).map(|v| v.unwrap_some(self.source).span.clone()));
        nested.sort_by_key(|r| r.start);
        let mut own = Vec::new();
        let mut from = node.span.start;
        for r in nested {
            own.push(from..r.start.max(from));
            from = from.max(r.end);
        }
        own.push(from..node.span.end);
        own
    }
}

fn find_in(source: &str, range: Range<usize>, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    source.get(range.clone())?.find(needle).map(|i| range.start + i)
}
