//! Hostile app bundles and layout modules: a bundle never reads outside its folder, never
//! reads without a size limit, and no layout (a module that uses itself, modules that fan
//! out, nesting 100,000 deep, a list of lists) can crash or run away with `check` or a render.
//! Each bundle is written to a temporary folder by the test (symlinks and pipes are not
//! something to commit).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use phoneworld_data::{Action, AppBundle, DataError, LayoutModules, LuaLibrary, Problem};
use phoneworld_phone::{check_app, project_root, Catalog, Device, DeviceConfig};

/// A folder under the system's temporary folder, removed when dropped. It holds `app/` (the
/// bundle), `layouts/` and whatever a test puts beside them ("outside" the bundle).
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let root = std::env::temp_dir().join(format!("pw-hardening-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("app/screens")).unwrap();
        std::fs::create_dir_all(root.join("layouts")).unwrap();
        let scratch = Scratch { root };
        scratch.write("app/main.lua", "function noop(ev) end\n");
        scratch.write("app/screens/main.ron", r#"Screen(title: "Main", root: Column(children: [Text(text: "Hello")]))"#);
        scratch.manifest("");
        scratch
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn app(&self) -> PathBuf {
        self.path("app")
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `app.ron` with more fields (`scripts` defaults to `main.lua`).
    fn manifest(&self, extra: &str) {
        let scripts = if extra.contains("scripts:") { "" } else { r#"scripts: ["main.lua"],"# };
        self.write(
            "app/app.ron",
            &format!(r#"App(package: "com.phoneworld.test.hostile", label: "Hostile", icon: "alarm", entry: "main", {scripts} {extra})"#),
        );
    }

    fn symlink(&self, target: &Path, rel: &str) {
        let link = self.path(rel);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, link).unwrap();
    }

    /// The problems `phoneworld check` lists, with this folder's layouts.
    fn check(&self) -> Vec<Problem> {
        let (modules, errors) = LayoutModules::load(&[self.path("layouts")]);
        let (library, library_errors) = LuaLibrary::load(&[self.path("lib")]);
        let mut problems: Vec<Problem> = errors.iter().chain(&library_errors).map(Problem::from).collect();
        problems.extend(check_app(&self.app(), &modules, &library));
        problems
    }

    /// A phone with only this app installed, opened on its entry screen.
    fn open(&self) -> Device {
        let catalog = Catalog::load(&[self.app()], &[self.path("layouts")]).unwrap();
        assert!(catalog.broken.is_empty(), "{:?}", catalog.broken);
        let mut device = Device::new(catalog, DeviceConfig::default()).unwrap();
        assert!(device.step(&Action::OpenApp { app: "Hostile".into() }).ok);
        device
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The one problem whose message holds `needle`.
fn find(problems: &[Problem], needle: &str) -> Problem {
    problems.iter().find(|p| p.message.contains(needle)).cloned().unwrap_or_else(|| panic!("no problem with {needle:?} in {problems:#?}"))
}

fn assert_outside(err: &DataError, file_suffix: &str, reference: &str) {
    match err {
        DataError::OutsideBundle { path, reference: r, .. } => {
            assert!(path.ends_with(file_suffix), "{err}");
            assert!(r.contains(reference), "{err}");
        }
        other => panic!("expected OutsideBundle, got {other}"),
    }
}

// ---- Paths stay inside the bundle -------------------------------------------------------

#[test]
fn a_content_path_that_climbs_out_is_refused() {
    let s = Scratch::new("climb");
    s.write("secret.json", r#"{"password": "hunter2"}"#);
    for reference in ["../secret.json", "content/../../secret.json", "./../app/../secret.json"] {
        s.manifest(&format!(r#"content: {{"s": "{reference}"}}"#));
        assert_outside(&AppBundle::load(&s.app()).unwrap_err(), "app/app.ron", reference);
        let problems = s.check();
        let p = find(&problems, "points outside");
        assert!(p.file.ends_with("app/app.ron") && p.message.contains(reference), "{p}");
    }
    // Climbing out and back in by name stays inside.
    s.write("app/content/ok.json", r#"{"fine": true}"#);
    s.manifest(r#"content: {"ok": "content/../content/ok.json"}"#);
    assert!(s.check().is_empty(), "{:?}", s.check());
}

#[test]
fn an_absolute_script_path_is_refused() {
    let s = Scratch::new("absolute");
    s.write("outside.lua", "function noop(ev) end\n");
    let outside = s.path("outside.lua");
    s.manifest(&format!(r#"scripts: ["{}"]"#, outside.display()));
    assert_outside(&AppBundle::load(&s.app()).unwrap_err(), "app/app.ron", &outside.display().to_string());
    let p = find(&s.check(), "points outside");
    assert!(p.message.contains("outside.lua"), "{p}");
    // Even one that names a file inside the bundle: a bundle names its files relative to itself.
    s.manifest(&format!(r#"scripts: ["{}"]"#, s.path("app/main.lua").display()));
    assert!(matches!(AppBundle::load(&s.app()), Err(DataError::OutsideBundle { .. })));
}

#[test]
fn a_symlink_to_a_file_outside_is_refused() {
    let s = Scratch::new("symlink");
    s.write("outside/data.json", r#"{"k": 1}"#);
    s.write("outside/screen.ron", r#"Screen(root: Text(text: "not mine"))"#);
    let data = s.path("outside/data.json");
    s.symlink(&data, "app/content/data.json");
    s.manifest(r#"content: {"d": "content/data.json"}"#);
    assert_outside(&AppBundle::load(&s.app()).unwrap_err(), "app/app.ron", "content/data.json");
    find(&s.check(), "`content/data.json` points outside");

    // A screen found by listing the folder, and the system's password file, too.
    s.manifest("");
    s.symlink(&s.path("outside/screen.ron"), "app/screens/other.ron");
    assert_outside(&AppBundle::load(&s.app()).unwrap_err(), "app/screens/other.ron", "screen.ron");
    std::fs::remove_file(s.path("app/screens/other.ron")).unwrap();
    s.symlink(Path::new("/etc/passwd"), "app/screens/passwd.ron");
    let p = find(&s.check(), "`/etc/passwd` points outside");
    assert!(p.file.ends_with("app/screens/passwd.ron"), "{p}");
    // A symlink that stays inside is followed.
    std::fs::remove_file(s.path("app/screens/passwd.ron")).unwrap();
    s.symlink(&s.path("app/screens/main.ron"), "app/screens/alias.ron");
    assert!(AppBundle::load(&s.app()).unwrap().screens.contains_key("alias"));
}

#[test]
fn a_symlinked_screens_folder_pointing_outside_is_refused() {
    let s = Scratch::new("screens-dir");
    s.write("elsewhere/main.ron", r#"Screen(title: "Main", root: Text(text: "not mine"))"#);
    std::fs::remove_dir_all(s.path("app/screens")).unwrap();
    s.symlink(&s.path("elsewhere"), "app/screens");
    assert_outside(&AppBundle::load(&s.app()).unwrap_err(), "app/screens", "elsewhere");
    let p = find(&s.check(), "points outside");
    assert!(p.file.ends_with("app/screens") && p.message.contains("elsewhere"), "{p}");
    // The app is left out; the phone does not come up with it.
    let catalog = Catalog::load(&[s.app()], &[s.path("layouts")]).unwrap();
    assert!(catalog.apps.is_empty() && catalog.broken.len() == 1, "{:?}", catalog.broken);
}

#[test]
fn a_layout_module_symlinked_outside_its_folder_is_refused() {
    let s = Scratch::new("module-link");
    s.write("outside/leak.ron", r#"Module(root: Text(text: "not a module of ours"))"#);
    s.symlink(&s.path("outside/leak.ron"), "layouts/leak.ron");
    let (modules, errors) = LayoutModules::load(&[s.path("layouts")]);
    assert!(modules.get("leak").is_none());
    assert_outside(&errors[0], "layouts/leak.ron", "outside/leak.ron");
}

// ---- Reads are bounded --------------------------------------------------------------------

#[test]
fn a_fifo_is_not_read() {
    let s = Scratch::new("fifo");
    let fifo = s.path("app/content/pipe.json");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    s.manifest(r#"content: {"p": "content/pipe.json"}"#);
    // Reading it would block forever: the check must come back, and say why.
    let started = Instant::now();
    let err = AppBundle::load(&s.app()).unwrap_err();
    assert!(matches!(&err, DataError::NotAFile { path } if path.ends_with("content/pipe.json")), "{err}");
    let p = find(&s.check(), "not a regular file");
    assert!(p.file.ends_with("app/content/pipe.json"), "{p}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_symlink_to_dev_zero_is_not_read() {
    let s = Scratch::new("zero");
    std::fs::remove_file(s.path("app/main.lua")).unwrap();
    s.symlink(Path::new("/dev/zero"), "app/main.lua");
    assert_outside(&AppBundle::load(&s.app()).unwrap_err(), "app/app.ron", "main.lua");
    find(&s.check(), "`main.lua` points outside");
}

#[test]
fn an_oversized_file_is_refused_before_it_is_read() {
    let s = Scratch::new("big");
    let big = s.path("app/content/big.json");
    std::fs::create_dir_all(big.parent().unwrap()).unwrap();
    // Sparse: the size is what counts, and nothing is read.
    std::fs::File::create(&big).unwrap().set_len(phoneworld_data::MAX_BUNDLE_FILE_BYTES + 1).unwrap();
    s.manifest(r#"content: {"b": "content/big.json"}"#);
    let err = AppBundle::load(&s.app()).unwrap_err();
    assert!(matches!(&err, DataError::TooLarge { path, .. } if path.ends_with("content/big.json")), "{err}");
    let p = find(&s.check(), "over the limit");
    assert!(p.file.ends_with("app/content/big.json"), "{p}");
    // The same for a screen and a module.
    std::fs::rename(&big, s.path("app/screens/huge.ron")).unwrap();
    s.manifest("");
    assert!(matches!(AppBundle::load(&s.app()), Err(DataError::TooLarge { .. })));
    std::fs::rename(s.path("app/screens/huge.ron"), s.path("layouts/huge.ron")).unwrap();
    let (_, errors) = LayoutModules::load(&[s.path("layouts")]);
    assert!(matches!(&errors[..], [DataError::TooLarge { .. }]), "{errors:?}");
}

// ---- Layout modules cannot run away -------------------------------------------------------

/// Renders the app's entry screen and returns what it shows and the build's problems.
fn render(s: &Scratch) -> (Vec<String>, Vec<String>, Duration) {
    let started = Instant::now();
    let mut device = s.open();
    let frame = device.frame();
    assert!(frame.width > 0);
    let texts = device.ui_elements().into_iter().filter_map(|e| e.text).collect();
    (texts, device.view_problems(), started.elapsed())
}

fn use_screen(s: &Scratch, module: &str) {
    s.write(
        "app/screens/main.ron",
        &format!(r#"Screen(title: "Main", root: Column(children: [Text(text: "Top"), Use(module: "{module}")]))"#),
    );
}

#[test]
fn a_module_that_uses_itself_is_reported_and_shown_as_a_placeholder() {
    let s = Scratch::new("self-use");
    s.write("layouts/echo.ron", r#"Module(root: Column(children: [Text(text: "again"), Use(module: "echo")]))"#);
    use_screen(&s, "echo");
    let p = find(&s.check(), "cycle: echo -> echo");
    assert!(p.file.ends_with("layouts/echo.ron") && p.line == Some(1), "{p}");
    let (texts, problems, _) = render(&s);
    assert!(texts.contains(&"[module echo uses itself]".to_owned()), "{texts:?}");
    assert!(problems.iter().any(|p| p.contains("layout module `echo` uses itself: echo -> echo")), "{problems:?}");
}

#[test]
fn a_cycle_of_three_modules_is_reported_and_shown_as_a_placeholder() {
    let s = Scratch::new("cycle");
    s.write("layouts/a.ron", "Module(\n  root: Column(children: [\n    Use(module: \"b\"),\n  ]),\n)");
    s.write("layouts/b.ron", r#"Module(root: Use(module: "c"))"#);
    s.write("layouts/c.ron", r#"Module(root: Row(children: [Text(text: "c"), Use(module: "a")]))"#);
    use_screen(&s, "b");
    let problems = s.check();
    let p = find(&problems, "cycle: a -> b -> c -> a");
    assert!(p.file.ends_with("layouts/a.ron") && p.line == Some(3), "{p}");
    assert_eq!(problems.iter().filter(|p| p.message.contains("cycle")).count(), 1, "{problems:#?}");
    let (texts, problems, _) = render(&s);
    assert!(texts.contains(&"[module b uses itself]".to_owned()), "{texts:?}");
    assert!(problems.iter().any(|p| p.contains("b -> c -> a -> b")), "{problems:?}");
}

#[test]
fn modules_that_fan_out_exponentially_stop_at_the_widget_limit() {
    // m0 uses m1 twice, m1 uses m2 twice, ... m20: 2^20 copies of the leaf.
    let s = Scratch::new("fan-out");
    for i in 0..20 {
        s.write(
            &format!("layouts/m{i:02}.ron"),
            &format!(r#"Module(root: Column(children: [Use(module: "m{0:02}"), Use(module: "m{0:02}")]))"#, i + 1),
        );
    }
    s.write("layouts/m20.ron", r#"Module(root: Card(children: [Text(text: "leaf"), Icon(icon: "alarm")]))"#);
    use_screen(&s, "m00");
    let problems = s.check();
    // Blamed on the smallest module over each limit, not on all that use it.
    let nodes = find(&problems, "expands to 12285 widgets (the limit is 10000)");
    assert!(nodes.file.ends_with("layouts/m09.ron"), "{nodes}");
    let depth = find(&problems, "layout modules nest 9 deep here (the limit is 8)");
    assert!(depth.file.ends_with("layouts/m11.ron"), "{depth}");
    assert_eq!(problems.len(), 2, "{problems:#?}");

    let (texts, problems, took) = render(&s);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(texts.len() < phoneworld_data::MAX_VIEW_NODES, "{}", texts.len());
    assert!(texts.iter().any(|t| t.starts_with("[module m") && t.ends_with("nested too deep]")), "{:?}", &texts[..10]);
    assert!(problems.iter().any(|p| p.contains("layout modules nest more than 8 deep (in layout module m00 -> m01")), "{problems:?}");
}

#[test]
fn a_wide_module_tree_stops_at_the_widget_limit() {
    // Within the depth limit, but 4^6 leaves of 4 widgets each.
    let s = Scratch::new("wide");
    for i in 0..6 {
        let uses = vec![format!(r#"Use(module: "w{}")"#, i + 1); 4].join(", ");
        s.write(&format!("layouts/w{i}.ron"), &format!("Module(root: Row(children: [{uses}]))"));
    }
    s.write("layouts/w6.ron", r#"Module(root: Column(children: [Text(text: "leaf"), Text(text: "{arg.x}")]))"#);
    use_screen(&s, "w0");
    find(&s.check(), "widgets (the limit is 10000)");
    let (texts, problems, took) = render(&s);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(texts.contains(&"[too many widgets]".to_owned()));
    assert!(problems.iter().any(|p| p.contains("more than 10000 widgets (in layout module w0 -> ")), "{problems:?}");
}

#[test]
fn a_list_of_lists_stops_at_the_widget_limit() {
    let s = Scratch::new("lists");
    let items: Vec<u32> = (0..2000).collect();
    s.write("app/content/n.json", &serde_json::to_string(&items).unwrap());
    s.manifest(r#"content: {"n": "content/n.json"}"#);
    s.write(
        "app/screens/main.ron",
        r#"Screen(root: List(items: "{content.n}", row: List(items: "{content.n}", row: Text(text: "{item}", visible: "index > 5"))))"#,
    );
    // The placeholder is where the limit was reached, far down the list.
    let (_, problems, took) = render(&s);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(problems, ["the screen has more than 10000 widgets: the rest is not shown"]);
}

// ---- Nesting and expressions --------------------------------------------------------------

#[test]
fn nesting_100000_deep_is_a_clear_error() {
    let s = Scratch::new("deep");
    let depth = 100_000;
    let deep = format!("Screen(root: {}Text(text: \"x\"){})", "Column(children: [".repeat(depth), "])".repeat(depth));
    s.write("app/screens/main.ron", &deep);
    let p = find(&s.check(), "nested more than 64 brackets deep");
    assert!(p.file.ends_with("app/screens/main.ron") && p.line == Some(1), "{p}");
    // The same for content, in RON and JSON.
    s.write("app/screens/main.ron", r#"Screen(root: Text(text: "x"))"#);
    s.write("app/content/deep.ron", &format!("{}1{}", "[".repeat(depth), "]".repeat(depth)));
    s.write("app/content/deep.json", &format!("{}1{}", "[".repeat(depth), "]".repeat(depth)));
    s.manifest(r#"content: {"r": "content/deep.ron", "j": "content/deep.json"}"#);
    let problems = s.check();
    assert!(find(&problems, "nested more than 64").file.ends_with("deep.ron"));
    assert!(find(&problems, "recursion limit").file.ends_with("deep.json"));
}

#[test]
fn huge_or_deeply_nested_expressions_are_clear_errors() {
    let s = Scratch::new("expr");
    let nested = format!("{}state.x{}", "(".repeat(1000), ")".repeat(1000));
    let chain = vec!["local.a"; 300].join(" || ");
    s.write("app/screens/main.ron", &format!("Screen(root: Column(children: [\n  Text(text: \"{{{nested}}}\"),\n]))"));
    let p = find(&s.check(), "nested more than 32 deep");
    assert!(p.file.ends_with("app/screens/main.ron") && p.line == Some(2), "{p}");
    assert!(p.message.len() < 400, "{p}");
    s.write("app/screens/main.ron", &format!("Screen(root: Column(children: [\n\n  Text(visible: \"{chain}\"),\n]))"));
    let p = find(&s.check(), "more than 256 parts");
    assert_eq!(p.line, Some(3), "{p}");
    let long = "x".repeat(phoneworld_data::MAX_EXPR_BYTES + 1);
    s.write("app/screens/main.ron", &format!("Screen(root: Text(text: \"{long}\"))"));
    find(&s.check(), "bytes long (the limit is 4096)");
}

#[test]
fn a_module_chain_nests_no_deeper_than_the_limit_at_render() {
    // A chain of 30 modules, each inside a Column: within the widget count, past both depths.
    let s = Scratch::new("chain");
    for i in 0..30 {
        s.write(
            &format!("layouts/c{i:02}.ron"),
            &format!(r#"Module(root: Column(children: [Text(text: "{i}"), Use(module: "c{:02}")]))"#, i + 1),
        );
    }
    s.write("layouts/c30.ron", r#"Module(root: Text(text: "end"))"#);
    use_screen(&s, "c00");
    let p = find(&s.check(), "layout modules nest 9 deep here");
    assert!(p.file.ends_with("layouts/c21.ron"), "{p}");
    let (texts, problems, _) = render(&s);
    assert!(texts.contains(&"[module c08 nested too deep]".to_owned()), "{texts:?}");
    assert!(!texts.contains(&"end".to_owned()));
    assert!(problems.iter().any(|p| p.contains("c00 -> c01 -> c02 -> c03 -> c04 -> c05 -> c06 -> c07")), "{problems:?}");
}

#[test]
fn the_bundled_apps_and_layouts_are_within_every_limit() {
    let (modules, errors) = LayoutModules::load(&[project_root().join("layouts")]);
    assert!(errors.is_empty(), "{errors:?}");
    let analysis = phoneworld_data::ModuleAnalysis::new(&modules);
    assert!(analysis.cycles.is_empty());
    let mut widest = 0;
    for dir in phoneworld_phone::app_dirs(&project_root().join("apps")) {
        let bundle = AppBundle::load(&dir).unwrap();
        for screen in bundle.screens.values() {
            let e = analysis.expand(&screen.root);
            assert!(e.over_limits().is_empty(), "{}: {e:?}", screen.file.display());
            widest = widest.max(e.nodes);
        }
    }
    assert!(widest * 4 < phoneworld_data::MAX_VIEW_NODES as u64, "{widest}");
}

#[test]
fn widgets_nested_past_the_depth_limit_are_cut_within_a_small_stack() {
    // Nine modules of eight nested containers each: 72 levels, past the limit of 64.
    let s = Scratch::new("deep-widgets");
    for i in 0..9 {
        let inner = if i < 8 { format!(r#"Use(module: "d{}")"#, i + 1) } else { r#"Text(text: "bottom")"#.to_owned() };
        let open = "Card(children: [Column(children: [Row(children: [Stack(children: [Scroll(children: [Column(children: [Row(children: [";
        s.write(&format!("layouts/d{i}.ron"), &format!("Module(root: {open}{inner}])])])])])])]))"));
    }
    use_screen(&s, "d0");
    assert!(find(&s.check(), "widgets nest").message.contains("(the limit is 64)"));
    // Render on a thread with half the stack of a spawned thread: the depth is bounded, and
    // so is every recursion over the tree (build, layout, paint, the accessibility tree).
    let problems =
        std::thread::Builder::new().stack_size(1 << 20).spawn(move || render(&s).1).unwrap().join().expect("render on a 1 MiB stack");
    assert!(problems.iter().any(|p| p.contains("widgets nest more than 64 deep (in layout module d0 -> ")), "{problems:?}");
}

#[test]
fn out_of_range_numbers_are_clear_errors() {
    // An infinite text size overflowed the renderer; a huge one rasterized glyphs of gigabytes.
    let s = Scratch::new("numbers");
    for (prop, message) in [
        ("size: inf", "`size` must be a number between -256 and 256"),
        ("size: 3000", "`size` must be a number between -256 and 256"),
        ("width: NaN", "the value must be a number between -100000 and 100000"),
        ("padding: (8, 1e30)", "a padding or margin must be"),
        ("columns: 4000000000", "`columns` is at most 24"),
    ] {
        s.write("app/screens/main.ron", &format!("Screen(root: Column(children: [\n  Grid(children: [Text(text: \"x\", {prop})]),\n]))"));
        let p = find(&s.check(), message);
        assert!(p.file.ends_with("app/screens/main.ron") && p.line == Some(2), "{p}");
    }
}

#[test]
fn a_huge_string_in_content_or_state_is_refused() {
    // Shown, filtered or compared in every row of a list, it would cost its length each time.
    let s = Scratch::new("long-string");
    let long = "w".repeat(phoneworld_data::MAX_CONTENT_STRING_BYTES + 1);
    s.write("app/content/notes.json", &serde_json::json!({"items": [{"body": "ok"}, {"body": long}]}).to_string());
    s.manifest(r#"content: {"notes": "content/notes.json"}"#);
    let p = find(&s.check(), "a string of 65537 bytes (the limit is 65536)");
    assert!(p.file.ends_with("app/content/notes.json") && p.message.contains("`items.2.body`"), "{p}");
    s.manifest(&format!(r#"state: {{"draft": {{"text": "{long}"}}}}"#));
    let p = find(&s.check(), "a string of 65537 bytes");
    assert!(p.file.ends_with("app/app.ron") && p.message.contains("`state.draft.text`"), "{p}");
}

#[test]
fn a_big_list_passed_to_a_module_in_every_row_is_not_copied() {
    // Each use of the module used to copy its arguments: 4,000 rows x 100,000 items.
    let s = Scratch::new("big-args");
    let items: Vec<u32> = (0..100_000).collect();
    s.write("app/content/c.json", &serde_json::json!({"rows": (0..4000).collect::<Vec<_>>(), "big": items}).to_string());
    s.manifest(r#"content: {"c": "content/c.json"}"#);
    s.write(
        "app/screens/main.ron",
        r#"Screen(root: List(items: "{content.c.rows}", row: Use(module: "row", args: {"all": "{content.c.big}"})))"#,
    );
    s.write(
        "layouts/row.ron",
        r#"Module(root: Text(text: "{arg.all|len} items, the last {arg.all.100000}", visible: "arg.all == arg.all"))"#,
    );
    let (texts, problems, took) = render(&s);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(problems.is_empty(), "{problems:?}");
    assert!(texts.contains(&"100000 items, the last 99999".to_owned()), "{texts:?}");
}

// ---- Image files are part of the bundle's identity ----------------------------------------

/// Images are decoded only when drawn, yet an episode recorded with one picture must not claim
/// the same apps as one recorded with another: the bundle's hash covers the image files,
/// wherever they are in the bundle, and nothing outside it (a symlink leading out is not read).
#[test]
fn the_bundle_hash_covers_its_image_files() {
    let s = Scratch::new("image-hash");
    let hash = || AppBundle::load(&s.app()).unwrap().hash;
    let without = hash();
    s.write("app/images/photo.png", "first picture");
    let first = hash();
    assert_ne!(first, without, "an added image changes the hash");
    s.write("app/images/photo.png", "second picture");
    let second = hash();
    assert_ne!(second, first, "a changed image changes the hash");
    s.write("app/images/photo.png", "first picture");
    assert_eq!(hash(), first, "the same files give the same hash");
    s.write("app/notes.txt", "not an image");
    assert_eq!(hash(), first, "files that are not images are not read");
    s.write("secret/leak.png", "outside");
    s.symlink(&s.path("secret/leak.png"), "app/images/leak.png");
    assert_eq!(hash(), first, "a symlink leading out is not followed");
}

// ---- Option values are closed sets ------------------------------------------------------

#[test]
fn a_misspelled_option_value_is_refused_where_it_is_written_with_the_value_meant() {
    let s = Scratch::new("options");
    s.write(
        "app/screens/main.ron",
        "Screen(\n    title: \"Main\",\n    root: Column(\n        align: \"cetner\",\n        children: [Text(text: \"Hello\")],\n    ),\n)\n",
    );
    s.write("layouts/badge.ron", "Module(params: [], root: Button(text: \"Ok\", variant: \"outline\"))\n");
    let problems = s.check();
    let align = find(&problems, "unknown align `cetner`: did you mean `center`?");
    assert!(align.file.ends_with("screens/main.ron") && align.line == Some(4), "{align}");
    let variant = find(&problems, "unknown variant `outline`: did you mean `outlined`?");
    assert!(variant.file.ends_with("layouts/badge.ron") && variant.line == Some(1), "{variant}");
    // The phone leaves the app out, naming the file and line, and goes on.
    let catalog = Catalog::load(&[s.app()], &[s.path("layouts")]).unwrap();
    let (_, err) = catalog.broken.iter().find(|(_, e)| e.to_string().contains("cetner")).expect("the app is broken");
    assert!(err.to_string().contains("main.ron:4"), "{err}");
}

#[test]
fn a_misspelled_state_path_is_named_at_its_line_with_the_key_meant() {
    let s = Scratch::new("paths");
    s.manifest(r#"state: {"settings": {"wifi": true}}"#);
    s.write("app/screens/main.ron", "Screen(\n    title: \"Main\",\n    root: Text(text: \"{state.setings.wifi}\"),\n)\n");
    let problem = find(&s.check(), "no `setings` in the app's initial state: did you mean `settings`?");
    assert!(problem.file.ends_with("screens/main.ron") && problem.line == Some(3), "{problem}");
    // A list position counts from 1 in layouts as in Lua and task files.
    s.manifest(r#"state: {"notes": [{"title": "Milk"}]}"#);
    s.write("app/screens/main.ron", "Screen(\n    title: \"Main\",\n    root: Text(text: \"{state.notes.0.title}\"),\n)\n");
    let problem =
        find(&s.check(), "`state.notes.0.title`: list positions count from 1, so `0` names no element (the first is `state.notes.1`)");
    assert!(problem.file.ends_with("screens/main.ron") && problem.line == Some(3), "{problem}");
    s.write("app/screens/main.ron", "Screen(\n    title: \"Main\",\n    root: Text(text: \"{state.notes.1.title}\"),\n)\n");
    assert!(s.check().is_empty(), "{:?}", s.check());
}

// ---- The shared Lua library ---------------------------------------------------------------

#[test]
fn an_app_reads_the_library_beside_its_layouts_and_a_broken_module_is_reported_with_its_line() {
    let s = Scratch::new("library");
    s.write("lib/greet.lua", "local M = {}\nfunction M.hello(name) return \"Hello, \" .. lib.greet.trimmed(name) end\nfunction M.trimmed(s) return (s:gsub(\"^%s+\", \"\")) end\nreturn M\n");
    s.write("app/main.lua", "local hello = lib.greet.hello\nfunction greet(ev) state.set(\"greeting\", hello(\"  Ada\")) end\n");
    s.write(
        "app/screens/main.ron",
        r#"Screen(title: "Main", root: Column(children: [Button(text: "Greet", on_tap: "greet"), Text(text: "{state.greeting}")]))"#,
    );
    s.manifest(r#"state: {"greeting": ""}"#);
    assert!(s.check().is_empty(), "{:#?}", s.check());
    let mut device = s.open();
    let greet = device.ui_elements().into_iter().find(|e| e.text.as_deref() == Some("Greet")).expect("the button");
    let b = greet.bbox_pixels.expect("pixels");
    assert!(device.step(&Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 }).ok);
    assert_eq!(device.state_json()["apps"]["com.phoneworld.test.hostile"]["greeting"], "Hello, Ada");

    // A module that does not compile is reported at its line; the app that uses it cannot load.
    s.write("lib/greet.lua", "local M = {\nreturn M\n");
    let problem = find(&s.check(), "expected");
    assert!(problem.file.ends_with("lib/greet.lua") && problem.line == Some(2), "{problem}");
    let catalog = Catalog::load(&[s.app()], &[s.path("layouts")]).unwrap();
    let broken: Vec<String> = catalog.broken.iter().map(|(path, err)| format!("{}: {err}", path.display())).collect();
    assert!(broken.iter().any(|b| b.contains("lib/greet.lua") && b.contains(":2:")), "{broken:?}");
}

#[test]
fn a_problem_is_placed_at_its_widget_and_column_not_at_the_first_line_with_the_same_words() {
    let s = Scratch::new("places");
    s.manifest(r#"state: {"count": 1}"#);
    s.write(
        "app/screens/main.ron",
        "Screen(\n    title: \"Main\",\n    // fit: \"cover\" suits photos; {state.cuont} is a typo\n    root: Column(children: [\n        Image(src: \"\", fit: \"cover\"),\n        Row(children: [Text(text: \"{state.count}\"), Button(text: \"b\",\n            fit: \"cover\")]),\n        List(items: \"{state.count}\", row: Text(text: \"{state.cuont}\")),\n    ]),\n)\n",
    );
    let problems = s.check();
    let ignored = find(&problems, "`fit` does nothing on Button");
    assert_eq!((ignored.line, ignored.column), (Some(7), Some(13)), "{ignored}");
    assert!(ignored.to_string().ends_with("screens/main.ron:7:13: `fit` does nothing on Button: only Image reads it"), "{ignored}");
    let typo = find(&problems, "no `cuont`");
    assert_eq!((typo.line, typo.column), (Some(8), Some(56)), "{typo}");
}

#[test]
fn a_host_service_handler_that_does_not_exist_is_a_check_problem() {
    let s = Scratch::new("services");
    s.manifest(r#"services: (pay: "take_payment", balance: "wallet.balance")"#);
    let problem = find(&s.check(), "handler `take_payment` is not defined in main.lua");
    assert!(problem.file.ends_with("app.ron") && problem.line == Some(1), "{problem}");
}
