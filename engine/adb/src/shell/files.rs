//! File commands over the device's in-memory files: cat, ls, rm, rmdir, mkdir, touch, cp, mv,
//! cd, pwd. Messages and exit codes follow toybox.

use phoneworld_data::civil_from_days;

use super::{flags, Ctx};
use crate::fs::{Entry, FsError, S_IFDIR};

/// The part of an error after the path: `No such file or directory`.
fn reason(err: &FsError) -> String {
    let text = err.to_string();
    text.rsplit(": ").next().unwrap_or(&text).to_owned()
}

pub(crate) fn cat(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let (_, names) = match flags(args, "uvAet") {
        Ok(v) => v,
        Err(c) => return ctx.fail(1, &format!("cat: Unknown option '{c}'")),
    };
    if names.is_empty() {
        let stdin = std::mem::take(&mut ctx.stdin);
        return u8::from(!ctx.write(&stdin));
    }
    let mut status = 0;
    for name in names {
        if ctx.stopped() {
            return 1;
        }
        if name == "-" {
            let stdin = std::mem::take(&mut ctx.stdin);
            ctx.write(&stdin);
            continue;
        }
        match ctx.path(name).and_then(|p| ctx.session.files().read(&p)) {
            Ok(data) => {
                ctx.write(&data);
            }
            Err(e) => status = ctx.fail(1, &format!("cat: {name}: {}", reason(&e))),
        }
    }
    status
}

/// `-rwxrwx--x` style permissions.
fn mode_string(mode: u32) -> String {
    let mut s = String::with_capacity(10);
    s.push(if mode & S_IFDIR != 0 && mode & 0o100_000 == 0 { 'd' } else { '-' });
    for shift in [6, 3, 0] {
        let bits = (mode >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        s.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    s
}

fn date_of(secs: u32) -> String {
    let days = i64::from(secs) / 86_400;
    let rem = i64::from(secs) % 86_400;
    let c = civil_from_days(days);
    format!("{:04}-{:02}-{:02} {:02}:{:02}", c.0, c.1, c.2, rem / 3600, rem % 3600 / 60)
}

fn long_line(name: &str, entry: &Entry) -> String {
    let (mode, size, mtime, links) = match entry {
        Entry::Dir { mode, mtime } => (S_IFDIR | mode, 4096, *mtime, 2),
        Entry::File { data, mode, mtime } => (0o100_000 | mode, data.len(), *mtime, 1),
    };
    format!("{} {links} root root {size:>8} {} {name}\n", mode_string(mode), date_of(mtime))
}

pub(crate) fn ls(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let (set, names) = match flags(args, "laA1dRhsnt") {
        Ok(v) => v,
        Err(c) => return ctx.fail(1, &format!("ls: Unknown option '{c}'")),
    };
    let long = set.contains(&'l') || set.contains(&'n');
    let all = set.contains(&'a');
    let names: Vec<&str> = if names.is_empty() { vec!["."] } else { names };
    let mut status = 0;
    let many = names.len() > 1;
    for (k, name) in names.iter().enumerate() {
        if ctx.stopped() {
            return 1;
        }
        let path = match ctx.path(name) {
            Ok(p) => p,
            Err(e) => {
                status = ctx.fail(1, &format!("ls: {name}: {}", reason(&e)));
                continue;
            }
        };
        let listing: Result<Vec<(String, Entry)>, FsError> = match ctx.session.files().get(&path) {
            None => Err(FsError::NotFound { path: path.clone() }),
            Some(entry) if !entry.is_dir() || set.contains(&'d') => Ok(vec![((*name).to_owned(), entry.clone())]),
            Some(_) => ctx.session.files().children(&path).map(|v| v.into_iter().map(|(n, e)| (n, e.clone())).collect()),
        };
        match listing {
            Err(e) => status = ctx.fail(1, &format!("ls: {name}: {}", reason(&e))),
            Ok(entries) => {
                let is_dir_listing = ctx.session.files().is_dir(&path) && !set.contains(&'d');
                if many && is_dir_listing {
                    ctx.print(&format!("{}{name}:\n", if k > 0 { "\n" } else { "" }));
                }
                if long && is_dir_listing {
                    ctx.print(&format!("total {}\n", entries.len()));
                }
                let mut rows: Vec<(String, Entry)> = Vec::new();
                if all && is_dir_listing {
                    rows.push((".".into(), Entry::Dir { mode: 0o771, mtime: 0 }));
                    rows.push(("..".into(), Entry::Dir { mode: 0o771, mtime: 0 }));
                }
                rows.extend(entries.into_iter().filter(|(n, _)| all || set.contains(&'A') || !n.starts_with('.') || !is_dir_listing));
                for (n, e) in rows {
                    if long {
                        ctx.print(&long_line(&n, &e));
                    } else {
                        ctx.print(&format!("{n}\n"));
                    }
                }
            }
        }
    }
    status
}

pub(crate) fn rm(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let (set, names) = match flags(args, "frRvi") {
        Ok(v) => v,
        Err(c) => return ctx.fail(1, &format!("rm: Unknown option '{c}'")),
    };
    let force = set.contains(&'f');
    let recursive = set.contains(&'r') || set.contains(&'R');
    if names.is_empty() && !force {
        return ctx.fail(1, "rm: Needs 1 argument");
    }
    let mut status = 0;
    for name in names {
        if ctx.stopped() {
            return 1;
        }
        let result = ctx.path(name).and_then(|p| {
            if ctx.session.files().is_dir(&p) && !recursive {
                return Err(FsError::IsADirectory { path: p });
            }
            ctx.session.files_mut().remove(&p, recursive)
        });
        match result {
            Ok(()) => {}
            Err(FsError::NotFound { .. }) if force => {}
            Err(e) => status = ctx.fail(1, &format!("rm: {name}: {}", reason(&e))),
        }
    }
    status
}

pub(crate) fn rmdir(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let mut status = 0;
    for name in args {
        if ctx.stopped() {
            return 1;
        }
        if let Err(e) = ctx.path(name).and_then(|p| ctx.session.files_mut().rmdir(&p)) {
            status = ctx.fail(1, &format!("rmdir: {name}: {}", reason(&e)));
        }
    }
    status
}

pub(crate) fn mkdir(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let (set, names) = match flags(args, "pvm") {
        Ok(v) => v,
        Err(c) => return ctx.fail(1, &format!("mkdir: Unknown option '{c}'")),
    };
    if names.is_empty() {
        return ctx.fail(1, "mkdir: Needs 1 argument");
    }
    let now = ctx.session.clock_secs();
    let mut status = 0;
    for name in names {
        if ctx.stopped() {
            return 1;
        }
        let result = ctx.path(name).and_then(|p| {
            if set.contains(&'p') {
                ctx.session.files_mut().mkdir_all(&p, now)
            } else {
                ctx.session.files_mut().mkdir(&p, now)
            }
        });
        if let Err(e) = result {
            status = ctx.fail(1, &format!("mkdir: '{name}': {}", reason(&e)));
        }
    }
    status
}

pub(crate) fn touch(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let now = ctx.session.clock_secs();
    let mut status = 0;
    for name in args.iter().filter(|a| !a.starts_with('-')) {
        if ctx.stopped() {
            return 1;
        }
        let result = ctx.path(name).and_then(|p| match ctx.session.files_mut().touch(&p, now) {
            Err(FsError::NotFound { .. }) => ctx.session.files_mut().write(&p, b"", false, 0o644, now),
            other => other,
        });
        if let Err(e) = result {
            status = ctx.fail(1, &format!("touch: '{name}': {}", reason(&e)));
        }
    }
    status
}

/// Where `cp`/`mv` put a file: into a folder keeps the name.
fn destination(ctx: &Ctx<'_>, src: &str, dst: &str) -> Result<String, FsError> {
    let dst = ctx.path(dst)?;
    if ctx.session.files().is_dir(&dst) {
        let name = src.rsplit('/').next().unwrap_or(src);
        Ok(format!("{}/{name}", dst.trim_end_matches('/')))
    } else {
        Ok(dst)
    }
}

fn copy_or_move(ctx: &mut Ctx<'_>, args: &[String], tool: &str) -> u8 {
    let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let [src, dst] = operands[..] else {
        return ctx.fail(1, &format!("{tool}: Needs 2 arguments"));
    };
    let now = ctx.session.clock_secs();
    let size = ctx.path(src).and_then(|from| ctx.session.files().read(&from)).map_or(0, |data| data.len());
    if let Err(status) = ctx.charge(size) {
        return status;
    }
    let result = ctx.path(src).and_then(|from| {
        let data = ctx.session.files().read(&from)?;
        let to = destination(ctx, &from, dst)?;
        ctx.session.files_mut().write(&to, &data, false, 0o644, now)?;
        if tool == "mv" && to != from {
            ctx.session.files_mut().remove(&from, false)?;
        }
        Ok(())
    });
    match result {
        Ok(()) => 0,
        Err(e) => ctx.fail(1, &format!("{tool}: {}", e)),
    }
}

pub(crate) fn cp(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    copy_or_move(ctx, args, "cp")
}

pub(crate) fn mv(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    copy_or_move(ctx, args, "mv")
}

pub(crate) fn cd(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let target = args.first().map(String::as_str).unwrap_or("/");
    match ctx.path(target) {
        Ok(p) if ctx.session.files().is_dir(&p) => {
            ctx.shell.cwd = p;
            0
        }
        Ok(p) if ctx.session.files().get(&p).is_some() => ctx.fail(2, &format!("{}: cd: {target}: Not a directory", super::SH)),
        Ok(_) => ctx.fail(2, &format!("{}: cd: {target}: No such file or directory", super::SH)),
        Err(e) => ctx.fail(2, &format!("{}: cd: {target}: {}", super::SH, reason(&e))),
    }
}

pub(crate) fn pwd(ctx: &mut Ctx<'_>, _args: &[String]) -> u8 {
    let cwd = ctx.shell.cwd.clone();
    ctx.print(&format!("{cwd}\n"));
    0
}
