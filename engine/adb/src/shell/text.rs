//! Text tools: echo, printf, grep, head, tail, wc (toybox's behaviour and exit codes).

use super::{flags, Ctx, MAX_PATTERN_BYTES};

/// Interprets `\n`, `\t`, `\\`, `\c` (stop) as `echo -e` and printf do.
fn unescape(s: &str, out: &mut String) -> bool {
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('a') => out.push('\x07'),
            Some('0') => out.push('\0'),
            Some('c') => return false,
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    true
}

pub(crate) fn echo(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let (mut newline, mut escapes, mut start) = (true, false, 0);
    for arg in args {
        // Only leading words made entirely of n, e, E are options; anything else is text.
        if arg.len() > 1 && arg.starts_with('-') && arg[1..].chars().all(|c| "neE".contains(c)) {
            for c in arg[1..].chars() {
                match c {
                    'n' => newline = false,
                    'e' => escapes = true,
                    _ => escapes = false,
                }
            }
            start += 1;
        } else {
            break;
        }
    }
    let mut text = String::new();
    let joined = args[start..].join(" ");
    if escapes {
        if !unescape(&joined, &mut text) {
            newline = false;
        }
    } else {
        text = joined;
    }
    if newline {
        text.push('\n');
    }
    ctx.print(&text);
    0
}

/// `printf FORMAT [ARGS]`: `%s`, `%d`, `%%` and backslash escapes.
pub(crate) fn printf(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some(format) = args.first() else {
        return ctx.fail(1, "printf: Needs 1 argument");
    };
    let mut rest = args[1..].iter();
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    let mut status = 0;
    while let Some(c) = chars.next() {
        if c == '%' {
            match chars.next() {
                Some('%') => out.push('%'),
                Some('s') => out.push_str(rest.next().map(String::as_str).unwrap_or("")),
                Some('d' | 'i') => {
                    let arg = rest.next().map(String::as_str).unwrap_or("0");
                    match arg.trim().parse::<i64>() {
                        Ok(n) => out.push_str(&n.to_string()),
                        Err(_) => {
                            ctx.eprint(&format!("printf: invalid number '{arg}'\n"));
                            out.push('0');
                            status = 1;
                        }
                    }
                }
                Some(other) => {
                    out.push('%');
                    out.push(other);
                }
                None => out.push('%'),
            }
        } else if c == '\\' {
            let mut pair = String::from('\\');
            if let Some(n) = chars.next() {
                pair.push(n);
            }
            unescape(&pair, &mut out);
        } else {
            out.push(c);
        }
    }
    ctx.print(&out);
    status
}

/// A basic regular expression in the syntax of the `regex` crate: in BRE, `+ ? | ( ) { }` are
/// literal and their backslashed forms are the operators.
fn bre_to_regex(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(op @ ('+' | '?' | '|' | '(' | ')' | '{' | '}')) => out.push(op),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push_str("\\\\"),
            },
            '+' | '?' | '|' | '(' | ')' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `grep [-EFivcqonwl] [-e PATTERN]... PATTERN [FILE...]`: status 0 on a match, 1 on none, 2 on error.
pub(crate) fn grep(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let mut patterns: Vec<String> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "-e" {
            match args.get(i + 1) {
                Some(p) => patterns.push(p.clone()),
                None => return ctx.fail(2, "grep: option requires an argument -- e"),
            }
            i += 2;
        } else {
            rest.push(args[i].clone());
            i += 1;
        }
    }
    let (set, mut operands) = match flags(&rest, "EFivcqonwlsHh") {
        Ok(v) => v,
        Err(c) => return ctx.fail(2, &format!("grep: Unknown option '{c}'")),
    };
    if patterns.is_empty() {
        if operands.is_empty() {
            return ctx.fail(2, "grep: Need 1 argument");
        }
        patterns.push(operands.remove(0).to_owned());
    }
    let has = |c: char| set.contains(&c);
    let pieces: Vec<String> = patterns
        .iter()
        .map(|p| {
            if has('F') {
                regex::escape(p)
            } else if has('E') {
                p.clone()
            } else {
                bre_to_regex(p)
            }
        })
        .map(|p| if has('w') { format!(r"\b(?:{p})\b") } else { format!("(?:{p})") })
        .collect();
    let source = format!("{}{}", if has('i') { "(?i)" } else { "" }, pieces.join("|"));
    if let Err(status) = ctx.pattern() {
        return status;
    }
    let re = match regex::RegexBuilder::new(&source).size_limit(MAX_PATTERN_BYTES).dfa_size_limit(MAX_PATTERN_BYTES).build() {
        Ok(re) => re,
        Err(e) => return ctx.fail(2, &format!("grep: bad regex '{}': {}", patterns.join("|"), e.to_string().lines().last().unwrap_or(""))),
    };
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    let mut status_err = false;
    if operands.is_empty() {
        inputs.push(("(standard input)".into(), std::mem::take(&mut ctx.stdin)));
    }
    for name in &operands {
        if *name == "-" {
            inputs.push(("(standard input)".into(), std::mem::take(&mut ctx.stdin)));
            continue;
        }
        if ctx.stopped() {
            return 2;
        }
        match ctx.path(name).and_then(|p| ctx.session.files().read(&p)) {
            Ok(data) => {
                if let Err(status) = ctx.charge(data.len()) {
                    return status;
                }
                inputs.push(((*name).to_owned(), data.to_vec()));
            }
            Err(e) => {
                if !has('s') {
                    ctx.eprint(&format!("grep: {name}: {}\n", e.to_string().rsplit(": ").next().unwrap_or("")));
                }
                status_err = true;
            }
        }
    }
    let show_name = (operands.len() > 1 || has('H')) && !has('h');
    let mut any = false;
    for (name, data) in &inputs {
        if let Err(status) = ctx.search(data.len()) {
            return status;
        }
        let text = String::from_utf8_lossy(data);
        let mut count = 0;
        for (n, line) in text.lines().enumerate() {
            if ctx.stopped() {
                break;
            }
            let hit = re.is_match(line) != has('v');
            if !hit {
                continue;
            }
            count += 1;
            any = true;
            if has('q') || has('c') || has('l') {
                continue;
            }
            let prefix = format!(
                "{}{}",
                if show_name { format!("{name}:") } else { String::new() },
                if has('n') { format!("{}:", n + 1) } else { String::new() }
            );
            if has('o') && !has('v') {
                for m in re.find_iter(line) {
                    ctx.print(&format!("{prefix}{}\n", m.as_str()));
                }
            } else {
                ctx.print(&format!("{prefix}{line}\n"));
            }
        }
        if has('c') && !has('q') {
            ctx.print(&if show_name { format!("{name}:{count}\n") } else { format!("{count}\n") });
        }
        if has('l') && count > 0 && !has('q') {
            ctx.print(&format!("{name}\n"));
        }
    }
    if any {
        0
    } else if status_err {
        2
    } else {
        1
    }
}

/// `-n N`, `-N` or `-nN`: the line count of head and tail.
fn line_count(args: &[String]) -> Result<(usize, Vec<String>), String> {
    let mut n = 10;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-n" {
            let v = args.get(i + 1).ok_or("option requires an argument -- n")?;
            n = v.parse().map_err(|_| format!("invalid number '{v}'"))?;
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("-n").or_else(|| a.strip_prefix('-')).filter(|v| !v.is_empty() && a.len() > 1) {
            n = v.parse().map_err(|_| format!("invalid number '{v}'"))?;
        } else {
            rest.push(a.clone());
        }
        i += 1;
    }
    Ok((n, rest))
}

fn input_of(ctx: &mut Ctx<'_>, tool: &str, names: &[String]) -> Result<Vec<u8>, u8> {
    if names.is_empty() {
        return Ok(std::mem::take(&mut ctx.stdin));
    }
    let mut all = Vec::new();
    for name in names {
        match ctx.path(name).and_then(|p| ctx.session.files().read(&p)) {
            Ok(data) => {
                ctx.charge(data.len())?;
                all.extend_from_slice(&data);
            }
            Err(e) => return Err(ctx.fail(1, &format!("{tool}: {e}"))),
        }
    }
    Ok(all)
}

fn head_or_tail(ctx: &mut Ctx<'_>, args: &[String], tool: &str) -> u8 {
    let (n, names) = match line_count(args) {
        Ok(v) => v,
        Err(e) => return ctx.fail(1, &format!("{tool}: {e}")),
    };
    let data = match input_of(ctx, tool, &names) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let lines: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    let picked = if tool == "head" { &lines[..n.min(lines.len())] } else { &lines[lines.len().saturating_sub(n)..] };
    for line in picked {
        if !ctx.write(line) {
            return 1;
        }
    }
    0
}

pub(crate) fn head(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    head_or_tail(ctx, args, "head")
}

pub(crate) fn tail(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    head_or_tail(ctx, args, "tail")
}

/// `wc [-lwc] [FILE...]`.
pub(crate) fn wc(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let (set, names) = match flags(args, "lwc") {
        Ok(v) => v,
        Err(c) => return ctx.fail(1, &format!("wc: Unknown option '{c}'")),
    };
    let names: Vec<String> = names.into_iter().map(str::to_owned).collect();
    let data = match input_of(ctx, "wc", &names) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let lines = data.iter().filter(|&&b| b == b'\n').count();
    let words = String::from_utf8_lossy(&data).split_whitespace().count();
    let counts: Vec<String> = [('l', lines), ('w', words), ('c', data.len())]
        .into_iter()
        .filter(|(f, _)| set.is_empty() || set.contains(f))
        .map(|(_, n)| n.to_string())
        .collect();
    ctx.print(&format!("{}\n", counts.join(" ")));
    0
}
