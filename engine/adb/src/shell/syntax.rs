//! The shell language clients send: words with `'…'`, `"…"` and `\` quoting, `$?` and `$NAME`,
//! `;` / newline / `&`, `&&`, `||`, `|`, `!`, and redirections (`>`, `>>`, `<`, `2>`, `2>&1`, `&>`).

/// A piece of a word: literal text, or a variable expanded when the command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    Lit(String),
    /// `$?`, `$NAME`, `${NAME}`.
    Var(String),
}

/// One word; `quoted` records whether any part was quoted (so `''` is an empty argument).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Word {
    pub(crate) pieces: Vec<Piece>,
    pub(crate) quoted: bool,
}

impl Word {
    fn push_char(&mut self, c: char) {
        match self.pieces.last_mut() {
            Some(Piece::Lit(s)) => s.push(c),
            _ => self.pieces.push(Piece::Lit(c.to_string())),
        }
    }

    fn is_empty(&self) -> bool {
        self.pieces.is_empty() && !self.quoted
    }

    /// The word's literal text when it has no variables.
    pub(crate) fn literal(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Lit(s) => out.push_str(s),
                Piece::Var(_) => return None,
            }
        }
        Some(out)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(Word),
    /// `;`, newline or `&`.
    Sep,
    And,
    Or,
    Pipe,
    Bang,
    /// `[fd]>` / `[fd]>>` / `&>`: fd 255 means both stdout and stderr.
    RedirOut {
        fd: u8,
        append: bool,
    },
    RedirIn,
    /// `[fd]>&N`.
    Dup {
        from: u8,
        to: u8,
    },
}

/// A syntax error, worded like the device shell's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SyntaxError {
    #[error("no closing quote")]
    UnclosedQuote,
    #[error("syntax error: '{0}' unexpected")]
    Unexpected(String),
    #[error("syntax error: unexpected end of input after '{0}'")]
    UnexpectedEnd(String),
}

fn lex(src: &str) -> Result<Vec<Token>, SyntaxError> {
    let chars: Vec<char> = src.chars().collect();
    let mut tokens = Vec::new();
    let mut word = Word::default();
    let mut i = 0;
    let flush = |word: &mut Word, tokens: &mut Vec<Token>| {
        if !word.is_empty() {
            tokens.push(Token::Word(std::mem::take(word)));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => {
                flush(&mut word, &mut tokens);
                i += 1;
            }
            '\n' | ';' => {
                flush(&mut word, &mut tokens);
                tokens.push(Token::Sep);
                i += 1;
            }
            '#' if word.is_empty() => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '&' => {
                if chars.get(i + 1) == Some(&'&') {
                    flush(&mut word, &mut tokens);
                    tokens.push(Token::And);
                    i += 2;
                } else if chars.get(i + 1) == Some(&'>') && word.is_empty() {
                    let append = chars.get(i + 2) == Some(&'>');
                    tokens.push(Token::RedirOut { fd: 255, append });
                    i += if append { 3 } else { 2 };
                } else {
                    // Background jobs run in order here: nothing on the phone takes wall time.
                    flush(&mut word, &mut tokens);
                    tokens.push(Token::Sep);
                    i += 1;
                }
            }
            '|' => {
                flush(&mut word, &mut tokens);
                if chars.get(i + 1) == Some(&'|') {
                    tokens.push(Token::Or);
                    i += 2;
                } else {
                    tokens.push(Token::Pipe);
                    i += 1;
                }
            }
            '!' if word.is_empty() && chars.get(i + 1).is_none_or(|c| c.is_whitespace()) => {
                tokens.push(Token::Bang);
                i += 1;
            }
            '>' | '<' => {
                // A word of digits right before the operator is the file descriptor.
                let fd = match word.literal() {
                    Some(digits)
                        if !word.quoted && !digits.is_empty() && digits.len() <= 2 && digits.chars().all(|d| d.is_ascii_digit()) =>
                    {
                        word = Word::default();
                        digits.parse::<u8>().ok()
                    }
                    _ => {
                        flush(&mut word, &mut tokens);
                        None
                    }
                };
                if c == '<' {
                    tokens.push(Token::RedirIn);
                    i += 1;
                } else if chars.get(i + 1) == Some(&'&') && chars.get(i + 2).is_some_and(char::is_ascii_digit) {
                    let to = chars[i + 2].to_digit(10).unwrap_or(1) as u8;
                    tokens.push(Token::Dup { from: fd.unwrap_or(1), to });
                    i += 3;
                } else {
                    let append = chars.get(i + 1) == Some(&'>');
                    tokens.push(Token::RedirOut { fd: fd.unwrap_or(1), append });
                    i += if append { 2 } else { 1 };
                }
            }
            '\'' => {
                word.quoted = true;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(SyntaxError::UnclosedQuote),
                        Some('\'') => break,
                        Some(&c) => word.push_char(c),
                    }
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                word.quoted = true;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(SyntaxError::UnclosedQuote),
                        Some('"') => break,
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            word.push_char(chars[i + 1]);
                            i += 1;
                        }
                        Some('\\') if chars.get(i + 1) == Some(&'\n') => i += 1,
                        Some('$') => {
                            if let Some(next) = variable(&chars, i, &mut word) {
                                i = next;
                                continue;
                            }
                            word.push_char('$');
                        }
                        Some(&c) => word.push_char(c),
                    }
                    i += 1;
                }
                i += 1;
            }
            '\\' => {
                match chars.get(i + 1) {
                    Some('\n') => {}
                    Some(&c) => {
                        word.quoted = true;
                        word.push_char(c);
                    }
                    None => word.push_char('\\'),
                }
                i += 2;
            }
            '$' => {
                if let Some(next) = variable(&chars, i, &mut word) {
                    i = next;
                } else {
                    word.push_char('$');
                    i += 1;
                }
            }
            c => {
                word.push_char(c);
                i += 1;
            }
        }
    }
    flush(&mut word, &mut tokens);
    Ok(tokens)
}

/// Reads `$?`, `$NAME` or `${NAME}` at `chars[i]` into the word; the index after it.
fn variable(chars: &[char], i: usize, word: &mut Word) -> Option<usize> {
    match chars.get(i + 1) {
        Some(&c @ ('?' | '$' | '#' | '0'..='9')) => {
            word.pieces.push(Piece::Var(c.to_string()));
            Some(i + 2)
        }
        Some('{') => {
            let end = chars[i + 2..].iter().position(|&c| c == '}')? + i + 2;
            word.pieces.push(Piece::Var(chars[i + 2..end].iter().collect()));
            Some(end + 1)
        }
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let mut end = i + 1;
            while chars.get(end).is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_') {
                end += 1;
            }
            word.pieces.push(Piece::Var(chars[i + 1..end].iter().collect()));
            Some(end)
        }
        _ => None,
    }
}

/// Where a redirection sends or takes bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Redirect {
    /// fd 1, fd 2, or 255 for both.
    Out {
        fd: u8,
        target: Word,
        append: bool,
    },
    In {
        target: Word,
    },
    Dup {
        from: u8,
        to: u8,
    },
}

/// One simple command: its words and redirections.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Command {
    pub(crate) words: Vec<Word>,
    pub(crate) redirects: Vec<Redirect>,
}

/// Commands joined by `|`, optionally negated with `!`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Pipeline {
    pub(crate) commands: Vec<Command>,
    pub(crate) negated: bool,
}

/// How a pipeline is joined to the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Joint {
    Always,
    IfOk,
    IfFailed,
}

/// A command line: pipelines and how each joins the previous one.
pub(crate) type Script = Vec<(Joint, Pipeline)>;

fn describe(token: &Token) -> String {
    match token {
        Token::Word(w) => w.literal().unwrap_or_else(|| "$…".into()),
        Token::Sep => ";".into(),
        Token::And => "&&".into(),
        Token::Or => "||".into(),
        Token::Pipe => "|".into(),
        Token::Bang => "!".into(),
        Token::RedirOut { append: true, .. } => ">>".into(),
        Token::RedirOut { .. } => ">".into(),
        Token::RedirIn => "<".into(),
        Token::Dup { from, to } => format!("{from}>&{to}"),
    }
}

/// Parses a command line.
pub(crate) fn parse(src: &str) -> Result<Script, SyntaxError> {
    let tokens = lex(src)?;
    let mut script: Script = Vec::new();
    let mut joint = Joint::Always;
    let mut pipeline = Pipeline::default();
    let mut command = Command::default();
    let mut last: Option<String> = None;
    let mut iter = tokens.into_iter().peekable();
    while let Some(token) = iter.next() {
        let shown = describe(&token);
        match token {
            Token::Word(w) => command.words.push(w),
            Token::Bang if command.words.is_empty() && pipeline.commands.is_empty() => pipeline.negated = !pipeline.negated,
            Token::Bang => command.words.push(Word { pieces: vec![Piece::Lit("!".into())], quoted: false }),
            Token::RedirOut { fd, append } => match iter.next() {
                Some(Token::Word(target)) => command.redirects.push(Redirect::Out { fd, target, append }),
                Some(other) => return Err(SyntaxError::Unexpected(describe(&other))),
                None => return Err(SyntaxError::UnexpectedEnd(shown)),
            },
            Token::RedirIn => match iter.next() {
                Some(Token::Word(target)) => command.redirects.push(Redirect::In { target }),
                Some(other) => return Err(SyntaxError::Unexpected(describe(&other))),
                None => return Err(SyntaxError::UnexpectedEnd(shown)),
            },
            Token::Dup { from, to } => command.redirects.push(Redirect::Dup { from, to }),
            Token::Pipe => {
                if command.words.is_empty() && command.redirects.is_empty() {
                    return Err(SyntaxError::Unexpected(shown));
                }
                pipeline.commands.push(std::mem::take(&mut command));
            }
            Token::Sep | Token::And | Token::Or => {
                let empty = command.words.is_empty() && command.redirects.is_empty();
                if empty {
                    if !pipeline.commands.is_empty() || pipeline.negated || shown != ";" {
                        return Err(SyntaxError::Unexpected(shown));
                    }
                    // A blank line, or a line break after `&&` / `||`: the pending joint stays.
                    last = Some(shown);
                    continue;
                }
                pipeline.commands.push(std::mem::take(&mut command));
                script.push((joint, std::mem::take(&mut pipeline)));
                joint = match shown.as_str() {
                    "&&" => Joint::IfOk,
                    "||" => Joint::IfFailed,
                    _ => Joint::Always,
                };
            }
        }
        last = Some(shown);
    }
    if command.words.is_empty() && command.redirects.is_empty() {
        if !pipeline.commands.is_empty() || joint != Joint::Always {
            return Err(SyntaxError::UnexpectedEnd(last.unwrap_or_default()));
        }
    } else {
        pipeline.commands.push(command);
        script.push((joint, pipeline));
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<Vec<String>> {
        parse(src)
            .unwrap()
            .into_iter()
            .flat_map(|(_, p)| p.commands)
            .map(|c| c.words.iter().map(|w| w.literal().unwrap_or_else(|| "<var>".into())).collect())
            .collect()
    }

    #[test]
    fn quoting() {
        assert_eq!(words(r#"echo 'a b' "c \"d\"" e\ f ''"#), [["echo", "a b", "c \"d\"", "e f", ""]]);
        assert_eq!(words("echo 'multi\nline'"), [["echo", "multi\nline"]]);
        assert_eq!(words("exec:screencap '-p'").len(), 1);
        assert_eq!(parse("echo 'open"), Err(SyntaxError::UnclosedQuote));
    }

    #[test]
    fn operators_and_redirections() {
        let s = parse("a && b || c; d | e 2>/dev/null > f").unwrap();
        let joints: Vec<Joint> = s.iter().map(|(j, _)| *j).collect();
        assert_eq!(joints, [Joint::Always, Joint::IfOk, Joint::IfFailed, Joint::Always]);
        assert_eq!(s[3].1.commands.len(), 2);
        assert_eq!(s[3].1.commands[1].redirects.len(), 2);
        assert!(matches!(s[3].1.commands[1].redirects[0], Redirect::Out { fd: 2, .. }));
        let s = parse("cmd 2>&1 >>log").unwrap();
        assert_eq!(s[0].1.commands[0].redirects[0], Redirect::Dup { from: 2, to: 1 });
        assert!(matches!(s[0].1.commands[0].redirects[1], Redirect::Out { fd: 1, append: true, .. }));
        assert!(matches!(parse("a &&"), Err(SyntaxError::UnexpectedEnd(_))));
        assert!(matches!(parse("| a"), Err(SyntaxError::Unexpected(_))));
        assert!(matches!(parse("a > "), Err(SyntaxError::UnexpectedEnd(_))));
        assert!(parse("\n\na\n\n").is_ok());
    }

    #[test]
    fn variables() {
        let s = parse("echo X4EXIT:$? ${HOME}x \"$?\" '$?'").unwrap();
        let w = &s[0].1.commands[0].words;
        assert_eq!(w[1].pieces, [Piece::Lit("X4EXIT:".into()), Piece::Var("?".into())]);
        assert_eq!(w[2].pieces, [Piece::Var("HOME".into()), Piece::Lit("x".into())]);
        assert_eq!(w[3].pieces, [Piece::Var("?".into())]);
        assert_eq!(w[4].literal().unwrap(), "$?");
    }
}
