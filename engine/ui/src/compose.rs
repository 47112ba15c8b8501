//! Composing the whole screen: status bar, the foreground (launcher, recents or the app's top
//! screen), the keyboard, the navigation bar, and the overlays on top.

use std::sync::Arc;

use phoneworld_data::{CivilTime, Scope};
use phoneworld_layout::{Direction, ViewNode};
use phoneworld_render::Color;
use phoneworld_text::Weight;
use serde_json::Value;

use crate::builder::{container, At, Builder};
use crate::catalog::Catalog;
use crate::interaction::{Hit, Interaction, SystemAction};
use crate::kit;
use crate::row_memo::{RowMemo, Screen};
use crate::shell::{self, Shell};
use crate::store::{Foreground, Store};
use crate::theme::{Metrics, Theme};

/// The composed screen: the view tree, what each interactive node does, and problems met.
#[derive(Debug, Clone)]
pub struct Composed {
    pub root: ViewNode,
    pub hits: Vec<Hit>,
    pub problems: Vec<String>,
}

/// Pixel heights of the system bars.
pub fn bar_heights(m: &Metrics) -> (f32, f32) {
    (m.dp(28.0), m.dp(48.0))
}

/// System settings plus the clock, as layouts see them under `system.*`.
pub(crate) fn system_scope(store: &Store) -> Value {
    let mut system = store.system.clone();
    let now = CivilTime::from_ms(store.session.clock_ms);
    if let Value::Object(map) = &mut system {
        map.insert("time".into(), Value::String(now.clock_string(phoneworld_data::clock_24h(&store.system))));
        map.insert("date".into(), Value::String(now.date_string()));
        map.insert("minutes".into(), Value::from(now.hour * 60 + now.minute));
        map.insert("now".into(), Value::from(store.session.clock_ms));
    }
    system
}

pub fn metrics(store: &Store, px_per_dp: f32) -> Metrics {
    let font_scale = store.system.get("font_scale").and_then(Value::as_f64).unwrap_or(1.0).clamp(0.5, 2.0) as f32;
    Metrics { px_per_dp, font_scale }
}

/// Composes the screen; `rows` keeps list rows from one compose to the next (see
/// [`RowMemo`](crate::RowMemo)): the result is the same with a fresh one.
pub fn compose(store: &Store, catalog: &Arc<Catalog>, vm: &Value, width: f32, height: f32, px_per_dp: f32, rows: &mut RowMemo) -> Composed {
    let dark = store.system.get("dark_theme").and_then(Value::as_bool).unwrap_or(false);
    let theme = match crate::accent::system_accent(&store.system) {
        Some(seed) => crate::accent::accented(Theme::get(dark), seed),
        None => Theme::get(dark),
    };
    let m = metrics(store, px_per_dp);
    let (status_h, nav_h) = bar_heights(&m);
    let mut hits = Vec::new();
    let mut problems = Vec::new();
    let mut root = container(Direction::Column);
    root.style.width = Some(width);
    root.style.height = Some(height);
    root.paint.background = Some(theme.background);
    root.paint.clip = true;

    let bars = system_bars(store, catalog);
    let mut sh = Shell { theme, m, store, catalog, hits: &mut hits, width };
    root.children.push(shell::status_bar(&mut sh, status_h, bars.0));
    let content = match &store.session.foreground {
        Foreground::Home => shell::launcher(&mut sh),
        Foreground::Recents => shell::recents(&mut sh),
        Foreground::App(package) => {
            let (view, mut found) = app_screen(store, catalog, package, vm, theme, m, width, sh.hits, rows);
            problems.append(&mut found);
            view
        }
    };
    let mut content = content;
    // The screen gives the app what the bars and the keyboard leave; an app whose content is
    // taller is cut at the keyboard, never pushing the navigation bar off the screen.
    content.style.min_height = Some(0.0);
    content.paint.clip = true;
    if matches!(store.session.overlay, Some(crate::store::Overlay::Dialog { .. } | crate::store::Overlay::Sheet { .. }))
        || store.session.shade_open
    {
        // A modal surface covers the screen: what is under it is not reachable, so it is
        // left out of the accessibility tree (as a dialog window is the active one on Android).
        shell::silence(&mut content);
    }
    root.children.push(content);
    let keyboard_up = match (&store.session.focus, store.foreground_app()) {
        (Some(focus), Some(app)) => focus.app == app,
        _ => false,
    };
    if keyboard_up {
        let focus = store.session.focus.as_ref().expect("checked");
        root.children.push(shell::keyboard(&mut sh, focus.symbols, focus.shift));
    }
    let nav_index = root.children.len();
    root.children.push(shell::nav_bar(&mut sh, nav_h, bars.1));

    let keyboard_h = if keyboard_up { m.dp(shell::keyboard::KEYBOARD_DP) } else { 0.0 };
    let now = store.session.clock_ms;
    if let Some(snackbar) = store.session.snackbar.as_ref().filter(|s| s.until_ms > now) {
        root.children.push(shell::transient(&mut sh, snackbar, true, nav_h + keyboard_h));
    }
    if let Some(toast) = store.session.toast.as_ref().filter(|s| s.until_ms > now) {
        root.children.push(shell::transient(&mut sh, toast, false, nav_h + keyboard_h));
    }
    if let Some(overlay) = &store.session.overlay {
        root.children.push(shell::dialog_or_sheet(&mut sh, overlay, nav_h));
    }
    if let Some(shown) = &store.session.interruptions.shown {
        // Only the status and navigation bars stay reachable beside a modal interruption.
        for (i, child) in root.children.iter_mut().enumerate() {
            if i != 0 && i != nav_index {
                shell::silence(child);
            }
        }
        root.children.push(shell::interruption(&mut sh, shown, nav_h));
    }
    if store.session.shade_open {
        root.children.push(shell::shade(&mut sh, nav_h));
    }
    if let Some(n) = store.heads_up_notification() {
        root.children.push(shell::heads_up(&mut sh, n));
    }
    root.set_a11y(kit::a11y("android.widget.FrameLayout", store.foreground_app().unwrap_or(shell::LAUNCHER)));
    Composed { root, hits, problems }
}

/// The colours the foreground app's top screen paints the status and navigation bars.
fn system_bars(store: &Store, catalog: &Catalog) -> (Option<Color>, Option<Color>) {
    let Foreground::App(package) = &store.session.foreground else { return (None, None) };
    let screen = store.top(package).and_then(|entry| catalog.get(package)?.bundle.screens.get(&entry.screen));
    let Some(bars) = screen.map(|s| &s.system_bars) else { return (None, None) };
    let parse = |c: &Option<String>| c.as_deref().and_then(Color::parse_hex);
    (parse(&bars.status), parse(&bars.navigation))
}

/// The top screen of an app, built from its layout and the store.
#[allow(clippy::too_many_arguments, reason = "what a screen is built from")]
fn app_screen(
    store: &Store,
    catalog: &Arc<Catalog>,
    package: &str,
    vm: &Value,
    theme: Theme,
    m: Metrics,
    screen_w: f32,
    hits: &mut Vec<Hit>,
    rows: &mut RowMemo,
) -> (ViewNode, Vec<String>) {
    let mut frame = container(Direction::Column);
    frame.style.grow = 1.0;
    frame.paint.background = Some(theme.background);
    frame.paint.clip = true;
    let Some(app) = catalog.get(package) else {
        frame.children.push(kit::text(&m, format!("{package} is not installed"), 16.0, Weight::Regular, theme.error));
        return (frame, vec![format!("{package} is not installed")]);
    };
    let Some(entry) = store.top(package) else { return (frame, Vec::new()) };
    let Some(screen) = app.bundle.screens.get(&entry.screen) else {
        frame.children.push(kit::text(&m, format!("no screen `{}`", entry.screen), 16.0, Weight::Regular, theme.error));
        return (frame, vec![format!("{package}: no screen `{}`", entry.screen)]);
    };
    let null = Value::Null;
    let state = store.apps.get(package).map_or(&null, |a| &**a);
    let system = system_scope(store);
    let scope = Scope {
        state,
        local: &entry.local,
        content: &app.content,
        params: &entry.params,
        system: &system,
        vm,
        item: None,
        index: None,
        args: None,
    };
    let focus = store.session.focus.as_ref();
    rows.begin(catalog, Screen { app: package.to_owned(), screen: entry.screen.clone(), focus: focus.cloned(), theme, m, screen_w });
    let mut builder = Builder {
        theme,
        m,
        app: package,
        modules: &catalog.modules,
        bundle: &app.bundle,
        images: &catalog.images,
        maps: &catalog.maps,
        screen_w,
        entry,
        focus,
        hits,
        problems: Vec::new(),
        budget: Default::default(),
        keys: Default::default(),
        new_keys: Vec::new(),
        problems_noted: 0,
        memo: Some(rows),
    };
    let at = At { scope, key: "0".into(), row: None, item_path: None, in_scroll: false };
    if app.bundle.manifest.mini_app_of.is_some() {
        let title = if screen.title.is_empty() { app.label().to_owned() } else { screen.title.clone() };
        frame.children.push(mini_app_chrome(package, &title, theme, m, builder.hits));
    }
    if let Some(mut view) = builder.node(&screen.root, &at) {
        view.style.grow = view.style.grow.max(1.0);
        frame.children.push(view);
    }
    let problems = builder.problems;
    if let Some(rows) = builder.memo {
        rows.end();
    }
    let mut a = kit::a11y("android.widget.FrameLayout", package);
    a.resource_id = "android:id/content".into();
    frame.set_a11y(a);
    frame.paint.background = Some(theme.background);
    (frame, problems)
}

/// The host's chrome around a mini-app: its title and the capsule (··· menu, × close).
fn mini_app_chrome(package: &str, title: &str, theme: Theme, m: Metrics, hits: &mut Vec<Hit>) -> ViewNode {
    use phoneworld_layout::{Align, Justify};
    let mut bar = container(Direction::Row);
    bar.style.height = Some(m.dp(56.0));
    bar.style.shrink = false;
    bar.style.align_items = Some(Align::Center);
    bar.style.padding = [m.dp(16.0), 0.0, m.dp(8.0), 0.0];
    let mut name = kit::one_line(kit::text(&m, title.to_owned(), 18.0, Weight::Medium, theme.on_surface));
    name.style.grow = 1.0;
    let mut a = kit::a11y("android.widget.TextView", package);
    a.text = title.to_owned();
    a.resource_id = "com.phoneworld.miniapp:id/title".into();
    name.set_a11y(a);
    bar.children.push(name);
    let mut capsule = container(Direction::Row);
    capsule.style.align_items = Some(Align::Center);
    capsule.paint.border = Some((theme.outline_variant, m.dp(1.0)));
    capsule.paint.radius = m.dp(24.0);
    for (icon, desc, action) in [
        ("more_horiz", "More", SystemAction::MiniAppMenu(package.to_owned())),
        ("close", "Close mini-app", SystemAction::CloseMiniApp(package.to_owned())),
    ] {
        let mut button = container(Direction::Column);
        button.style.width = Some(m.dp(48.0));
        button.style.height = Some(m.dp(48.0));
        button.style.align_items = Some(Align::Center);
        button.style.justify = Justify::Center;
        button.children.push(kit::icon(&m, icon, 22.0, theme.on_surface));
        let mut a = kit::a11y("android.widget.ImageButton", package);
        a.content_desc = desc.to_owned();
        a.clickable = true;
        button.set_a11y(a);
        hits.push(Hit { tap: Some(Interaction::System(action)), long_press: None, scroll: None });
        button.hit = Some((hits.len() - 1) as u32);
        capsule.children.push(button);
    }
    let mut a = kit::a11y("android.widget.LinearLayout", package);
    a.resource_id = "com.phoneworld.miniapp:id/capsule".into();
    capsule.set_a11y(a);
    bar.children.push(capsule);
    bar.set_a11y(kit::a11y("android.view.ViewGroup", package));
    bar
}
