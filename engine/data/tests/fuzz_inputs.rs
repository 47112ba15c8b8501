//! A quick seeded fuzz of the public, panic-free entry points: bundles and layout modules
//! loaded from memory, and binding expressions parsed and evaluated. The inputs are the real
//! files of `apps/` and `layouts/`, mutated. It runs in about a second; a longer campaign
//! uses the same entry points.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path as FsPath, PathBuf};

use phoneworld_data::{AppBundle, BoolExpr, LayoutModules, ModuleAnalysis, Node, Outline, Path, Rng, Scope, Template};
use serde_json::{json, Value};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file of a folder, by path relative to it.
fn files_of(dir: &FsPath) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let rel = path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, text);
            }
        }
    }
    out
}

/// Pieces that make mutants interesting: nesting, paths out of the bundle, odd numbers,
/// expression syntax, multi-byte characters.
const TOKENS: &[&str] = &[
    "Use(module: \"m\")",
    "Column(children: [",
    "]),",
    "{",
    "}",
    "{{",
    "|upper",
    "|é",
    "|date",
    "((((",
    ")",
    "!",
    "&&",
    "||",
    " ? 'a' : 'b'",
    "'",
    "\"",
    "../../x",
    "/etc/passwd",
    "1e308",
    "-1",
    "NaN",
    "inf",
    "99999999999999999999",
    "'9999999999999-01-01'",
    "state.",
    "item.0.",
    "columns: 4000000000",
    "∑",
    "\\u{0}",
];

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.range(0, items.len() as i64 - 1) as usize]
}

/// One to four random edits of `text`; the result is UTF-8 (the entry points take text).
fn mutate(rng: &mut Rng, text: &str, donors: &[&str]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..rng.range(1, 4) {
        let at = rng.range(0, bytes.len() as i64) as usize;
        let len = rng.range(0, 64) as usize;
        match rng.range(0, 7) {
            0 if !bytes.is_empty() => {
                let i = at.min(bytes.len() - 1);
                let odd = b"(){}[]\":,|!?'.\\ 0az9_-";
                bytes[i] = odd[rng.range(0, odd.len() as i64 - 1) as usize];
            }
            1 => {
                bytes.drain(at..(at + len).min(bytes.len()));
            }
            2 => {
                let end = (at + len * 4).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                let to = rng.range(0, bytes.len() as i64) as usize;
                bytes.splice(to..to, copy);
            }
            3 => {
                let token = pick(rng, TOKENS).as_bytes().to_vec();
                bytes.splice(at..at, token);
            }
            4 => {
                let donor = pick(rng, donors).as_bytes();
                let from = rng.range(0, donor.len() as i64) as usize;
                let end = (from + len * 4).min(donor.len());
                bytes.splice(at..at, donor[from..end].iter().copied());
            }
            5 => bytes.truncate(at),
            _ => {
                // Deep nesting, sometimes far past every limit.
                let token = pick(rng, &["(", "[", "Column(children: [", "!", "{(", "Use(module: \"m\", args: {\"a\": "]);
                let times = if rng.range(0, 3) == 0 { 20_000 } else { 40 };
                bytes.splice(at..at, token.repeat(times).into_bytes());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Fails with the input when `f` panics.
fn no_panic(what: &str, input: &str, f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        let shown: String = input.chars().take(2000).collect();
        panic!("{what} panicked on:\n{shown}");
    }
}

/// Evaluates every binding of a layout, as a view build would.
fn eval_all(root: &Node, scope: &Scope<'_>) {
    root.walk(&mut |node| {
        let p = &node.props;
        for t in [&p.text, &p.title, &p.label, &p.hint, &p.error, &p.icon, &p.content_desc, &p.items, &p.progress].into_iter().flatten() {
            let _ = t.render(scope);
            let _ = t.value(scope);
        }
        for c in [&p.visible, &p.enabled, &p.selected].into_iter().flatten() {
            let _ = c.eval(scope);
        }
        for t in p.args.values() {
            let _ = t.value(scope);
        }
    });
}

fn scope_values(bundle: &AppBundle) -> (Value, Value) {
    (bundle.initial_state(), bundle.content.clone())
}

#[test]
fn mutated_bundles_and_modules_load_without_panicking() {
    let mut rng = Rng::new(7);
    let apps: Vec<BTreeMap<String, String>> = phoneworld_dirs("apps").iter().map(|d| files_of(d)).collect();
    let layouts = files_of(&repo().join("layouts"));
    let donors: Vec<&str> = apps.iter().flat_map(|a| a.values().map(String::as_str)).chain(layouts.values().map(String::as_str)).collect();
    let system = json!({"time": "07:30", "date": "2026-01-05", "wifi": true});
    for round in 0..600 {
        let mut files = apps[rng.range(0, apps.len() as i64 - 1) as usize].clone();
        let keys: Vec<String> = files.keys().cloned().collect();
        let key = &keys[rng.range(0, keys.len() as i64 - 1) as usize];
        let mutant = mutate(&mut rng, &files[key], &donors);
        files.insert(key.clone(), mutant.clone());
        no_panic(&format!("round {round}: AppBundle::from_memory ({key})"), &mutant, || {
            let (bundle, errors) = AppBundle::from_memory(FsPath::new("app"), &files);
            for err in &errors {
                let _ = phoneworld_data::Problem::from(err).to_string();
            }
            if let Some(bundle) = bundle {
                let (state, content) = scope_values(&bundle);
                let scope = Scope {
                    state: &state,
                    local: &Value::Null,
                    content: &content,
                    params: &Value::Null,
                    system: &system,
                    vm: &Value::Null,
                    item: None,
                    index: None,
                    args: None,
                };
                for screen in bundle.screens.values() {
                    eval_all(&screen.root, &scope);
                }
            }
        });
    }
    for round in 0..200 {
        let mut files = layouts.clone();
        let keys: Vec<String> = files.keys().cloned().collect();
        let key = &keys[rng.range(0, keys.len() as i64 - 1) as usize];
        let mutant = mutate(&mut rng, &files[key], &donors);
        files.insert(key.clone(), mutant.clone());
        // A mutant may also be a new module that others reach.
        files.insert("m.ron".into(), mutate(&mut rng, &files[key], &donors));
        no_panic(&format!("round {round}: LayoutModules::from_memory ({key})"), &mutant, || {
            let (modules, _) = LayoutModules::from_memory(&files);
            let analysis = ModuleAnalysis::new(&modules);
            for module in modules.modules.values() {
                let _ = analysis.expand(&module.root).over_limits();
            }
            // The outline `check` places problems with reads whatever the text is.
            let _ = Outline::parse(&mutant);
        });
    }
}

#[test]
fn mutated_expressions_parse_and_evaluate_without_panicking() {
    let mut rng = Rng::new(11);
    let mut seeds: Vec<String> = Vec::new();
    for dir in phoneworld_dirs("apps").into_iter().chain([repo().join("layouts")]) {
        for text in files_of(&dir).values() {
            seeds.extend(quoted(text).filter(|s| s.contains('{') || s.contains('.')).map(str::to_owned));
        }
    }
    assert!(seeds.len() > 100, "{} expressions", seeds.len());
    let donors: Vec<&str> = seeds.iter().map(String::as_str).collect();
    let state = json!({"alarms": [{"time": 405, "label": "Gym", "days": [0, 6]}], "name": "Ada", "n": 3, "big": "x".repeat(100_000)});
    let item = json!({"name": "Ada Lovelace", "date": "2026-02-29", "price": 12.5, "tags": ["a", "b"]});
    let system = json!({"time": "07:30", "date": "2026-01-05", "wifi": true});
    let list = json!([1, 2, 3]);
    let args: phoneworld_data::Args<'_> = [("name".to_owned(), std::borrow::Cow::Borrowed(&item["name"]))].into_iter().collect();
    for round in 0..3000 {
        let seed = pick(&mut rng, &donors);
        let text = mutate(&mut rng, seed, &donors);
        no_panic(&format!("round {round}: expressions"), &text, || {
            let scope = Scope {
                state: &state,
                local: &list,
                content: &state,
                params: &item,
                system: &system,
                vm: &item,
                item: Some(&item),
                index: Some(2),
                args: Some(&args),
            };
            if let Ok(t) = Template::parse(&text) {
                let _ = (t.render(&scope), t.value(&scope), t.paths());
            }
            if let Ok(c) = BoolExpr::parse(&text) {
                let _ = (c.eval(&scope), c.paths());
            }
            let _ = Path::parse(&text);
        });
    }
}

#[test]
fn limits_give_clear_errors() {
    let deep = format!("{}state.x{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(BoolExpr::parse(&deep).unwrap_err().contains("bytes long"));
    let nested = format!("{}state.x{}", "(".repeat(40), ")".repeat(40));
    assert!(BoolExpr::parse(&nested).unwrap_err().contains("nested more than 32 deep"));
    let negated = format!("{}state.x", "!".repeat(40));
    assert!(BoolExpr::parse(&negated).unwrap_err().contains("nested more than 32 deep"));
    let chain = vec!["state.x"; 300].join(" && ");
    assert!(BoolExpr::parse(&chain).unwrap_err().contains("more than 256 parts"));
    let filters = format!("{{state.x{}}}", "|upper".repeat(300));
    assert!(Template::parse(&filters).unwrap_err().contains("more than 256 parts"));
    assert!(Template::parse("{state.x|é}").unwrap_err().contains("unknown filter `é`"));
    // A date far out of range is shown as it is rather than overflowing the day count.
    let empty = Value::Null;
    let scope = Scope {
        state: &empty,
        local: &empty,
        content: &empty,
        params: &empty,
        system: &empty,
        vm: &empty,
        item: None,
        index: None,
        args: None,
    };
    assert_eq!(Template::parse("{'9999999999999-01-01'|date}").unwrap().render(&scope), "9999999999999-01-01");
    // A huge value renders cut, and a huge list is not written out whole.
    let big = json!({"s": "é".repeat(10_000), "list": vec![json!({"k": "v"}); 100_000]});
    let scope = Scope { state: &big, ..scope };
    assert!(Template::parse("{state.s|upper}!").unwrap().render(&scope).len() <= phoneworld_data::MAX_TEXT_BYTES);
    assert!(Template::parse("{state.list}").unwrap().render(&scope).len() <= phoneworld_data::MAX_TEXT_BYTES);
    // Comparing huge lists stops early: a value equals itself, two huge copies count as different.
    let copies = json!({"a": vec![1; 20_000], "b": vec![1; 20_000], "c": [1, [2, {"k": 3}]], "d": [1, [2, {"k": 3}]]});
    let scope = Scope { state: &copies, ..scope };
    for (cond, expected) in
        [("state.a == state.a", true), ("state.a == state.b", false), ("state.c == state.d", true), ("state.c != state.a", true)]
    {
        assert_eq!(BoolExpr::parse(cond).unwrap().eval(&scope), expected, "{cond}");
    }
}

fn phoneworld_dirs(sub: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join(sub)).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

/// The double-quoted strings of a file (no escapes handled: they are seeds, not truth).
fn quoted(text: &str) -> impl Iterator<Item = &str> {
    text.split('"').skip(1).step_by(2)
}
