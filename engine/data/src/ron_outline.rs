//! Where things are in a RON file: a second, shallow reading of a layout's text that keeps
//! every value's byte range, so `check` can place a problem at the exact line and column of
//! the widget or field it is about instead of at the first line holding the same words.
//! serde's reading (which builds the widgets) keeps no positions.

use std::ops::Range;

use crate::ron_util::MAX_RON_DEPTH;

/// One RON value and its byte range in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    pub span: Range<usize>,
    pub shape: Shape,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// `Name(field: value, ...)`: the name's range and each field.
    Struct {
        name: Range<usize>,
        fields: Vec<(String, Outline)>,
    },
    /// `Name(value, ...)` or `(value, ...)`.
    Tuple {
        name: Option<Range<usize>>,
        items: Vec<Outline>,
    },
    List(Vec<Outline>),
    Map(Vec<(Outline, Outline)>),
    /// A string, number, boolean, unit or bare name.
    Atom,
}

impl Outline {
    /// Reads the outline of a RON text; `None` when the text is not RON it can follow.
    pub fn parse(text: &str) -> Option<Outline> {
        let mut reader = Reader { text: text.as_bytes(), at: 0 };
        reader.skip_attributes();
        let value = reader.value(0)?;
        reader.skip_space();
        (reader.at == reader.text.len()).then_some(value)
    }

    /// The struct's name (`Text` of `Text(...)`), when this is a struct or named tuple.
    pub fn name<'t>(&self, text: &'t str) -> Option<&'t str> {
        match &self.shape {
            Shape::Struct { name, .. } | Shape::Tuple { name: Some(name), .. } => text.get(name.clone()),
            _ => None,
        }
    }

    /// The value of a field of a struct.
    pub fn field(&self, field: &str) -> Option<&Outline> {
        match &self.shape {
            Shape::Struct { fields, .. } => fields.iter().find(|(name, _)| name == field).map(|(_, value)| value),
            _ => None,
        }
    }

    /// The items of a list.
    pub fn items(&self) -> &[Outline] {
        match &self.shape {
            Shape::List(items) => items,
            _ => &[],
        }
    }

    /// The value inside `Some(...)`, or this value itself.
    pub fn unwrap_some<'o>(&'o self, text: &str) -> &'o Outline {
        match &self.shape {
            Shape::Tuple { name: Some(name), items } if items.len() == 1 && text.get(name.clone()) == Some("Some") => &items[0],
            _ => self,
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

struct Reader<'t> {
    text: &'t [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// White space and comments (`// ...`, `/* ... */`, which nest in RON).
    fn skip_space(&mut self) {
        loop {
            match (self.peek(), self.text.get(self.at + 1)) {
                (Some(b), _) if b.is_ascii_whitespace() => self.at += 1,
                (Some(b'/'), Some(b'/')) => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    let mut depth = 0usize;
                    while self.at < self.text.len() {
                        if self.text[self.at..].starts_with(b"/*") {
                            depth += 1;
                            self.at += 2;
                        } else if self.text[self.at..].starts_with(b"*/") {
                            depth -= 1;
                            self.at += 2;
                            if depth == 0 {
                                break;
                            }
                        } else {
                            self.at += 1;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// `#![enable(...)]` lines before the value.
    fn skip_attributes(&mut self) {
        loop {
            self.skip_space();
            if !self.text[self.at..].starts_with(b"#!") {
                return;
            }
            while self.peek().is_some_and(|b| b != b']') {
                self.at += 1;
            }
            if self.peek().is_none() {
                return;
            }
            self.at += 1;
        }
    }

    fn identifier(&mut self) -> Option<Range<usize>> {
        self.skip_space();
        let start = self.at;
        if self.text[self.at..].starts_with(b"r#") && self.text.get(self.at + 2).is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_') {
            self.at += 2;
        }
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.at += 1;
        }
        (self.at > start).then_some(start..self.at)
    }

    fn value(&mut self, depth: usize) -> Option<Outline> {
        if depth > MAX_RON_DEPTH {
            return None;
        }
        self.skip_space();
        let start = self.at;
        let shape = match self.peek()? {
            b'"' => {
                self.string()?;
                Shape::Atom
            }
            b'r' if matches!(self.text.get(self.at + 1), Some(b'"' | b'#')) && self.raw_string() => Shape::Atom,
            b'\'' => {
                self.at += 1;
                while self.peek()? != b'\'' {
                    self.at += if self.peek()? == b'\\' { 2 } else { 1 };
                }
                self.at += 1;
                Shape::Atom
            }
            b'[' => {
                self.at += 1;
                Shape::List(self.sequence(b']', depth)?)
            }
            b'{' => {
                self.at += 1;
                let mut entries = Vec::new();
                while !self.eat(b'}') {
                    let key = self.value(depth + 1)?;
                    if !self.eat(b':') {
                        return None;
                    }
                    entries.push((key, self.value(depth + 1)?));
                    if !self.eat(b',') {
                        if self.eat(b'}') {
                            break;
                        }
                        return None;
                    }
                }
                Shape::Map(entries)
            }
            b'(' => {
                self.at += 1;
                self.parenthesized(None, depth)?
            }
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let name = self.identifier()?;
                if self.eat(b'(') {
                    self.parenthesized(Some(name), depth)?
                } else {
                    Shape::Atom
                }
            }
            b if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.') => {
                while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.' | b'_')) {
                    self.at += 1;
                }
                Shape::Atom
            }
            _ => return None,
        };
        Some(Outline { span: start..self.at, shape })
    }

    /// After `(`: named fields (`a: 1, b: 2`) make a struct, anything else a tuple.
    fn parenthesized(&mut self, name: Option<Range<usize>>, depth: usize) -> Option<Shape> {
        let mark = self.at;
        let named = self.identifier().is_some() && self.eat(b':');
        self.at = mark;
        if !named {
            return Some(Shape::Tuple { name, items: self.sequence(b')', depth)? });
        }
        let mut fields = Vec::new();
        while !self.eat(b')') {
            let key = self.identifier()?;
            if !self.eat(b':') {
                return None;
            }
            let field = String::from_utf8_lossy(&self.text[key]).into_owned();
            fields.push((field, self.value(depth + 1)?));
            if !self.eat(b',') {
                if self.eat(b')') {
                    break;
                }
                return None;
            }
        }
        Some(Shape::Struct { name: name.unwrap_or(mark..mark), fields })
    }

    /// Values separated by commas up to `close` (a trailing comma allowed).
    fn sequence(&mut self, close: u8, depth: usize) -> Option<Vec<Outline>> {
        let mut items = Vec::new();
        while !self.eat(close) {
            items.push(self.value(depth + 1)?);
            if !self.eat(b',') {
                if self.eat(close) {
                    break;
                }
                return None;
            }
        }
        Some(items)
    }

    fn string(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// `r"..."`, `r#"..."#`: true when one was read.
    fn raw_string(&mut self) -> bool {
        let start = self.at;
        self.at += 1;
        let mut hashes = 0;
        while self.peek() == Some(b'#') {
            hashes += 1;
            self.at += 1;
        }
        if self.peek() != Some(b'"') {
            self.at = start;
            return false;
        }
        self.at += 1;
        let mut close = vec![b'"'];
        close.extend(std::iter::repeat_n(b'#', hashes));
        while self.at < self.text.len() {
            if self.text[self.at..].starts_with(&close) {
                self.at += close.len();
                return true;
            }
            self.at += 1;
        }
        self.at = start;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: &str = r#"// a screen
Screen(
    title: "Main", /* a /* nested */ comment */
    root: Column(children: [
        Text(text: "a \"quoted\" (paren"),
        List(items: "{state.x}", row: Some(Row(children: [Icon(icon: "star")]))),
    ]),
)
"#;

    #[test]
    fn finds_widgets_and_fields_with_their_positions() {
        let outline = Outline::parse(SCREEN).expect("parses");
        assert_eq!(outline.name(SCREEN), Some("Screen"));
        let root = outline.field("root").unwrap();
        assert_eq!(root.name(SCREEN), Some("Column"));
        let children = root.field("children").unwrap().items();
        assert_eq!(children.len(), 2);
        assert_eq!(line_and_column(SCREEN, children[0].span.start), (5, 9));
        let row = children[1].field("row").unwrap().unwrap_some(SCREEN);
        assert_eq!(row.name(SCREEN), Some("Row"));
        let icon = &row.field("children").unwrap().items()[0];
        assert_eq!(&SCREEN[icon.span.clone()], r#"Icon(icon: "star")"#);
        assert_eq!(line_and_column(SCREEN, children[1].field("items").unwrap().span.start), (6, 21));
    }

    #[test]
    fn what_is_not_ron_gives_none_and_never_panics() {
        for text in ["", "Text(", "Text(text: )", "[1, 2", "\"open", "Text(a: 1 b: 2)", "{1: }", "r#\"x", "(((((", "/* open"] {
            assert_eq!(Outline::parse(text), None, "{text:?}");
        }
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(Outline::parse(&deep), None);
        assert!(Outline::parse("#![enable(implicit_some)]\nText(text: r#\"raw \"x\"\"#, size: -1.5e3, on: true, c: 'x')").is_some());
    }
}
