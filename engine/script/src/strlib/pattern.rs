//! Lua 5.4 patterns, matched the way `lstrlib.c` matches them, but counting every step so a
//! pattern like `.-.-.-.-b` on a long string stops at the event's budget instead of running
//! for hours inside C where no hook can reach it.

/// At most this many captures in one pattern (as Lua).
pub(crate) const MAX_CAPTURES: usize = 32;
/// Recursion depth of one match (as Lua's MAXCCALLS); deeper patterns are "too complex".
const MAX_MATCH_DEPTH: usize = 200;
/// How often (in steps) the running total is compared with what the event has left.
const CHECK_EVERY: u64 = 4096;

const ESC: u8 = b'%';
const SPECIALS: &[u8] = b"^$*+?.([%-";

/// One capture: a span of the subject, or a position (`()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Capture {
    Span { start: usize, end: usize },
    Position(usize),
}

#[derive(Debug, Clone, Copy)]
enum Slot {
    Open(usize),
    Closed(usize, usize),
    Position(usize),
}

/// Why a match could not be carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PatternError {
    /// The pattern is malformed; the text is Lua's own message.
    Malformed(String),
    /// The event's budget ran out while matching.
    Budget,
}

type Step<T> = Result<T, PatternError>;

fn malformed<T>(message: &str) -> Step<T> {
    Err(PatternError::Malformed(message.to_owned()))
}

/// A matcher over one subject and one pattern (without its `^` anchor).
pub(crate) struct Matcher<'a> {
    src: &'a [u8],
    pat: &'a [u8],
    depth: usize,
    slots: Vec<Slot>,
    steps: u64,
    /// Steps this matcher may take before the event's budget is spent.
    allowance: u64,
}

fn is_punct(c: u8) -> bool {
    c.is_ascii_graphic() && !c.is_ascii_alphanumeric()
}

/// C's `isspace` in the "C" locale (Rust's `is_ascii_whitespace` leaves out `\v`).
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn match_class(c: u8, class: u8) -> bool {
    let res = match class.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'g' => c.is_ascii_graphic(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => is_punct(c),
        b's' => is_space(c),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return class == c,
    };
    if class.is_ascii_lowercase() {
        res
    } else {
        !res
    }
}

/// Whether a pattern has no magic characters (then `find` searches for it as plain text).
pub(crate) fn is_plain(pat: &[u8]) -> bool {
    !pat.iter().any(|c| SPECIALS.contains(c))
}

impl<'a> Matcher<'a> {
    pub(crate) fn new(src: &'a [u8], pat: &'a [u8], allowance: u64) -> Matcher<'a> {
        Matcher { src, pat, depth: 0, slots: Vec::new(), steps: 0, allowance }
    }

    /// Steps taken so far (to be charged to the event).
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    fn step(&mut self, n: u64) -> Step<()> {
        let before = self.steps;
        self.steps = self.steps.saturating_add(n);
        if self.steps / CHECK_EVERY != before / CHECK_EVERY && self.steps > self.allowance {
            return Err(PatternError::Budget);
        }
        Ok(())
    }

    /// The pattern byte at `p`, or 0 past its end (Lua strings end with a NUL it reads).
    fn p(&self, p: usize) -> u8 {
        self.pat.get(p).copied().unwrap_or(0)
    }

    /// Tries to match at `s`; on success returns where the match ends.
    pub(crate) fn match_at(&mut self, s: usize) -> Step<Option<usize>> {
        self.slots.clear();
        self.depth = 0;
        self.do_match(s, 0)
    }

    /// The captures of the last successful match from `start` to `end` (the whole match
    /// when the pattern has none and `whole_if_none`).
    pub(crate) fn captures(&self, start: usize, end: usize, whole_if_none: bool) -> Step<Vec<Capture>> {
        if self.slots.is_empty() {
            return Ok(if whole_if_none { vec![Capture::Span { start, end }] } else { Vec::new() });
        }
        self.slots.iter().map(|slot| self.capture_of(*slot)).collect()
    }

    /// Capture `i` (0-based) of the last match, or the whole match for `%0`/no captures.
    pub(crate) fn capture(&self, i: usize, start: usize, end: usize) -> Step<Capture> {
        if i >= self.slots.len() {
            if i != 0 {
                return malformed(&format!("invalid capture index %{}", i + 1));
            }
            return Ok(Capture::Span { start, end });
        }
        self.capture_of(self.slots[i])
    }

    fn capture_of(&self, slot: Slot) -> Step<Capture> {
        match slot {
            Slot::Open(_) => malformed("unfinished capture"),
            Slot::Closed(start, end) => Ok(Capture::Span { start, end }),
            Slot::Position(at) => Ok(Capture::Position(at)),
        }
    }

    fn class_end(&self, mut p: usize) -> Step<usize> {
        let c = self.p(p);
        p += 1;
        if c == ESC {
            if p >= self.pat.len() {
                return malformed("malformed pattern (ends with '%')");
            }
            return Ok(p + 1);
        }
        if c == b'[' {
            if self.p(p) == b'^' {
                p += 1;
            }
            // Look for the `]`; the first character is taken as is, even a `]`.
            loop {
                if p >= self.pat.len() {
                    return malformed("malformed pattern (missing ']')");
                }
                let c = self.p(p);
                p += 1;
                if c == ESC && p < self.pat.len() {
                    p += 1;
                }
                if self.p(p) == b']' {
                    break;
                }
            }
            return Ok(p + 1);
        }
        Ok(p)
    }

    /// `[...]` between `p` (the `[`) and `ec` (the `]`).
    fn match_bracket(&self, c: u8, mut p: usize, ec: usize) -> bool {
        let mut sig = true;
        if self.p(p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        loop {
            p += 1;
            if p >= ec {
                break;
            }
            if self.p(p) == ESC {
                p += 1;
                if match_class(c, self.p(p)) {
                    return sig;
                }
            } else if self.p(p + 1) == b'-' && p + 2 < ec {
                p += 2;
                if self.p(p - 2) <= c && c <= self.p(p) {
                    return sig;
                }
            } else if self.p(p) == c {
                return sig;
            }
        }
        !sig
    }

    fn single_match(&self, s: usize, p: usize, ep: usize) -> bool {
        let Some(&c) = self.src.get(s) else { return false };
        match self.p(p) {
            b'.' => true,
            ESC => match_class(c, self.p(p + 1)),
            b'[' => self.match_bracket(c, p, ep - 1),
            other => other == c,
        }
    }

    fn match_balance(&mut self, s: usize, p: usize) -> Step<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return malformed("malformed pattern (missing arguments to '%b')");
        }
        if self.src.get(s) != Some(&self.p(p)) {
            return Ok(None);
        }
        let (open, close) = (self.p(p), self.p(p + 1));
        let mut depth = 1usize;
        let mut i = s + 1;
        while i < self.src.len() {
            self.step(1)?;
            let c = self.src[i];
            if c == close {
                depth -= 1;
                if depth == 0 {
                    return Ok(Some(i + 1));
                }
            } else if c == open {
                depth += 1;
            }
            i += 1;
        }
        Ok(None)
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Step<Option<usize>> {
        let mut i = 0usize;
        while self.single_match(s + i, p, ep) {
            self.step(1)?;
            i += 1;
        }
        loop {
            if let Some(res) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(res));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> Step<Option<usize>> {
        loop {
            if let Some(res) = self.do_match(s, ep + 1)? {
                return Ok(Some(res));
            }
            if self.single_match(s, p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, position: bool) -> Step<Option<usize>> {
        if self.slots.len() >= MAX_CAPTURES {
            return malformed("too many captures");
        }
        self.slots.push(if position { Slot::Position(s) } else { Slot::Open(s) });
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.slots.pop();
        }
        Ok(res)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> Step<Option<usize>> {
        let Some(l) = self.slots.iter().rposition(|slot| matches!(slot, Slot::Open(_))) else {
            return malformed("invalid pattern capture");
        };
        let Slot::Open(start) = self.slots[l] else { return malformed("invalid pattern capture") };
        self.slots[l] = Slot::Closed(start, s);
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.slots[l] = Slot::Open(start);
        }
        Ok(res)
    }

    fn match_back_reference(&mut self, s: usize, digit: u8) -> Step<Option<usize>> {
        let l = usize::from(digit).wrapping_sub(usize::from(b'1'));
        let (start, end) = match self.slots.get(l) {
            Some(Slot::Closed(start, end)) => (*start, *end),
            // Lua compares a position capture's negative length as a huge size: never a match.
            Some(Slot::Position(_)) => return Ok(None),
            _ => return malformed(&format!("invalid capture index %{}", l.wrapping_add(1))),
        };
        let len = end - start;
        self.step(len as u64 / 16 + 1)?;
        if self.src.len() - s >= len && self.src[start..end] == self.src[s..s + len] {
            Ok(Some(s + len))
        } else {
            Ok(None)
        }
    }

    fn do_match(&mut self, s: usize, p: usize) -> Step<Option<usize>> {
        if self.depth >= MAX_MATCH_DEPTH {
            return malformed("pattern too complex");
        }
        self.depth += 1;
        let res = self.match_body(s, p);
        self.depth -= 1;
        res
    }

    /// The body of Lua's `match`, with its tail calls as a loop.
    fn match_body(&mut self, mut s: usize, mut p: usize) -> Step<Option<usize>> {
        loop {
            self.step(1)?;
            if p >= self.pat.len() {
                return Ok(Some(s));
            }
            match self.pat[p] {
                b'(' => {
                    return if self.p(p + 1) == b')' { self.start_capture(s, p + 2, true) } else { self.start_capture(s, p + 1, false) };
                }
                b')' => return self.end_capture(s, p + 1),
                b'$' if p + 1 == self.pat.len() => return Ok((s == self.src.len()).then_some(s)),
                ESC if self.p(p + 1) == b'b' => match self.match_balance(s, p + 2)? {
                    Some(end) => {
                        s = end;
                        p += 4;
                        continue;
                    }
                    None => return Ok(None),
                },
                ESC if self.p(p + 1) == b'f' => {
                    p += 2;
                    if self.p(p) != b'[' {
                        return malformed("missing '[' after '%f' in pattern");
                    }
                    let ep = self.class_end(p)?;
                    let previous = if s == 0 { 0 } else { self.src[s - 1] };
                    let current = self.src.get(s).copied().unwrap_or(0);
                    if !self.match_bracket(previous, p, ep - 1) && self.match_bracket(current, p, ep - 1) {
                        p = ep;
                        continue;
                    }
                    return Ok(None);
                }
                ESC if self.p(p + 1).is_ascii_digit() => match self.match_back_reference(s, self.p(p + 1))? {
                    Some(end) => {
                        s = end;
                        p += 2;
                        continue;
                    }
                    None => return Ok(None),
                },
                _ => {
                    let ep = self.class_end(p)?;
                    let suffix = self.p(ep);
                    if !self.single_match(s, p, ep) {
                        if matches!(suffix, b'*' | b'?' | b'-') {
                            p = ep + 1;
                            continue;
                        }
                        return Ok(None);
                    }
                    match suffix {
                        b'?' => {
                            if let Some(res) = self.do_match(s + 1, ep + 1)? {
                                return Ok(Some(res));
                            }
                            p = ep + 1;
                        }
                        b'+' => return self.max_expand(s + 1, p, ep),
                        b'*' => return self.max_expand(s, p, ep),
                        b'-' => return self.min_expand(s, p, ep),
                        _ => {
                            s += 1;
                            p = ep;
                        }
                    }
                }
            }
        }
    }
}

/// Plain search for `needle` in `hay` from `from`; steps are charged by the bytes looked at.
pub(crate) fn find_plain(hay: &[u8], needle: &[u8], from: usize) -> (Option<usize>, u64) {
    if needle.is_empty() {
        return (Some(from), 1);
    }
    let rest = hay.get(from..).unwrap_or(&[]);
    let found = rest.windows(needle.len()).position(|w| w == needle);
    let looked = found.map_or(rest.len(), |i| i + needle.len());
    (found.map(|i| i + from), looked as u64 / 16 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(src: &str, pat: &str) -> Option<(usize, usize)> {
        let (pat, anchor) = match pat.strip_prefix('^') {
            Some(p) => (p, true),
            None => (pat, false),
        };
        let mut m = Matcher::new(src.as_bytes(), pat.as_bytes(), u64::MAX);
        let mut s = 0;
        loop {
            if let Some(e) = m.match_at(s).unwrap() {
                return Some((s, e));
            }
            s += 1;
            if anchor || s > src.len() {
                return None;
            }
        }
    }

    #[test]
    fn matches_like_lua() {
        assert_eq!(find("hello world", "o w"), Some((4, 7)));
        assert_eq!(find("hello", "l+"), Some((2, 4)));
        assert_eq!(find("hello", "^h.-l"), Some((0, 3)));
        assert_eq!(find("key = value", "(%w+)%s*=%s*(%w+)"), Some((0, 11)));
        assert_eq!(find("THE (quick) fox", "%b()"), Some((4, 11)));
        assert_eq!(find("THE (quick) fox", "%f[%a]%a+"), Some((0, 3)));
        assert_eq!(find("abcabc", "(abc)%1"), Some((0, 6)));
        assert_eq!(find("x=1", "[%d]$"), Some((2, 3)));
        assert_eq!(find("a]b", "[]]"), Some((1, 2)));
        assert_eq!(find("a-b", "[a%-]+"), Some((0, 2)));
        assert_eq!(find("tab\there", "%s"), Some((3, 4)));
        assert_eq!(find("abc", "^b"), None);
    }

    #[test]
    fn malformed_patterns_are_errors() {
        for (pat, message) in [
            ("%", "malformed pattern (ends with '%')"),
            ("[a", "malformed pattern (missing ']')"),
            ("(()", "unfinished capture"),
            ("%1", "invalid capture index %1"),
            ("a)", "invalid pattern capture"),
            ("%b", "malformed pattern (missing arguments to '%b')"),
            ("%fx", "missing '[' after '%f' in pattern"),
        ] {
            let mut m = Matcher::new(b"aaa", pat.as_bytes(), u64::MAX);
            let res = m.match_at(0).and_then(|end| match end {
                Some(end) => m.captures(0, end, true).map(|_| ()),
                None => Ok(()),
            });
            assert_eq!(res, Err(PatternError::Malformed(message.to_owned())), "{pat}");
        }
    }

    #[test]
    fn a_runaway_pattern_stops_at_its_allowance() {
        let src = "a".repeat(100_000);
        let mut m = Matcher::new(src.as_bytes(), b".-.-.-.-.-.-.-b", 1_000_000);
        assert_eq!(m.match_at(0), Err(PatternError::Budget));
        assert!(m.steps() <= 1_000_000 + CHECK_EVERY);
    }

    #[test]
    fn deep_patterns_are_too_complex_not_a_stack_overflow() {
        let pat = "(".repeat(40) + &")".repeat(40);
        let mut m = Matcher::new(b"x", pat.as_bytes(), u64::MAX);
        assert_eq!(m.match_at(0), Err(PatternError::Malformed("too many captures".into())));
        let pat = "a?".repeat(300);
        let src = "a".repeat(300);
        let mut m = Matcher::new(src.as_bytes(), pat.as_bytes(), u64::MAX);
        assert_eq!(m.match_at(0), Err(PatternError::Malformed("pattern too complex".into())));
    }
}
