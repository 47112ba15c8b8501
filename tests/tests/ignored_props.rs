//! `check` says a property does nothing on a widget only when that is true: for every widget
//! and every property the table says it ignores, setting the property changes neither the
//! frame nor the UI tree.

use phoneworld_data::{NodeKind, Props};
use phoneworld_phone::{project_root, widget_reads, Catalog, Device, DeviceConfig};
use serde_json::json;

/// Each widget as a screen would write it, with what it needs to show something.
const WIDGETS: &[(NodeKind, &str)] = &[
    (NodeKind::Column, r#"Column(children: [Text(text: "in a column")]"#),
    (NodeKind::Row, r#"Row(children: [Text(text: "in a row")]"#),
    (NodeKind::Stack, r#"Stack(children: [Text(text: "in a stack")]"#),
    (NodeKind::Card, r#"Card(children: [Text(text: "in a card")]"#),
    (NodeKind::Scroll, r#"Scroll(height: 80, children: [Text(text: "in a scroll")]"#),
    (NodeKind::List, r#"List(height: 80, items: "{state.list}", row: Text(text: "{item.name}")"#),
    (NodeKind::Grid, r#"Grid(items: "{state.list}", columns: 2, row: Text(text: "{item.name}")"#),
    (NodeKind::Spacer, "Spacer(height: 8"),
    (NodeKind::Divider, "Divider("),
    (NodeKind::Text, r#"Text(text: "words""#),
    (NodeKind::Icon, r#"Icon(icon: "star""#),
    (NodeKind::Avatar, r#"Avatar(text: "Ada""#),
    (NodeKind::Image, r#"Image(icon: "image", width: 60, height: 40"#),
    (NodeKind::Button, r#"Button(text: "Press""#),
    (NodeKind::IconButton, r#"IconButton(icon: "add""#),
    (NodeKind::Fab, r#"Fab(icon: "edit""#),
    (NodeKind::Chip, r#"Chip(text: "chip""#),
    (NodeKind::TextField, r#"TextField(value: "state.typed", label: "Field""#),
    (NodeKind::Switch, r#"Switch(value: "state.on", text: "Switch""#),
    (NodeKind::Checkbox, r#"Checkbox(value: "state.on", text: "Box""#),
    (NodeKind::Radio, r#"Radio(value: "state.pick", option: "a", text: "A""#),
    (NodeKind::Slider, r#"Slider(value: "state.level", min: 0, max: 10"#),
    (NodeKind::Progress, r#"Progress(progress: "0.3""#),
    (NodeKind::Tabs, r#"Tabs(value: "state.tab", tabs: [(text: "One"), (text: "Two")]"#),
    (NodeKind::BottomNav, r#"BottomNav(value: "state.tab", tabs: [(text: "One", icon: "home"), (text: "Two", icon: "star")]"#),
    (NodeKind::TopBar, r#"TopBar(title: "Top""#),
    (NodeKind::TimePicker, r#"TimePicker(value: "state.time""#),
    (NodeKind::DatePicker, r#"DatePicker(value: "state.date""#),
    (NodeKind::Use, r#"Use(module: "section_header", args: {"title": "Section"}"#),
];

/// A value of each property that would show if the widget read it.
fn sample(name: &str) -> &'static str {
    match name {
        "text" | "title" | "label" | "hint" | "error" => r#""Sample text""#,
        "icon" => r#""favorite""#,
        "size" => "40",
        "weight" => r#""bold""#,
        "color" => r##""#FF0000""##,
        "max_lines" => "1",
        "text_align" => r#""end""#,
        "variant" => r#""outlined""#,
        "src" => r#""images/missing.png""#,
        "fit" => r#""contain""#,
        "circle" | "decorative" | "multiline" | "password" | "back" | "all_caps" => "true",
        "route" => r#""{state.route}""#,
        "on_change" | "on_submit" | "on_scroll_end" => r#""noop""#,
        "value" => r#""state.typed""#,
        "option" => r#""a""#,
        "selected" => r#""state.on""#,
        "min" => "5",
        "max" => "7",
        "step" => "2",
        "progress" => r#""0.8""#,
        "keyboard" => r#""number""#,
        "items" => r#""{state.list}""#,
        "row" | "empty" => r#"Text(text: "A row")"#,
        "columns" => "3",
        "tabs" => r#"[(text: "Tab")]"#,
        "children" => r#"[Text(text: "A child")]"#,
        "module" => r#""section_header""#,
        "args" => r#"{"title": "An argument"}"#,
        other => panic!("no sample for `{other}`: add one"),
    }
}

fn screen(widgets: &[String]) -> String {
    format!("Screen(root: Column(children: [\n{}\n]))", widgets.join(",\n"))
}

/// The frame hash and UI tree of a screen of `widgets`, each written as `head` + extra + `)`.
fn observe(dir: &std::path::Path, widgets: &[String]) -> (String, String) {
    std::fs::write(dir.join("screens/main.ron"), screen(widgets)).unwrap();
    let catalog = Catalog::load(&[dir.to_path_buf()], &[project_root().join("layouts")]).unwrap();
    assert!(catalog.broken.is_empty(), "{:?}\n{}", catalog.broken, screen(widgets));
    // One px per dp and tall enough for every widget to be on screen.
    let config = DeviceConfig { width: 480, height: 6000, density: 160, ..DeviceConfig::default() };
    let mut device = Device::new(catalog, config).unwrap();
    device.open_screen("t.props", "main", json!({})).unwrap();
    assert!(device.view_problems().is_empty(), "{:?}", device.view_problems());
    (device.frame_hash(), device.ui_xml())
}

/// A folder with a one-screen app whose state holds what the sample widgets read.
fn app_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pw-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("screens")).unwrap();
    std::fs::write(dir.join("main.lua"), "function noop(ev) end\n").unwrap();
    let state = r#"{"list": [{"name": "one"}, {"name": "two"}], "on": true, "typed": "typed", "pick": "a", "level": 3, "tab": 0, "time": 480, "date": "2025-10-15", "route": ""}"#;
    std::fs::write(
        dir.join("app.ron"),
        format!(r#"App(package: "t.props", label: "Props", icon: "star", entry: "main", scripts: ["main.lua"], state: {state})"#),
    )
    .unwrap();
    dir
}

#[test]
fn a_property_check_calls_ignored_changes_nothing_on_that_widget() {
    let dir = app_dir("ignored-props");
    let plain: Vec<String> = WIDGETS.iter().map(|(_, head)| format!("{head})")).collect();
    let before = observe(&dir, &plain);
    let mut checked = 0;
    for name in Props::names() {
        let ignoring: Vec<usize> = (0..WIDGETS.len()).filter(|&i| !widget_reads(WIDGETS[i].0, name)).collect();
        if ignoring.is_empty() {
            continue;
        }
        let with: Vec<String> = WIDGETS
            .iter()
            .enumerate()
            .map(|(i, (_, head))| match (ignoring.contains(&i), head.ends_with('(')) {
                (false, _) => format!("{head})"),
                (true, true) => format!("{head}{name}: {})", sample(name)),
                (true, false) => format!("{head}, {name}: {})", sample(name)),
            })
            .collect();
        let after = observe(&dir, &with);
        let kinds: Vec<&str> = ignoring.iter().map(|&i| WIDGETS[i].0.name()).collect();
        assert!(before.0 == after.0 && before.1 == after.1, "`{name}` changed the screen of a widget said to ignore it: {kinds:?}");
        checked += 1;
    }
    assert!(checked >= 30, "{checked} properties checked");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn all_caps_draws_a_text_in_capitals_and_its_element_keeps_the_text_as_written() {
    let dir = app_dir("all-caps");
    let widgets = |text: &str, caps: &str| vec![format!(r#"Text(text: "{text}"{caps})"#), format!(r#"Button(text: "{text}"{caps})"#)];
    let (caps_frame, caps_tree) = observe(&dir, &widgets("Sign in", ", all_caps: true"));
    let (upper_frame, _) = observe(&dir, &widgets("SIGN IN", ""));
    let (plain_frame, plain_tree) = observe(&dir, &widgets("Sign in", ""));
    assert_eq!(caps_frame, upper_frame, "drawn as the capitals would be");
    assert_ne!(caps_frame, plain_frame);
    assert_eq!(caps_tree, plain_tree, "the UI tree keeps \"Sign in\"");
    assert!(caps_tree.contains(r#"text="Sign in""#), "{caps_tree}");
    std::fs::remove_dir_all(&dir).unwrap();
}
