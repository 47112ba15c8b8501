//! Where Python's `json.loads` stops on a bad document, and what it says: FastAPI's 422 for a
//! body that is not JSON names that character offset and message.

/// Python's error for `text`, `(character offset, message)`, or `None` if Python reads it.
pub fn python_json_error(text: &str) -> Option<(usize, &'static str)> {
    let chars: Vec<char> = text.chars().collect();
    let mut scanner = Scanner { s: &chars, depth: 0 };
    let end = match scanner.value(scanner.ws(0)) {
        Ok(end) => end,
        Err(e) => return Some(e),
    };
    let end = scanner.ws(end);
    (end < chars.len()).then_some((end, "Extra data"))
}

type Scan = Result<usize, (usize, &'static str)>;

struct Scanner<'a> {
    s: &'a [char],
    depth: usize,
}

impl Scanner<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while i < self.s.len() && matches!(self.s[i], ' ' | '\t' | '\n' | '\r') {
            i += 1;
        }
        i
    }

    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }

    fn starts(&self, i: usize, word: &str) -> bool {
        word.chars().enumerate().all(|(k, c)| self.at(i + k) == Some(c))
    }

    fn value(&mut self, i: usize) -> Scan {
        match self.at(i) {
            Some('"') => self.string(i),
            Some('{') => self.nested(i, true),
            Some('[') => self.nested(i, false),
            _ => {
                for word in ["null", "true", "false", "NaN", "Infinity", "-Infinity"] {
                    if self.starts(i, word) {
                        return Ok(i + word.chars().count());
                    }
                }
                self.number(i).ok_or((i, "Expecting value"))
            }
        }
    }

    /// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`, as Python's number pattern.
    fn number(&self, i: usize) -> Option<usize> {
        let digits = |mut j: usize| {
            let from = j;
            while self.at(j).is_some_and(|c| c.is_ascii_digit()) {
                j += 1;
            }
            (j > from).then_some(j)
        };
        let mut j = if self.at(i) == Some('-') { i + 1 } else { i };
        j = if self.at(j) == Some('0') { j + 1 } else { digits(j)? };
        if self.at(j) == Some('.') {
            if let Some(k) = digits(j + 1) {
                j = k;
            }
        }
        if matches!(self.at(j), Some('e' | 'E')) {
            let sign = if matches!(self.at(j + 1), Some('+' | '-')) { j + 2 } else { j + 1 };
            if let Some(k) = digits(sign) {
                j = k;
            }
        }
        Some(j)
    }

    fn string(&self, start: usize) -> Scan {
        let mut i = start + 1;
        loop {
            match self.at(i) {
                None => return Err((start, "Unterminated string starting at")),
                Some('"') => return Ok(i + 1),
                Some('\\') => match self.at(i + 1) {
                    Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't') => i += 2,
                    Some('u') => {
                        if !(2..6).all(|k| self.at(i + k).is_some_and(|c| c.is_ascii_hexdigit())) {
                            return Err((i, "Invalid \\uXXXX escape"));
                        }
                        i += 6;
                    }
                    None => return Err((start, "Unterminated string starting at")),
                    Some(_) => return Err((i, "Invalid \\escape")),
                },
                Some(c) if (c as u32) < 0x20 => return Err((i, "Invalid control character at")),
                Some(_) => i += 1,
            }
        }
    }

    fn nested(&mut self, start: usize, object: bool) -> Scan {
        self.depth += 1;
        if self.depth > 128 {
            // Python raises RecursionError far deeper; FastAPI answers it with a 500 anyway.
            return Err((start, "Expecting value"));
        }
        let close = if object { '}' } else { ']' };
        let mut i = self.ws(start + 1);
        if self.at(i) == Some(close) {
            self.depth -= 1;
            return Ok(i + 1);
        }
        loop {
            if object {
                if self.at(i) != Some('"') {
                    return Err((i, "Expecting property name enclosed in double quotes"));
                }
                i = self.ws(self.string(i)?);
                if self.at(i) != Some(':') {
                    return Err((i, "Expecting ':' delimiter"));
                }
                i = self.ws(i + 1);
            }
            let after = self.value(i)?;
            i = self.ws(after);
            match self.at(i) {
                Some(c) if c == close => {
                    self.depth -= 1;
                    return Ok(i + 1);
                }
                Some(',') => i = self.ws(i + 1),
                _ => return Err((i, "Expecting ',' delimiter")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_as_python_gives_them() {
        // json.loads(...) raises JSONDecodeError with these .pos and .msg.
        assert_eq!(python_json_error(r#"{"a": tru}"#), Some((6, "Expecting value")));
        assert_eq!(python_json_error("nul"), Some((0, "Expecting value")));
        assert_eq!(python_json_error("{"), Some((1, "Expecting property name enclosed in double quotes")));
        assert_eq!(python_json_error(r#"{"é": 1,}"#), Some((8, "Expecting property name enclosed in double quotes")));
        assert_eq!(python_json_error(r#"{"a": "\x"}"#), Some((7, "Invalid \\escape")));
        assert_eq!(python_json_error("[1 2]"), Some((3, "Expecting ',' delimiter")));
        assert_eq!(python_json_error("1 2"), Some((2, "Extra data")));
        assert_eq!(python_json_error(r#"{"a": [1, {"b": NaN}], "c": -0.5e+3}"#), None);
    }
}
