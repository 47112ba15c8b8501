//! The generated app: a screen layout per abstract screen, Lua with the navigation edges,
//! a manifest with the inputs' state, and the observed texts as read-only content.

mod beneath;
mod closes;
mod crops;
mod drawables;
mod in_place;
mod ink;
mod lend;
mod model;
mod remember;
mod requires;
mod ron_writer;
mod routes;
pub(crate) mod selection;
pub(crate) mod shown;
mod surfaces;
mod tabs;
mod titled;
mod ways;
pub(crate) mod widgets;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::abstraction::{snake, Abstraction, Role};
use crate::error::ReconError;
use crate::graph::UsageGraph;
use crate::limits::{MAX_MODEL_FILE_BYTES, MAX_SCREEN_WIDGETS, MAX_WIDGET_DEPTH};
use crate::memory::norm;
use crate::trace::{ScreenKind, Trace, TraceAction};
use crate::visual::Rgb;
pub use model::{AppModel, Handler, ScreenModel, Way, GUARD_SCREEN, MOVE_ON_MS};
use model::{RadioGroup, Route, Save, Selection};
pub(crate) use remember::saved_key;
pub(crate) use ron_writer::one_line;
pub(crate) use ways::navigation;
use ways::Gesture;
pub(crate) use widgets::{best_match, checked_in, Mapper};
use widgets::{build, from_target, match_score};
pub use widgets::{iou, Widget, WidgetKind, WidgetRole};

/// How an app is generated.
#[derive(Debug, Clone)]
pub struct GenOptions {
    pub package: String,
    pub label: String,
    /// The most-visited screens built in full; the rest keep only their interactive widgets.
    pub full_screens: usize,
}

/// Whether a widget below `w` has the resource id `id`.
fn id_below(w: &Widget, id: &str) -> bool {
    let mut found = false;
    for c in &w.children {
        c.walk(&mut |d| found |= d.resource_id == id);
    }
    found
}

fn assign_ids(widgets: &mut [Widget], used: &mut BTreeSet<String>) {
    // Where to look for a free `<base>_<n>` next: what came before is taken (used only grows),
    // so a screen of thousands of texts is not searched from `text_2` each time.
    let mut next: BTreeMap<String, usize> = BTreeMap::new();
    for w in widgets.iter_mut() {
        w.walk_mut(&mut |w| {
            let base = if !w.resource_id.is_empty() {
                let id = snake(w.resource_id.rsplit('/').next().unwrap_or(&w.resource_id));
                // A wrapper sharing its id with the field inside it leaves the id to the field.
                if id_below(w, &w.resource_id) {
                    format!("{id}_group")
                } else {
                    id
                }
            } else {
                match w.kind {
                    WidgetKind::Container => "group",
                    WidgetKind::Text => "text",
                    WidgetKind::Button => "button",
                    WidgetKind::Image | WidgetKind::Icon => "image",
                    WidgetKind::TextField => "field",
                    WidgetKind::Switch => "switch",
                    WidgetKind::Checkbox => "checkbox",
                }
                .to_owned()
            };
            let base = if base.is_empty() { "widget".to_owned() } else { base };
            let mut id = base.clone();
            let n = next.entry(base.clone()).or_insert(2);
            while used.contains(&id) {
                id = format!("{base}_{n}");
                *n += 1;
            }
            used.insert(id.clone());
            w.id = id;
        });
    }
}

fn humanize(id: &str) -> String {
    let text = id.replace('_', " ");
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Keeps only navigation and input widgets (lifted out of their containers).
fn interactive_only(widgets: Vec<Widget>) -> Vec<Widget> {
    let mut out = Vec::new();
    for mut w in widgets {
        let children = std::mem::take(&mut w.children);
        if w.role != WidgetRole::Static || w.on_tap.is_some() {
            out.push(w);
        }
        out.extend(interactive_only(children));
    }
    out
}

/// The screenshot of a trace's screen, if it has one that decodes (else a warning naming it).
fn screenshot(trace: &Trace, screen_id: &str, warnings: &mut Vec<String>) -> Option<Rgb> {
    let s = trace.screens.get(screen_id)?;
    let rel = s.screenshot.as_ref()?;
    let path = Path::new(&trace.base_dir).join(rel);
    let img = Rgb::load(&path).map_err(|e| warnings.push(format!("{e}; the screenshot is left out"))).ok()?;
    // Crop to the part the hierarchy's coordinates cover (some screenshots have black below).
    let scale = f64::from(img.width) / f64::from(s.width.max(1));
    let crop_h = ((f64::from(s.height) * scale) as u32).min(img.height);
    Some(Rgb { width: img.width, height: crop_h, pixels: img.pixels[..(img.width * crop_h) as usize].to_vec() })
}

/// At most this many rounds over a screen's visits to add their rows.
const MERGE_PASSES: usize = 4;

fn widget_count(widgets: &[Widget]) -> usize {
    let mut n = 0;
    for w in widgets {
        w.walk(&mut |_| n += 1);
    }
    n
}

/// One way a widget was seen used: target screen, count, the node, its screen's size.
type Observed = (usize, usize, crate::trace::UiNode, (u32, u32));

/// A list or grid on screen without a single row (a scrolling text field or web view is not
/// a list).
fn shows_an_empty_list(root: &crate::trace::UiNode) -> bool {
    let mut empty = false;
    root.walk(&mut Vec::new(), &mut |_, n| {
        let list = ["ListView", "GridView", "RecyclerView"].iter().any(|c| n.class.ends_with(c));
        empty |= list && !n.editable && n.visible && n.children.is_empty();
    });
    empty
}

/// The colours a screenshot (its first `rows` rows, the screen) shows where the phone draws
/// its status bar and its navigation bar, the screen being stretched over the phone.
fn bar_colours(shot: &crate::visual::Rgb, rows: u32) -> Option<([u8; 3], [u8; 3])> {
    let shown = f64::from(rows) / f64::from(shot.height.max(1));
    let (status, nav) = widgets::bar_shares();
    Some((shot.median_color(0.0, 0.0, 1.0, status * shown)?, shot.median_color(0.0, (1.0 - nav) * shown, 1.0, shown)?))
}

/// Builds the app model from the abstraction and the usage graph.
pub fn model(abstraction: &Abstraction, graph: &UsageGraph, traces: &[Trace], options: &GenOptions) -> AppModel {
    let ranked = graph.ranked();
    let full: BTreeSet<usize> =
        ranked.iter().filter(|&&i| abstraction.screens[i].role != Role::Launcher).take(options.full_screens).copied().collect();
    let mut screens = Vec::new();
    let mut unreproduced = Vec::new();
    let mut warnings = Vec::new();
    let mut state_counter: BTreeSet<String> = BTreeSet::new();
    let mut images = BTreeMap::new();
    let (mut gaps_read, mut gaps_tesseract) = (0, None);
    for (index, abs) in abstraction.screens.iter().enumerate() {
        if abs.role == Role::Launcher {
            continue;
        }
        // The example: the first visit with a hierarchy that looks as the screen usually does:
        // not with the keyboard up (the app's window shrinks above it, squeezing its lists to a
        // sliver), and if possible not with an empty list (a results grid after a query nothing
        // matched); else the first visit with a hierarchy.
        let with_hierarchy = abs.members.iter().filter_map(|(t, id)| {
            let s = traces.get(*t)?.screens.get(id)?;
            s.root.as_ref().map(|r| (*t, s, r))
        });
        let no_keyboard = |r: &crate::trace::UiNode| !crate::abstraction::shows_keyboard(r);
        let example = with_hierarchy
            .clone()
            .find(|(.., r)| no_keyboard(r) && !shows_an_empty_list(r))
            .or_else(|| with_hierarchy.clone().find(|(.., r)| no_keyboard(r)))
            .or_else(|| with_hierarchy.clone().next());
        let (mut widgets, background, surfaces, example_name, example_shot) = match example {
            Some((t, s, root)) => {
                let m = Mapper { width: f64::from(s.width.max(1)), height: f64::from(s.height.max(1)) };
                let shot = screenshot(&traces[t], &s.id, &mut warnings);
                let background = shot.as_ref().and_then(|img| img.background_colour(crate::visual::rows_showing(img, s.width, s.height)));
                // What the screenshot shows where the hierarchy names nothing is drawn too.
                let (seen, tesseract) = shot.as_ref().map(|img| crate::see::read_gaps(s, img)).unwrap_or_default();
                let widgets = if seen.is_empty() {
                    build(root, &m, shot.as_ref())
                } else {
                    gaps_read += 1;
                    gaps_tesseract = tesseract;
                    let mut root = root.clone();
                    root.children.extend(seen);
                    build(&root, &m, shot.as_ref())
                };
                let rows = shot.as_ref().map(|img| crate::visual::rows_showing(img, s.width, s.height));
                // A dialog's page is the screen beneath it, dimmed (the rebuilt dialog is drawn
                // over nothing): the colour the screenshot shows around its panel.
                let background = match (&shot, rows) {
                    (Some(img), Some(rows)) if s.kind == ScreenKind::Dialog => {
                        let top = widgets.iter().map(|w| w.source_box[1]).fold(f64::INFINITY, f64::min);
                        let bottom = widgets.iter().map(|w| w.source_box[3]).fold(0.0, f64::max);
                        (top < bottom).then(|| img.backdrop_colour((top, bottom), rows)).flatten()
                    }
                    _ => background,
                };
                let surfaces = match (&shot, rows) {
                    (Some(img), Some(rows)) => surfaces::surfaces(img, rows, &m),
                    _ => Vec::new(),
                };
                (widgets, background, surfaces, format!("{}#{}", traces[t].source, s.id), shot.zip(rows))
            }
            None => (
                Vec::new(),
                None,
                Vec::new(),
                abs.members.first().map(|(t, id)| format!("{}#{id} (known only by its hash)", traces[*t].source)).unwrap_or_default(),
                None,
            ),
        };
        // Later visits add what the first did not show (more list rows, content that came later);
        // the example itself adds nothing new. A visit scrolled far down aligns only with rows
        // other visits added, so the visits are gone over again while they add rows.
        let visits: Vec<Vec<Widget>> = abs
            .members
            .iter()
            .filter_map(|(t, id)| {
                let s = traces.get(*t)?.screens.get(id)?;
                let m = Mapper { width: f64::from(s.width.max(1)), height: f64::from(s.height.max(1)) };
                Some(build(s.root.as_ref()?, &m, None))
            })
            .collect();
        for _ in 0..MERGE_PASSES {
            let before = widget_count(&widgets);
            for visit in &visits {
                widgets::merge_visit(&mut widgets, visit.clone());
            }
            if widget_count(&widgets) == before {
                break;
            }
        }
        // Attach the navigation edges: the most frequent target of each widget wins.
        let mut by_widget: BTreeMap<(String, Gesture), Vec<Observed>> = BTreeMap::new();
        let mut stays: BTreeMap<(String, Gesture), usize> = BTreeMap::new();
        let mut acted_on = false;
        let mut moves_on: Option<(String, usize)> = None;
        for (to, edge) in graph.out_edges(index) {
            let gesture = Gesture::of(&edge.action);
            acted_on |= gesture.is_some() || edge.action == "swipe";
            if to == index {
                if let (Some(sig), Some(g)) = (&edge.widget, gesture) {
                    *stays.entry((sig.clone(), g)).or_default() += edge.count;
                }
                continue;
            }
            if edge.spontaneous && abstraction.screens[to].role != Role::Launcher && moves_on.as_ref().is_none_or(|(_, c)| edge.count > *c)
            {
                moves_on = Some((abstraction.screens[to].id.clone(), edge.count));
            }
            match (&edge.widget, &edge.target, gesture) {
                // Typing that left the app (a search handed to a browser) is not the field's doing.
                (Some(sig), Some((node, size)), Some(g)) if g != Gesture::Type || abstraction.screens[to].role == Role::App => {
                    by_widget.entry((sig.clone(), g)).or_default().push((to, edge.count, node.clone(), *size))
                }
                _ => {
                    let why = match edge.action.as_str() {
                        "key:back" | "key:home" | "key:recents" => "the phone's own navigation does this",
                        "wait" if edge.spontaneous => "the screen changed by itself (a timer or loading)",
                        "open_app" | "close_app" => "app launches are the phone's",
                        _ => "only taps, long presses and typing on widgets become handlers",
                    };
                    unreproduced.push(serde_json::json!({
                        "from": abs.id, "to": abstraction.screens[to].id, "action": edge.action, "widget": edge.widget, "count": edge.count, "reason": why,
                    }));
                }
            }
        }
        let mut pending = Vec::new();
        for ((sig, gesture), mut options_list) in by_widget {
            options_list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let (to, count, node, size) = options_list[0].clone();
            // A widget that mostly left the screen where it was (more often than it led
            // anywhere) is not a way out of it.
            let stayed = stays.get(&(sig.clone(), gesture)).copied().unwrap_or(0);
            let left: usize = options_list.iter().map(|o| o.1).sum();
            // Unless it stayed only while a field was empty: then it needs them filled.
            let requirement = (stayed > left && gesture != Gesture::Type)
                .then(|| requires::learn(abstraction, traces, index, to, &sig, gesture.action()))
                .flatten();
            if stayed > left && requirement.is_none() {
                unreproduced.push(serde_json::json!({
                    "from": abs.id, "to": abstraction.screens[to].id, "action": gesture.action(), "widget": sig, "count": count,
                    "reason": format!("the same widget stayed on the screen more often ({stayed} times)"),
                }));
                continue;
            }
            let alternatives: Vec<(String, usize)> =
                options_list[1..].iter().map(|(t, c, ..)| (abstraction.screens[*t].id.clone(), *c)).collect();
            pending.push((sig, gesture, to, count, node, size, alternatives, requirement));
        }
        // Fields a tap opened in place (a search field in the toolbar): hidden until it does.
        let mut opened: Vec<(usize, in_place::OpenedInPlace)> = Vec::new();
        for o in in_place::opened_in_place(abstraction, traces, index) {
            let m = Mapper::for_size(o.size);
            if best_match(&widgets, &o.field, &m, &|w| w.kind == WidgetKind::TextField).is_none() {
                let mut field = from_target(&o.field, &m);
                (field.kind, field.role) = (WidgetKind::TextField, WidgetRole::Input);
                widgets.push(field);
                opened.push((widgets.len() - 1, o));
            }
        }
        // Targets that the example does not show become widgets of their own, on top, except
        // where a list row of their kind now is.
        for (_, _, _, _, node, size, ..) in &pending {
            let m = Mapper::for_size(*size);
            let mut best = 0.0;
            for w in &widgets {
                w.walk(&mut |w| best = f64::max(best, match_score(w, node, &m)));
            }
            if best == 0.0 {
                let target = from_target(node, &m);
                if !widgets::a_list_row_at(&widgets, &target) {
                    widgets.push(target);
                }
            }
        }
        let mut used = BTreeSet::new();
        assign_ids(&mut widgets, &mut used);
        let mut handlers = Vec::new();
        for (_sig, gesture, to, count, node, size, alternatives, requirement) in pending {
            let m = Mapper::for_size(size);
            // Typing goes into a field, not the box around it.
            let eligible = |w: &Widget| gesture != Gesture::Type || w.kind == WidgetKind::TextField;
            let Some(widget_id) = best_match(&widgets, &node, &m, &eligible).map(|w| w.id.clone()) else { continue };
            let target = abstraction.screens[to].id.clone();
            let name = format!("{}__{}{}", abs.id, widget_id, gesture.suffix());
            if handlers.iter().any(|h: &Handler| h.name == name) {
                continue;
            }
            for w in widgets.iter_mut() {
                w.walk_mut(&mut |w| {
                    if w.id == widget_id {
                        if gesture == Gesture::Type {
                            w.on_change = Some(name.clone());
                            return;
                        }
                        w.role = WidgetRole::Navigation;
                        // A field that navigates when tapped is a search bar placeholder, not a field.
                        if w.kind == WidgetKind::TextField {
                            w.kind = WidgetKind::Text;
                        }
                        if gesture == Gesture::LongPress {
                            w.on_long_press = Some(name.clone());
                        } else {
                            w.on_tap = Some(name.clone());
                        }
                    }
                });
            }
            let (long_press, typed) = (gesture == Gesture::LongPress, gesture == Gesture::Type);
            let way = navigation(abstraction, graph, index, to, count, typed);
            let ((requires, requires_number), stayed) = match requirement {
                Some(r) => (required_keys(&widgets, &abs.id, &r), r.stayed_empty),
                None => Default::default(),
            };
            handlers.push(Handler {
                name,
                widget: widget_id,
                target,
                home: way.home,
                count,
                long_press,
                pops: way.pops,
                dismisses: way.dismisses,
                alternatives,
                typed,
                requires,
                requires_number,
                stayed,
                ..Handler::default()
            });
        }
        open_in_place(&abs.id, opened, &mut widgets, &mut handlers);
        rows_agree(&widgets, &mut handlers, abstraction);
        closes::untried_controls(abstraction, graph, index, &mut widgets, &mut handlers);
        widgets::spread_over_rows(&mut widgets);
        // After the spread: what a row's label did is that row's, not its neighbours'.
        widgets::lift_passive_taps(&mut widgets);
        // Inputs write app state under a key unique in the app.
        for w in widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if matches!(w.kind, WidgetKind::TextField | WidgetKind::Switch | WidgetKind::Checkbox) {
                    let key = state_key(&abs.id, &w.id);
                    state_counter.insert(key.clone());
                    w.state_key = Some(key);
                }
            });
        }
        if let Some((shot, rows)) = &example_shot {
            crops::cut(&mut widgets, shot, *rows, &abs.id, &mut images);
            drawables::cut(&mut widgets, shot, *rows, &abs.id, &mut images);
        }
        let is_full = full.contains(&index);
        // Read before a screen shown rarely loses its texts.
        let heading = titled::heading(&widgets, abs.kind);
        if !is_full {
            widgets = interactive_only(widgets);
        }
        widgets::limit_depth(&mut widgets, MAX_WIDGET_DEPTH);
        let built = widgets::built_count(&widgets);
        if built > MAX_SCREEN_WIDGETS {
            // More than the phone builds on one screen: the controls first, then what fits.
            widgets = interactive_only(widgets);
            let cut = widgets::limit_count(&mut widgets, MAX_SCREEN_WIDGETS);
            warnings.push(format!(
                "screen `{}`: {built} widgets, over the {MAX_SCREEN_WIDGETS} a screen may build: only its controls are kept{}",
                abs.id,
                if cut > 0 { format!(", and {cut} of them left out") } else { String::new() }
            ));
        }
        // Only a screen nobody acts on (a splash, a loading page) moves on by itself.
        let moves_on = moves_on.filter(|_| !acted_on && handlers.is_empty());
        screens.push(ScreenModel {
            moves_on,
            id: abs.id.clone(),
            title: humanize(&abs.id),
            heading,
            role: abs.role,
            kind: abs.kind,
            visits: abs.visits,
            full: is_full,
            activity: abs.activity.clone(),
            widgets,
            handlers,
            background,
            surfaces,
            system_bars: example_shot.as_ref().and_then(|(shot, rows)| bar_colours(shot, *rows)),
            example: example_name,
            shown: None,
            radio_groups: Vec::new(),
            choice_by_opener: BTreeMap::new(),
        });
    }
    let seen_as = remember::Sightings::new(abstraction);
    shown::follow_rows(&mut screens, &seen_as, abstraction, traces);
    selection::follow_checked(&mut screens, abstraction, traces);
    lend_typed_handlers(&mut screens);
    select_then_open(&mut screens, &seen_as, abstraction, traces);
    carry_typed_text(&mut screens);
    tabs::link_tabs(&mut screens, abstraction);
    remember_state(&mut screens, &seen_as, traces);
    routes::learn(&mut screens, &seen_as, abstraction, graph, traces);
    beneath::learn(&mut screens, &seen_as, abstraction, traces);
    lend::lend_taps(&mut screens);
    titled::link(&mut screens, abstraction, graph);
    let fresh_start = remember::forgets_on_restart(&screens, &seen_as, traces);
    let entry = entry_screen(&seen_as, abstraction, traces).unwrap_or_else(|| screens.first().map(|s| s.id.clone()).unwrap_or_default());
    let entry_guard = abstraction.index_of(&entry).is_some_and(|i| {
        let (mut stayed, mut left) = (0, 0);
        for (to, edge) in graph.out_edges(i) {
            if edge.action == "key:back" {
                if to == i {
                    stayed += edge.count;
                } else {
                    left += edge.count;
                }
            }
        }
        stayed > left
    });
    if let Some(version) = gaps_tesseract {
        warnings.push(format!(
            "{gaps_read} screen(s) draw what their screenshot shows where the hierarchy names nothing, read with Tesseract {version}"
        ));
    }
    // Each tab notes itself on entering; a screen that moves on by itself already has an on_enter.
    let mut reopens_tab = remember::reopens_last_tab(&seen_as, traces, &entry);
    if entry_guard || reopens_tab.iter().any(|id| screens.iter().any(|s| s.id == *id && s.moves_on.is_some())) {
        reopens_tab.clear();
    }
    AppModel {
        package: options.package.clone(),
        label: options.label.clone(),
        entry,
        entry_guard,
        fresh_start,
        reopens_tab,
        screens,
        abstraction: abstraction.clone(),
        sources: traces.iter().map(|t| t.source.clone()).collect(),
        unreproduced_edges: unreproduced,
        warnings,
        images,
    }
}

/// Gives each field opened in place (at its index in `widgets`) the tap that opens it: a
/// handler on the tapped control that stays and shows the field (`opens`). A field whose
/// control already leads elsewhere, or is not found, is left out: nothing would show it.
fn open_in_place(screen: &str, opened: Vec<(usize, in_place::OpenedInPlace)>, widgets: &mut Vec<Widget>, handlers: &mut Vec<Handler>) {
    for (at, o) in opened.into_iter().rev() {
        let tap = best_match(widgets, &o.tap, &Mapper::for_size(o.size), &|w| w.kind != WidgetKind::TextField);
        let Some(control) = tap.filter(|w| w.on_tap.is_none()).map(|w| w.id.clone()) else {
            widgets.remove(at);
            continue;
        };
        let name = format!("{screen}__{control}");
        for w in widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if w.id == control {
                    w.on_tap = Some(name.clone());
                }
            });
        }
        let key = in_place::opened_key(screen, &widgets[at].id);
        widgets[at].shown_if = Some(key.clone());
        handlers.push(Handler {
            name,
            widget: control,
            target: screen.to_owned(),
            count: 1,
            stays: true,
            opens: vec![key],
            ..Handler::default()
        });
    }
}

/// Alike rows of a list that led to variants of one screen (the same activity, told apart by
/// their content: an event's edit form with one guest more) all lead to the variant the list's
/// rows led to most: which variant one row's single tap showed depended on the data, not on
/// the row. Rows leading to other screens (a settings list's pages) keep their own.
fn rows_agree(widgets: &[Widget], handlers: &mut [Handler], abstraction: &Abstraction) {
    let activity = |id: &str| abstraction.index_of(id).map(|i| abstraction.screens[i].activity.clone());
    let mut lists = Vec::new();
    for w in widgets {
        w.walk(&mut |w| {
            if w.list {
                lists.push(w);
            }
        });
    }
    for list in lists {
        // Row handlers by the rows' class and size.
        let mut groups: BTreeMap<(String, i64, i64), Vec<String>> = BTreeMap::new();
        for row in &list.children {
            if let Some(name) = &row.on_tap {
                groups.entry((row.class.clone(), row.rect[2] as i64, row.rect[3] as i64)).or_default().push(name.clone());
            }
        }
        for names in groups.into_values().filter(|n| n.len() >= 2) {
            let plain = |h: &Handler| names.contains(&h.name) && !h.home && !h.pops && !h.typed && h.selects_first.is_none();
            let mut votes: BTreeMap<String, usize> = BTreeMap::new();
            for h in handlers.iter().filter(|h| plain(h)) {
                *votes.entry(h.target.clone()).or_default() += h.count;
                for (target, count) in &h.alternatives {
                    *votes.entry(target.clone()).or_default() += count;
                }
            }
            let Some((top, _)) = votes.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) else { continue };
            let top_activity = activity(top);
            for h in handlers.iter_mut().filter(|h| plain(h) && h.target != *top) {
                if top_activity.is_some() && activity(&h.target) == top_activity {
                    h.alternatives.push((std::mem::replace(&mut h.target, top.clone()), h.count));
                }
            }
        }
    }
}

/// What the app remembers (see `remember`): radio groups choose one, forms the traces saw
/// empty again open empty (showing the hint they showed then), saved text shows where the
/// traces showed it, handlers set what their target showed changed after them, and a dialog
/// opened from several controls keeps a choice for each.
fn remember_state(screens: &mut [ScreenModel], seen_as: &remember::Sightings<'_>, traces: &[Trace]) {
    let mut opens_empty = remember::fields_opened_empty(screens, seen_as, traces);
    for screen in screens.iter_mut() {
        let selection_handler = Selection::handler(&screen.id);
        screen.radio_groups = remember::radio_groups(&screen.widgets, &selection_handler);
    }
    show_saved_text(screens, seen_as, traces);
    show_picked(screens, seen_as, traces);
    let effects = remember::handler_effects(screens, seen_as, traces);
    let mut by_opener = remember::choices_by_opener(screens, seen_as, traces);
    // The radio buttons that show the choice made from each opener are `open_choice`'s.
    let mut following: BTreeSet<(String, String)> = BTreeSet::new();
    for (dialog, by) in &by_opener {
        let group = screens.iter().find(|s| s.id == *dialog).and_then(|s| s.radio_groups.first());
        for (handler, (_, key)) in by.keys().flat_map(|h| group.into_iter().flatten().map(move |b| (h, b))) {
            following.insert((handler.clone(), key.clone()));
        }
    }
    for h in screens.iter_mut().flat_map(|s| s.handlers.iter_mut()) {
        // What a save already sets is the save's.
        let saved: Vec<String> = h.saves.iter().flat_map(|s| s.blanks.iter().cloned()).collect();
        let own = effects.get(&h.name).into_iter().flatten();
        h.sets = own.filter(|(key, _)| !saved.contains(key) && !following.contains(&(h.name.clone(), key.clone()))).cloned().collect();
    }
    for screen in screens.iter_mut() {
        screen.choice_by_opener = by_opener.remove(&screen.id).unwrap_or_default();
        for (j, group) in screen.radio_groups.iter().enumerate() {
            let handler = radio_handler(&screen.id, j);
            for w in screen.widgets.iter_mut() {
                w.walk_mut(&mut |w| {
                    if w.on_tap.is_none() && w.on_change.is_none() && group.iter().any(|(id, _)| *id == w.id) {
                        w.on_change = Some(handler.clone());
                    }
                });
            }
        }
        let mirror = typed_handler(&screen.id);
        for field in opens_empty.remove(&screen.id).unwrap_or_default() {
            for w in screen.widgets.iter_mut() {
                w.walk_mut(&mut |w| {
                    if w.state_key.as_ref() == Some(&field.key) {
                        w.text.clone_from(&field.hint);
                        w.opens_empty = true;
                        w.on_change.get_or_insert_with(|| mirror.clone());
                    }
                });
            }
        }
    }
}

/// Typed text a form saved shows where the traces showed it after saving (`remember::echoes`):
/// the form's submit control saves the field (and empties it where the traces saw it emptied),
/// and the screen showing it gets a text at the place it showed, which holds what was saved.
fn show_saved_text(screens: &mut [ScreenModel], seen_as: &remember::Sightings<'_>, traces: &[Trace]) {
    let typed = new_texts(traces);
    for echo in remember::echoes(screens, seen_as, traces) {
        let Some(form) = screens.iter_mut().find(|s| s.id == echo.form) else { continue };
        let (mut handler, mut local) = (None, false);
        let mirror = typed_handler(&form.id);
        for w in form.widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if w.state_key.as_ref() == Some(&echo.key) {
                    // Emptied after saving: the field shows the screen's own value, and app
                    // state keeps what was typed (for tasks to check).
                    if echo.clears && !w.opens_empty {
                        w.opens_empty = true;
                        w.on_change.get_or_insert_with(|| mirror.clone());
                    }
                    local |= w.opens_empty;
                }
            });
        }
        for w in form.widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if w.id == echo.submit && handler.is_none() {
                    // A control that led nowhere gets a handler that only saves.
                    handler = Some(w.on_tap.get_or_insert_with(|| format!("{}__{}", echo.form, echo.submit)).clone());
                }
            });
        }
        let Some(name) = handler else { continue };
        if !form.handlers.iter().any(|h| h.name == name) {
            let stays = Handler {
                name: name.clone(),
                widget: echo.submit.clone(),
                target: form.id.clone(),
                count: 1,
                stays: true,
                ..Handler::default()
            };
            form.handlers.push(stays);
        }
        let blanks = echo.blanks.iter().map(|(key, _)| key.clone()).collect();
        let save = Save { key: echo.key.clone(), clears: echo.clears && local, blanks };
        if let Some(h) = form.handlers.iter_mut().find(|h| h.name == name).filter(|h| !h.saves.contains(&save)) {
            h.saves.push(save);
        }
        let Some(shown_on) = screens.iter_mut().find(|s| s.id == echo.shown_on) else { continue };
        // A field the save leaves blank shows its hint: what the traces showed then.
        for (key, hint) in &echo.blanks {
            for w in shown_on.widgets.iter_mut() {
                w.walk_mut(&mut |w| {
                    if w.state_key.as_ref() == Some(key) && w.text != *hint {
                        // It first showed what it holds, and its hint only when left blank.
                        w.initial_text.get_or_insert_with(|| std::mem::replace(&mut w.text, hint.clone()));
                    }
                });
            }
        }
        let m = Mapper::for_size(echo.size);
        let mut text = from_target(&echo.node, &m);
        text.kind = WidgetKind::Text;
        text.id = format!("{}_saved", echo.key);
        text.echo = Some(remember::saved_key(&echo.key));
        // A row built from a visit after a save shows the typed text as if it were always
        // there: that row is where the saved text shows, and it goes when the app forgets.
        let mut became_echo = false;
        for w in shown_on.widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                let copy =
                    w.kind == WidgetKind::Text && w.echo.is_none() && w.state_key.is_none() && iou(w.source_box, text.source_box) >= 0.5;
                if !became_echo && copy && typed.iter().any(|t| norm(&w.text).contains(t.as_str())) {
                    w.echo = text.echo.clone();
                    became_echo = true;
                }
            });
        }
        if !became_echo && !shown_on.widgets.iter().any(|w| w.id == text.id) {
            shown_on.widgets.push(text);
        }
    }
}

/// Items picked with a dialog's checkboxes show where the traces showed them after its confirm.
fn show_picked(screens: &mut [ScreenModel], seen_as: &remember::Sightings<'_>, traces: &[Trace]) {
    for pick in remember::picks(screens, seen_as, traces) {
        let picked = remember::picked_key(&pick.shown_on, &pick.key);
        let Some(h) = screens.iter_mut().flat_map(|s| s.handlers.iter_mut()).find(|h| h.name == pick.handler) else { continue };
        h.picks.push((pick.key.clone(), picked.clone()));
        let Some(shown_on) = screens.iter_mut().find(|s| s.id == pick.shown_on) else { continue };
        let m = Mapper::for_size(pick.size);
        let mut item = from_target(&pick.node, &m);
        item.kind = WidgetKind::Text;
        item.id = format!("{}_picked", pick.key);
        item.shown_if = Some(picked);
        if !shown_on.widgets.iter().any(|w| w.id == item.id) {
            shown_on.widgets.push(item);
        }
    }
}

/// The texts the person typed that no screen showed before they first typed them (outside a
/// field): what they made (a new group's name), not what they looked for (an existing
/// contact's name).
fn new_texts(traces: &[Trace]) -> BTreeSet<String> {
    let mut made = BTreeSet::new();
    let mut known = BTreeSet::new();
    for trace in traces {
        // The texts shown so far, once per screen.
        let mut shown: Vec<String> = Vec::new();
        let mut read: BTreeSet<&str> = BTreeSet::new();
        for step in &trace.steps {
            if let Some(screen) = trace.screens.get(&step.screen).filter(|s| read.insert(s.id.as_str())) {
                if let Some(root) = &screen.root {
                    root.walk(&mut Vec::new(), &mut |_, n| {
                        if n.visible && !n.editable && !n.text.trim().is_empty() {
                            shown.push(norm(&n.text));
                        }
                    });
                }
            }
            if let TraceAction::TypeText { text } = &step.action {
                // Its first typing tells (typed again, it is shown already).
                if let Some(t) = crate::memory::worth_looking_for(text).filter(|t| !made.contains(t)) {
                    if shown.iter().any(|s| s.contains(t.as_str())) {
                        known.insert(t);
                    } else {
                        made.insert(t);
                    }
                }
            }
        }
    }
    &made - &known
}

/// The handler keeping what is typed into a screen's fields that open empty in app state.
fn typed_handler(screen: &str) -> String {
    format!("{screen}__typed")
}

/// The handler of a screen's `j`-th radio group, for its buttons that lead nowhere.
fn radio_handler(screen: &str, j: usize) -> String {
    format!("{screen}__choice_{}", j + 1)
}

/// The app-state key an input of a screen writes.
fn state_key(screen: &str, widget: &str) -> String {
    format!("{screen}_{widget}")
}

/// The state keys of the generated fields standing for each of a requirement's fields (the
/// fields with its id, or the one in its place), and those that must hold a number.
fn required_keys(widgets: &[Widget], screen: &str, requirement: &requires::Requirement) -> (Vec<Vec<String>>, Vec<String>) {
    let (mut groups, mut numbers) = (Vec::new(), Vec::new());
    for ((node, size), number) in &requirement.fields {
        let m = Mapper::for_size(*size);
        let Some(w) = best_match(widgets, node, &m, &|w| w.kind == WidgetKind::TextField) else { continue };
        let mut group = Vec::new();
        for f in widgets {
            f.walk(&mut |f| {
                let same = f.id == w.id || !w.resource_id.is_empty() && f.resource_id == w.resource_id;
                if f.kind == WidgetKind::TextField && same {
                    group.push(state_key(screen, &f.id));
                }
            });
        }
        if *number {
            for key in &group {
                if !numbers.contains(key) {
                    numbers.push(key.clone());
                }
            }
        }
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    (groups, numbers)
}

/// Handlers whose taps left the screen only when the tapped widget was already selected, and
/// stayed (selecting it) otherwise: a month grid's day opens the day only once selected.
fn select_then_open(screens: &mut [ScreenModel], seen_as: &remember::Sightings<'_>, abstraction: &Abstraction, traces: &[Trace]) {
    // handler name -> (left while selected, left while not, stayed while not selected)
    let mut seen: BTreeMap<(usize, String), (usize, usize, usize)> = BTreeMap::new();
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            let (crate::trace::TraceAction::Tap { .. }, Some(target), Some(next)) = (&step.action, &step.target, &step.next) else {
                continue;
            };
            let (Some(a), Some(b)) = (trace.screens.get(&step.screen), trace.screens.get(next)) else { continue };
            let (Some(ai), Some(bi)) = (seen_as.index(t, a), seen_as.index(t, b)) else { continue };
            let Some(from) = screens.iter().position(|s| s.id == abstraction.screens[ai].id) else { continue };
            let m = Mapper { width: f64::from(a.width.max(1)), height: f64::from(a.height.max(1)) };
            let Some(handler) = best_match(&screens[from].widgets, &target.node, &m, &|_| true).and_then(|w| w.on_tap.clone()) else {
                continue;
            };
            let counts = seen.entry((from, handler)).or_default();
            match (ai == bi, target.node.selected) {
                (false, true) => counts.0 += 1,
                (false, false) => counts.1 += 1,
                (true, false) => counts.2 += 1,
                (true, true) => {}
            }
        }
    }
    for ((from, name), (left_selected, left_unselected, stayed_unselected)) in seen {
        if left_selected == 0 || left_unselected > 0 || stayed_unselected == 0 {
            continue;
        }
        let mut first = None;
        for w in &screens[from].widgets {
            w.walk(&mut |w| {
                if first.is_none() && w.selected && w.on_tap.as_deref() == Some(name.as_str()) {
                    first = Some(w.id.clone());
                }
            });
        }
        if let Some(h) = screens[from].handlers.iter_mut().find(|h| h.name == name && !h.pops && !h.home) {
            h.selects_first = Some(first.unwrap_or_default());
        }
    }
}

/// A field the traces never typed into does what typing into the same field (same id, same
/// activity) on another screen did: a search box before and after a first query.
fn lend_typed_handlers(screens: &mut [ScreenModel]) {
    let mut typed: BTreeMap<(String, String), (String, String, usize)> = BTreeMap::new();
    for s in screens.iter() {
        for h in s.handlers.iter().filter(|h| h.typed) {
            let mut resource = String::new();
            for w in &s.widgets {
                w.walk(&mut |w| {
                    if w.id == h.widget {
                        resource = w.resource_id.clone();
                    }
                });
            }
            if !resource.is_empty() {
                typed.entry((s.activity.clone(), resource)).or_insert((s.id.clone(), h.target.clone(), h.count));
            }
        }
    }
    for s in screens.iter_mut() {
        let mut lent = Vec::new();
        for w in s.widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if w.kind != WidgetKind::TextField || w.on_change.is_some() {
                    return;
                }
                let Some((from, target, count)) = typed.get(&(s.activity.clone(), w.resource_id.clone())) else { return };
                if *from == s.id || *target == s.id {
                    return;
                }
                let name = format!("{}__{}{}", s.id, w.id, Gesture::Type.suffix());
                w.on_change = Some(name.clone());
                lent.push(Handler {
                    name,
                    widget: w.id.clone(),
                    target: target.clone(),
                    count: *count,
                    typed: true,
                    like: Some(from.clone()),
                    ..Handler::default()
                });
            });
        }
        s.handlers.extend(lent);
    }
}

/// A typed handler hands the text to the target's field of the same id (else its only field).
fn carry_typed_text(screens: &mut [ScreenModel]) {
    let fields = |s: &ScreenModel| {
        let mut out: Vec<(String, String)> = Vec::new();
        for w in &s.widgets {
            w.walk(&mut |w| {
                if let (WidgetKind::TextField, Some(key)) = (w.kind, &w.state_key) {
                    out.push((w.resource_id.clone(), key.clone()));
                }
            });
        }
        out
    };
    let all: BTreeMap<String, Vec<(String, String)>> = screens.iter().map(|s| (s.id.clone(), fields(s))).collect();
    for s in screens.iter_mut() {
        let own = fields(s);
        for h in s.handlers.iter_mut().filter(|h| h.typed) {
            let resource = own.iter().find(|(_, key)| key.ends_with(&format!("_{}", h.widget))).map(|(r, _)| r.clone()).unwrap_or_default();
            let theirs = all.get(&h.target).map(Vec::as_slice).unwrap_or_default();
            h.carry = theirs
                .iter()
                .find(|(r, _)| !r.is_empty() && *r == resource)
                .or(if theirs.len() == 1 { theirs.first() } else { None })
                .map(|(_, key)| key.clone());
        }
    }
}

/// The screen the app opens on: where the first launch of the app landed, else the first
/// app screen of the first trace.
fn entry_screen(seen_as: &remember::Sightings<'_>, abstraction: &Abstraction, traces: &[Trace]) -> Option<String> {
    let role_of = |t: usize, id: &str| seen_as.index(t, traces[t].screens.get(id)?).map(|i| &abstraction.screens[i]);
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            let from = role_of(t, &step.screen);
            let launched =
                matches!(step.action, crate::trace::TraceAction::OpenApp { .. }) || from.is_some_and(|s| s.role == Role::Launcher);
            if let Some(next) = step.next.as_ref().and_then(|n| role_of(t, n)) {
                if launched && next.role == Role::App {
                    return Some(next.id.clone());
                }
            }
        }
    }
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            if let Some(s) = role_of(t, &step.screen).filter(|s| s.role == Role::App) {
                return Some(s.id.clone());
            }
        }
    }
    None
}

/// The file that marks a folder as `reconstruct`'s output, so it may write over it again.
pub const OUTPUT_MARKER: &str = ".phoneworld-reconstruction";

const MARKER_TEXT: &str = "This folder was written by `phoneworld reconstruct`, which may write over it again.\n";

/// Whether a folder holds an earlier reconstruction: the marker, or (from before the marker
/// existed) both the manifest and the model.
fn is_reconstruction(dir: &Path) -> bool {
    dir.join(OUTPUT_MARKER).is_file() || (dir.join("app.ron").is_file() && dir.join("reconstruction.json").is_file())
}

/// Checks that `out` may be written: a new or empty folder, or an earlier reconstruction;
/// any other folder only with `overwrite` (its files may be replaced or removed). Never a
/// file. Called before anything is read, so a refusal comes at once.
pub fn check_output(out: &Path, overwrite: bool) -> Result<(), ReconError> {
    let meta = match std::fs::metadata(out) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(ReconError::io(out, e)),
    };
    if !meta.is_dir() {
        return Err(ReconError::format(out, "is a file, not a folder: cannot write the app there"));
    }
    let empty = std::fs::read_dir(out).map_err(|e| ReconError::io(out, e))?.next().is_none();
    if empty || overwrite || is_reconstruction(out) {
        return Ok(());
    }
    Err(ReconError::format(
        out,
        format!(
            "the folder is not empty and holds no earlier reconstruction (no {OUTPUT_MARKER}); \
             writing there could replace its files: choose a new or empty folder, or pass --force to write over it"
        ),
    ))
}

/// Writes the bundle: `app.ron`, `screens/*.ron`, `main.lua`, `content/observed.ron` and
/// `reconstruction.json` (the model replay reads), after the marker that says the folder is
/// a reconstruction. Returns the files written, relative (the marker is not one of them).
pub fn write_app(model: &AppModel, traces: &[Trace], out: &Path) -> Result<Vec<String>, ReconError> {
    // First, so that a run that fails half way still leaves a folder it may write over.
    std::fs::create_dir_all(out).map_err(|e| ReconError::io(out, e))?;
    std::fs::write(out.join(OUTPUT_MARKER), MARKER_TEXT).map_err(|e| ReconError::io(&out.join(OUTPUT_MARKER), e))?;
    // Stale screens of an earlier reconstruction into the same folder would be loaded too.
    let screens_dir = out.join("screens");
    if screens_dir.is_dir() {
        for entry in std::fs::read_dir(&screens_dir).map_err(|e| ReconError::io(&screens_dir, e))?.flatten() {
            if entry.path().extension().is_some_and(|e| e == "ron") {
                std::fs::remove_file(entry.path()).map_err(|e| ReconError::io(&entry.path(), e))?;
            }
        }
    }
    let mut files = Vec::new();
    for (rel, text) in bundle_files(model, traces) {
        let path = out.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ReconError::io(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| ReconError::io(&path, e))?;
        files.push(rel);
    }
    // Pictures of an earlier reconstruction into the same folder are replaced, not kept.
    let images_dir = out.join("images");
    if images_dir.is_dir() {
        std::fs::remove_dir_all(&images_dir).map_err(|e| ReconError::io(&images_dir, e))?;
    }
    for (rel, bytes) in &model.images {
        let path = out.join(rel);
        std::fs::create_dir_all(&images_dir).map_err(|e| ReconError::io(&images_dir, e))?;
        std::fs::write(&path, bytes).map_err(|e| ReconError::io(&path, e))?;
        files.push(rel.clone());
    }
    Ok(files)
}

/// The bundle's files (relative) and their texts, in the order they are written.
pub(crate) fn bundle_files(model: &AppModel, traces: &[Trace]) -> Vec<(String, String)> {
    let sources: Vec<String> = traces.iter().map(|t| format!("{} ({})", t.source, t.source_format)).collect();
    let mut files = vec![("app.ron".to_owned(), ron_writer::manifest(model, &sources))];
    for screen in &model.screens {
        files.push((format!("screens/{}.ron", screen.id), ron_writer::screen(screen, model.enters_by_lua(&screen.id))));
    }
    if model.entry_guard {
        files.push((format!("screens/{GUARD_SCREEN}.ron"), ron_writer::guard(model)));
    }
    files.push(("main.lua".to_owned(), lua(model, &sources)));
    files.push(("content/observed.ron".to_owned(), ron_writer::observed(model, traces)));
    files.push(("content/shown.ron".to_owned(), ron_writer::shown(model)));
    files.push(("reconstruction.json".to_owned(), serde_json::to_string_pretty(model).unwrap_or_default()));
    files
}

/// Picks what a screen opened from a row shows: the item the row names as shown at the tap
/// (its texts may follow the row that opened its own screen), else what that row opened.
/// `named_item` is `shown::named_item` (the items written are at least `MIN_LABEL` long).
const SHOWN_AFTER: &str = "
-- Where `item` first occurs in `text`, if that occurrence is whole words.
local function word_at(text, item)
  local at = string.find(text, item, 1, true)
  if at == nil then
    return nil
  end
  local after = string.sub(text, at + #item, at + #item)
  if (at > 1 and string.find(string.sub(text, at - 1, at - 1), \"%w\")) or string.find(after, \"%w\") then
    return nil
  end
  return at
end

-- The item (a key of `items`) a row names: the first of its labels that is one, else in the
-- first label holding one as whole words the one that starts first, then the longest.
local function named_item(labels, items)
  for _, text in ipairs(labels) do
    if items[text] then
      return text
    end
  end
  for _, text in ipairs(labels) do
    local best, best_at = nil, nil
    for item in pairs(items) do
      local at = word_at(text, item)
      if at and (best == nil or at < best_at or (at == best_at and (#item > #best or (#item == #best and item < best)))) then
        best, best_at = item, at
      end
    end
    if best then
      return best
    end
  end
  return nil
end

-- What `to` shows when the row `ev.id` of `from` opened it. The row's labels are read as
-- `from` shows them now (what its checked controls chose, `ev.params.shown`, else its
-- default, else as generated). Where the row names the item it named on every visit, or no
-- item, its own texts (content.shown.<to>.<from>__<row>); otherwise those seen after a row
-- naming that item.
local function shown_after(to, from, ev)
  local key = from .. \"__\" .. ev.id
  local shown = content.get(\"shown.\" .. to)
  local chosen = locals.get(\"shown\") or {}
  local here = ev.params.shown or content.get(\"shown.\" .. from .. \".default\") or {}
  local labels = {}
  for _, label in ipairs(shown.rows[key] or {}) do
    labels[#labels + 1] = string.match(chosen[label[1]] or here[label[1]] or label[2], \"^%s*(.-)%s*$\")
  end
  local item = named_item(labels, shown.items)
  if item == nil or shown.named[key] == item then
    return shown[key]
  end
  return shown.items[item]
end
";

/// Shows what a screen showed with its checkable controls as they are now: turning on one
/// of a group of choices turns the others off (and a choice cannot be turned off), then the
/// set seen on in the traces agreeing with the most controls wins, the one just changed
/// first (the first of equals). The layout reads it from `local.shown`.
const SELECT_SHOWN: &str = "
local function select_shown(screen, ev)
  local selection = content.get(\"shown.\" .. screen .. \".selection\")
  local others = selection.choices[ev.id]
  if others then
    for _, other in ipairs(others) do
      state.set(screen .. \"_\" .. other, false)
    end
    state.set(screen .. \"_\" .. ev.id, true)
  end
  local best, best_agree = nil, -1
  for _, seen in ipairs(selection.states) do
    local on = {}
    for _, id in ipairs(seen.on) do
      on[id] = true
    end
    -- The control just changed counts most: its choice shows, other things equal or not.
    local agree = 0
    for _, id in ipairs(selection.checkable) do
      if (state.get(screen .. \"_\" .. id) == true) == (on[id] == true) then
        agree = agree + (id == ev.id and #selection.checkable or 1)
      end
    end
    if agree > best_agree then
      best, best_agree = seen.shown, agree
    end
  end
  -- In place: the screen keeps where it is scrolled to and what else it holds.
  locals.set(\"shown\", best)
end
";

/// Turns on the chosen radio button of a group and the others off (`remember`).
const CHOOSE_ONE: &str = "
-- Radio buttons: the one chosen is on, the others of its group off ({id, state key} pairs).
-- A screen that shows the choice made from the control that opened it keeps it for that one.
local function choose_one(chosen, group, screen)
  for _, button in ipairs(group) do
    state.set(button[2], button[1] == chosen)
  end
  local opener = state.get(screen .. \"__opener\")
  if opener ~= nil and opener ~= \"\" then
    state.set(screen .. \"__choice__\" .. opener, chosen)
  end
end

-- `screen` opened by the handler `opener` shows the choice last made from there.
local function open_choice(screen, opener, group)
  state.set(screen .. \"__opener\", opener)
  local chosen = state.get(screen .. \"__choice__\" .. opener)
  for _, button in ipairs(group) do
    state.set(button[2], button[1] == chosen)
  end
end
";

/// Whether the screen's widget `id` is a field that opens empty (`remember`).
fn opens_empty(screen: &ScreenModel, id: &str) -> bool {
    let mut found = false;
    for w in &screen.widgets {
        w.walk(&mut |w| found |= w.id == id && w.opens_empty);
    }
    found
}

/// Puts the app's data back as it first was, once per start of the app (`remember`).
fn start_fresh_lua(model: &AppModel) -> String {
    let mut out = String::from(
        "\n-- The traces showed the app's data as it first was after every restart of the app: each\n\
         -- start begins from it. Runs when the app's first screen shows at the bottom of its back\n\
         -- stack, once per start (Back revealing it is the same start: its locals are still there).\n\
         local function start_fresh(ev)\n  if ev.depth ~= 1 or locals.get(\"started\") then\n    return\n  end\n  \
         locals.set(\"started\", true)\n",
    );
    for (key, value) in ron_writer::initial_state(model) {
        let _ = writeln!(out, "  state.set(\"{key}\", {value})");
    }
    out.push_str("end\n");
    out
}

/// The state key naming the tab the app was last on (see `remember::reopens_last_tab`).
fn last_tab_key(model: &AppModel) -> String {
    format!("{}__tab", model.entry)
}

/// Each tab of the first screen notes itself when entered; a start of the app goes on to the
/// tab noted last.
fn reopen_tab_lua(model: &AppModel, fresh: &str) -> String {
    let key = last_tab_key(model);
    let mut out = format!(
        "\n-- The traces showed the app open on the tab it was left on: each tab notes itself, and a\n\
         -- start of the app (`{entry}` at the bottom of the back stack, new) goes on to the tab noted last.\n\
         local function note_tab(ev, tab)\n  \
         if ev.depth == 1 and tab == \"{entry}\" and not locals.get(\"tab_noted\") then\n    \
         locals.set(\"tab_noted\", true)\n    local last = state.get(\"{key}\")\n    \
         if last ~= nil and last ~= \"\" and last ~= \"{entry}\" then\n      nav.replace(last)\n      return\n    end\n  end\n  \
         locals.set(\"tab_noted\", true)\n  state.set(\"{key}\", tab)\nend\n",
        entry = model.entry
    );
    for tab in &model.reopens_tab {
        let start = if *tab == model.entry { fresh } else { "" };
        let _ = write!(out, "\nfunction {tab}__enter(ev)\n{start}  note_tab(ev, \"{tab}\")\nend\n");
    }
    out
}

/// A radio group as a Lua table of `{id, state key}` pairs (both snake case, as all ids).
fn radio_group_lua(group: &RadioGroup) -> String {
    let pairs: Vec<String> = group.iter().map(|(id, key)| format!("{{\"{id}\", \"{key}\"}}")).collect();
    format!("{{{}}}", pairs.join(", "))
}

fn lua(model: &AppModel, sources: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "-- {}: reconstructed by `phoneworld reconstruct` from {} trace(s):", one_line(&model.label), sources.len());
    for s in sources {
        let _ = writeln!(out, "--   {}", one_line(s));
    }
    out.push_str("-- Each handler is a widget that led to another screen in the traces (how often is in the\n");
    out.push_str("-- comment). Text fields and switches write app state directly (state.<screen>_<widget>).\n");
    out.push_str("-- Edit freely: add state updates, conditions or dialogs where the real app has them.\n");
    let fresh = if model.fresh_start {
        out.push_str(&start_fresh_lua(model));
        "  start_fresh(ev)\n"
    } else {
        ""
    };
    if model.entry_guard {
        let _ = write!(
            out,
            "\n-- Back on `{0}` stayed there in the traces; this first screen, under it, shows it again\n\
             -- whenever Back reveals it.\nfunction {GUARD_SCREEN}__enter(ev)\n{fresh}  nav.push(\"{0}\")\nend\n",
            model.entry
        );
    } else if model.fresh_start && model.screen(&model.entry).is_some_and(|s| s.moves_on.is_none()) && model.reopens_tab.is_empty() {
        let _ = write!(out, "\n-- `{0}` is where the app starts.\nfunction {0}__enter(ev)\n{fresh}end\n", model.entry);
    }
    if !model.reopens_tab.is_empty() {
        out.push_str(&reopen_tab_lua(model, fresh));
    }
    if model.screens.iter().any(|s| s.handlers.iter().any(|h| !h.requires.is_empty())) {
        out.push_str(
            "\n-- Whether a field holds text (some controls lead on only once their form is filled).\n\
             local function filled(key)\n  local value = state.get(key)\n  return value ~= nil and tostring(value) ~= \"\"\nend\n",
        );
    }
    if model.screens.iter().any(|s| s.handlers.iter().any(|h| !h.requires_number.is_empty())) {
        out.push_str(
            "\n-- Whether a field holds a number (an amount; \"$\" and \",\" aside).\n\
             local function number_in(key)\n  local value = state.get(key)\n  \
             return value ~= nil and tonumber((string.gsub(tostring(value), \"[$,]\", \"\"))) ~= nil\nend\n",
        );
    }
    if model.screens.iter().any(ScreenModel::follows_items) {
        out.push_str(SHOWN_AFTER);
    }
    if model.screens.iter().any(|s| !s.radio_groups.is_empty()) {
        out.push_str(CHOOSE_ONE);
    }
    if model.screens.iter().any(ScreenModel::follows_checked) {
        out.push_str(SELECT_SHOWN);
        for screen in model.screens.iter().filter(|s| s.follows_checked()).map(|s| &s.id) {
            let _ = write!(
                out,
                "\n-- A checkable control of `{screen}` changed: it shows what the traces showed with the most alike set on.\n\
                 function {}(ev)\n  select_shown(\"{screen}\", ev)\nend\n",
                Selection::handler(screen)
            );
        }
    }
    for screen in &model.screens {
        if let Some((target, count)) = &screen.moves_on {
            let _ = write!(
                out,
                "\n-- {0} moved on to `{target}` by itself in the traces ({count} time(s)): a splash or a loading page.\n\
                 function {0}__enter(ev)\n{1}  locals.set(\"waiting\", true)\n  timer.after({MOVE_ON_MS}, \"{0}__moved_on\")\nend\n\n\
                 function {0}__moved_on(ev)\n  -- Only if the user is still here (locals are the top screen's).\n  \
                 if locals.get(\"waiting\") then\n    nav.replace(\"{target}\")\n  end\nend\n",
                screen.id,
                if screen.id == model.entry && !model.entry_guard { fresh } else { "" }
            );
        }
        let radio_handlers: Vec<(String, &RadioGroup)> =
            screen.radio_groups.iter().enumerate().map(|(j, g)| (radio_handler(&screen.id, j), g)).collect();
        let used = |name: &String| {
            let mut found = false;
            for w in &screen.widgets {
                w.walk(&mut |w| found |= w.on_change.as_ref() == Some(name));
            }
            found
        };
        let mirror = typed_handler(&screen.id);
        if screen.handlers.is_empty() && !radio_handlers.iter().any(|(name, _)| used(name)) && !used(&mirror) {
            continue;
        }
        let activity = if screen.activity.is_empty() { "activity unknown".to_owned() } else { one_line(&screen.activity) };
        let _ = writeln!(out, "\n-- {} ({activity})", screen.id);
        if used(&mirror) {
            let _ = write!(
                out,
                "\n-- fields that opened empty in the traces show the screen's own value (`local.*`); what is\n\
                 -- typed is kept in app state too, for tasks to check\nfunction {mirror}(ev)\n  state.set(\"{}_\" .. ev.id, ev.value)\nend\n",
                screen.id
            );
        }
        for (name, group) in radio_handlers.iter().filter(|(name, _)| used(name)) {
            let _ = write!(
                out,
                "\n-- radio buttons: choosing one turns the others off\nfunction {name}(ev)\n  choose_one(ev.id, {}, \"{}\")\nend\n",
                radio_group_lua(group),
                screen.id
            );
        }
        for h in &screen.handlers {
            let gesture = if h.typed {
                "typing into"
            } else if h.long_press {
                "long press on"
            } else {
                "tap on"
            };
            match &h.like {
                None if h.titled => {
                    let _ = write!(out, "\n-- {gesture} `{}`, not seen: it is labelled as `{}` is titled", h.widget, h.target);
                }
                None if h.closes_dialog => {
                    let _ =
                        write!(out, "\n-- {gesture} `{}`, not seen: it closes the dialog, as a dialog's buttons and choices do", h.widget);
                }
                Some(other) => {
                    let _ = write!(out, "\n-- {gesture} `{}`, as the same control on `{other}` did {} time(s)", h.widget, h.count);
                }
                None => {
                    let _ = write!(out, "\n-- {gesture} `{}`, seen {} time(s)", h.widget, h.count);
                }
            }
            if !h.alternatives.is_empty() {
                let alts: Vec<String> = h.alternatives.iter().map(|(s, c)| format!("{s} x{c}")).collect();
                let _ = write!(out, "; it also led to {}", alts.join(", "));
            }
            if !h.requires.is_empty() {
                let _ = write!(
                    out,
                    "; it stayed {} time(s) while one of the fields it checks was empty (or held no number where it needs one)",
                    h.stayed
                );
            }
            out.push('\n');
            let _ = writeln!(out, "function {}(ev)", h.name);
            let mut body = String::new();
            if let Some(group) = screen.radio_groups.iter().find(|g| g.iter().any(|(id, _)| *id == h.widget)) {
                let _ = writeln!(body, "  choose_one(ev.id, {}, \"{}\")", radio_group_lua(group), screen.id);
            }
            if let Some((target, group)) = model
                .screen(&h.target)
                .filter(|t| t.choice_by_opener.contains_key(&h.name))
                .and_then(|t| Some((t, t.radio_groups.first()?)))
            {
                let _ = writeln!(body, "  open_choice(\"{}\", \"{}\", {})", target.id, h.name, radio_group_lua(group));
            }
            if h.typed && opens_empty(screen, &h.widget) {
                let _ = writeln!(body, "  state.set(\"{}_\" .. ev.id, ev.value)", screen.id);
            }
            for save in &h.saves {
                let saved = remember::saved_key(&save.key);
                let _ = writeln!(body, "  -- what was typed shows where the traces showed it after this");
                let _ = writeln!(body, "  state.set(\"{saved}\", state.get(\"{}\"))", save.key);
                if save.clears {
                    let _ = writeln!(body, "  locals.set(\"{}\", \"\")", save.key);
                }
                for blank in &save.blanks {
                    let _ = writeln!(body, "  state.set(\"{blank}\", \"\") -- blank where it shows next, as the traces showed it");
                }
            }
            for (key, picked) in &h.picks {
                let _ = writeln!(
                    body,
                    "  if state.get(\"{key}\") then\n    state.set(\"{picked}\", true) -- picked: it shows on `{}`\n  end",
                    h.target
                );
            }
            for key in &h.opens {
                let _ = writeln!(body, "  state.set(\"{key}\", true) -- shows its field in place");
            }
            if !h.sets.is_empty() {
                let _ = writeln!(body, "  -- `{}` showed these after this, every time or most times", h.target);
                for (key, value) in &h.sets {
                    let _ = writeln!(body, "  state.set(\"{key}\", {value})");
                }
            }
            if h.stays {
                // Only saves: the traces stayed on the screen.
            } else if let Some(first) = &h.selects_first {
                // The first tap selects; the selected one leads on.
                let _ = writeln!(body, "  if (locals.get(\"selected\") or \"{first}\") == ev.id then");
                let _ = writeln!(body, "    {}", go(model, screen, h, &h.target, Way::default()));
                body.push_str("  else\n    locals.set(\"selected\", ev.id)\n  end\n");
            } else if h.typed {
                // Typing here showed another screen (results): it takes this one's place.
                if let Some(key) = &h.carry {
                    let _ = writeln!(body, "  state.set(\"{key}\", ev.value)");
                }
                let _ = writeln!(body, "  nav.replace(\"{}\")", h.target);
            } else if let Some(route) = &h.when_checked {
                let _ = writeln!(body, "  -- where it leads follows a box checked on this screen\n  if state.get(\"{}\") then", route.key);
                let _ = writeln!(body, "    {} -- {} time(s)", go(model, screen, h, &route.target, route.way), route.count);
                let _ = writeln!(body, "  else\n    {}\n  end", go(model, screen, h, &h.target, h.way()));
            } else if h.routes.is_empty() {
                let _ = writeln!(body, "  {}", go(model, screen, h, &h.target, h.way()));
            } else {
                body.push_str("  -- where it leads follows the control that opened this screen\n  local opener = ev.params.opener\n");
                for (k, (openers, route)) in route_groups(h).iter().enumerate() {
                    let test: Vec<String> = openers.iter().map(|o| format!("opener == \"{o}\"")).collect();
                    let _ = writeln!(body, "  {}if {} then", if k == 0 { "" } else { "else" }, test.join(" or "));
                    let _ = writeln!(body, "    {} -- {} time(s)", go(model, screen, h, &route.target, route.way), route.count);
                }
                let _ = writeln!(body, "  else\n    {}\n  end", go(model, screen, h, &h.target, h.way()));
            }
            if h.requires.is_empty() {
                out.push_str(&body);
            } else {
                // It stayed (showing what was missing) unless these fields held text.
                let check = |k: &String| format!("{}(\"{k}\")", if h.requires_number.contains(k) { "number_in" } else { "filled" });
                let filled: Vec<String> = h
                    .requires
                    .iter()
                    .map(|group| match group.as_slice() {
                        [one] => check(one),
                        _ => format!("({})", group.iter().map(check).collect::<Vec<_>>().join(" or ")),
                    })
                    .collect();
                let _ = writeln!(out, "  if {} then", filled.join(" and "));
                for line in body.lines() {
                    let _ = writeln!(out, "  {line}");
                }
                out.push_str("  end\n");
            }
            out.push_str("end\n");
        }
    }
    out
}

/// A handler's routes by where they lead: the openers of each target and one route to it.
fn route_groups(h: &Handler) -> Vec<(Vec<&str>, &Route)> {
    let mut groups: Vec<(Vec<&str>, &Route)> = Vec::new();
    for route in &h.routes {
        match groups.iter_mut().find(|(_, r)| r.target == route.target && r.way == route.way) {
            Some((openers, _)) => openers.push(&route.opener),
            None => groups.push((vec![&route.opener], route)),
        }
    }
    groups
}

/// The Lua statement taking handler `h` of `screen` to `target`, the way `way` says. The next
/// screen gets what it shows from the tapped row, and the handler's name when one of its own
/// controls leads by the way it was opened.
fn go(model: &AppModel, screen: &ScreenModel, h: &Handler, target: &str, way: Way) -> String {
    if way.home {
        return "nav.home()".into();
    }
    if way.pops {
        return format!("nav.pop() -- back to `{target}`");
    }
    // Leaving a dialog for another screen closes the dialog.
    let verb = if way.dismisses { "replace" } else { "push" };
    let next = model.screen(target);
    let mut params = Vec::new();
    if next.is_some_and(ScreenModel::follows_items) {
        // The next screen shows the item the tapped row names now (content/shown.ron).
        params.push(format!("shown = shown_after(\"{target}\", \"{}\", ev)", screen.id));
    } else if next.is_some_and(|t| t.shown.as_ref().is_some_and(|s| !s.variants.is_empty())) {
        // The next screen shows what the tapped row led to (content/shown.ron).
        params.push(format!("shown = content.get(\"shown.{target}.{}__\" .. ev.id)", screen.id));
    }
    if model.routes_by(target, &h.name) {
        params.push(format!("opener = \"{}\"", h.name));
    }
    // Screens Back went through from the target in the traces, never seen opened, go first.
    let beneath: String = match (verb, target == h.target) {
        ("push", true) => h.beneath.iter().map(|s| format!("nav.push(\"{s}\"); ")).collect(),
        _ => String::new(),
    };
    if params.is_empty() {
        format!("{beneath}nav.{verb}(\"{target}\")")
    } else {
        format!("{beneath}nav.{verb}(\"{target}\", {{ {} }})", params.join(", "))
    }
}

impl AppModel {
    /// Whether a control of `screen` leads by the way it was opened, when `opener` opened it
    /// (`routes`): then `opener` passes its name along.
    pub(crate) fn routes_by(&self, screen: &str, opener: &str) -> bool {
        self.screen(screen).is_some_and(|s| s.handlers.iter().flat_map(|h| &h.routes).any(|r| r.opener == opener))
    }

    /// Reads `reconstruction.json` from a generated app folder.
    pub fn load(app_dir: &Path) -> Result<AppModel, ReconError> {
        let path = app_dir.join("reconstruction.json");
        let text = crate::error::read_text(&path, MAX_MODEL_FILE_BYTES)?;
        serde_json::from_str(&text).map_err(|e| ReconError::line(&path, e.line(), format!("column {}: {e}", e.column())))
    }

    pub fn screen(&self, id: &str) -> Option<&ScreenModel> {
        self.screens.iter().find(|s| s.id == id)
    }

    /// The state keys a tap on the widget `widget` of `screen` may change besides its own
    /// value (`remember`): the others of its radio group (and, in a dialog following its
    /// opener, the choice kept for the opener), or, where it opens such a dialog, which
    /// control opened it and the buttons showing that control's choice.
    /// Whether the screen's `on_enter` is a function of `main.lua` (the app's start, a tab).
    fn enters_by_lua(&self, screen: &str) -> bool {
        (self.fresh_start && !self.entry_guard && screen == self.entry) || self.reopens_tab.iter().any(|t| t == screen)
    }

    pub(crate) fn keys_a_tap_may_change(&self, screen: &str, widget: &str) -> Vec<String> {
        // Any tap may show another tab.
        let mut keys: Vec<String> = if self.reopens_tab.is_empty() { Vec::new() } else { vec![last_tab_key(self)] };
        let Some(s) = self.screen(screen) else { return keys };
        if let Some(group) = s.radio_groups.iter().find(|g| g.iter().any(|(id, _)| id == widget)) {
            keys.extend(group.iter().map(|(_, key)| key.clone()));
            keys.extend(s.choice_by_opener.keys().map(|opener| remember::choice_key(&s.id, opener)));
        }
        // A tap aimed at a widget lands on whatever is drawn at its centre: its own handler or
        // one of its children's (a row's title that has a handler of its own).
        let mut handlers: Vec<&str> = Vec::new();
        for w in &s.widgets {
            w.walk(&mut |w| {
                if w.id == widget {
                    w.walk(&mut |inner| handlers.extend(inner.on_tap.as_deref()));
                }
            });
        }
        for opens in handlers.iter().filter_map(|name| s.handlers.iter().find(|h| h.name == *name)) {
            keys.extend(opens.sets.iter().chain(&opens.picks).map(|(key, _)| key.clone()));
            keys.extend(opens.opens.iter().cloned());
            keys.extend(opens.picks.iter().map(|(_, picked)| picked.clone()));
            for save in &opens.saves {
                keys.push(remember::saved_key(&save.key));
                keys.extend(save.blanks.iter().cloned());
            }
            if let Some(dialog) = self.screen(&opens.target).filter(|d| d.choice_by_opener.contains_key(&opens.name)) {
                keys.push(remember::opener_key(&dialog.id));
                keys.extend(dialog.radio_groups.first().into_iter().flatten().map(|(_, key)| key.clone()));
            }
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abstraction::AbstractScreen;
    use crate::trace::UiNode;

    fn screen(id: &str, activity: &str) -> AbstractScreen {
        AbstractScreen {
            id: id.to_owned(),
            role: Role::App,
            kind: ScreenKind::Full,
            package: "app".to_owned(),
            activity: activity.to_owned(),
            signature: Vec::new(),
            list_free_signature: Vec::new(),
            members: Vec::new(),
            visits: 1,
            title: String::new(),
            tab: String::new(),
            scrolled: Vec::new(),
        }
    }

    #[test]
    fn a_visit_with_an_empty_list_or_the_keyboard_up_is_not_the_usual_look() {
        let node = |class: &str, package: &str, children: Vec<UiNode>| UiNode {
            class: class.to_owned(),
            package: package.to_owned(),
            visible: true,
            children,
            ..UiNode::default()
        };
        let grid = |rows: usize| {
            node("android.widget.GridView", "shop", (0..rows).map(|_| node("android.widget.FrameLayout", "shop", vec![])).collect())
        };
        let results = node("android.widget.LinearLayout", "shop", vec![grid(4)]);
        assert!(!shows_an_empty_list(&results));
        assert!(shows_an_empty_list(&node("android.widget.LinearLayout", "shop", vec![grid(0)])));
        let typing =
            node("android.widget.FrameLayout", "shop", vec![results.clone(), node("android.view.View", "com.phoneworld.keyboard", vec![])]);
        assert!(crate::abstraction::shows_keyboard(&typing));
        assert!(!crate::abstraction::shows_keyboard(&results));
    }

    fn widget(y: f64, on_tap: Option<&str>) -> Widget {
        let mut w = widgets::from_target(&UiNode::default(), &Mapper { width: 1.0, height: 1.0 });
        (w.class, w.rect, w.on_tap) = ("android.widget.TextView".to_owned(), [0.0, y, 400.0, 56.0], on_tap.map(str::to_owned));
        w
    }

    #[test]
    fn rows_of_a_list_lead_to_the_variant_most_rows_led_to_but_keep_other_screens() {
        let mut abstraction = Abstraction::new("app", 0.5);
        abstraction.screens =
            vec![screen("guests", "app/edit"), screen("edit", "app/edit"), screen("edit_8", "app/edit"), screen("page", "app/page")];
        let mut list = widget(0.0, None);
        list.list = true;
        list.children = ["a", "b", "c", "d"].iter().enumerate().map(|(i, n)| widget(56.0 * i as f64, Some(n))).collect();
        let handler = |name: &str, target: &str, count: usize| Handler {
            name: name.to_owned(),
            widget: name.to_owned(),
            target: target.to_owned(),
            count,
            ..Handler::default()
        };
        let mut handlers = vec![handler("a", "edit", 2), handler("b", "edit", 3), handler("c", "edit_8", 1), handler("d", "page", 1)];
        rows_agree(&[list], &mut handlers, &abstraction);
        let targets: Vec<&str> = handlers.iter().map(|h| h.target.as_str()).collect();
        // The edit form with one guest more is the same screen; the page is another.
        assert_eq!(targets, ["edit", "edit", "edit", "page"]);
        assert_eq!(handlers[2].alternatives, [("edit_8".to_owned(), 1)]);
    }

    #[test]
    fn a_tap_on_a_row_may_change_what_the_title_drawn_at_its_centre_saves() {
        // A row without a handler of its own around a title that saves a search when tapped:
        // a tap aimed at the row lands on the title.
        let mut row = widget(0.0, None);
        row.id = "row".to_owned();
        let mut title = widget(0.0, Some("list__title"));
        title.id = "title".to_owned();
        row.children = vec![title];
        let save = Save { key: "list_search".to_owned(), clears: false, blanks: Vec::new() };
        let saves = Handler {
            name: "list__title".to_owned(),
            widget: "title".to_owned(),
            target: "track".to_owned(),
            saves: vec![save],
            ..Handler::default()
        };
        let list = ScreenModel {
            id: "list".to_owned(),
            title: String::new(),
            heading: None,
            role: Role::App,
            kind: ScreenKind::Full,
            visits: 1,
            full: true,
            activity: "app/main".to_owned(),
            widgets: vec![row],
            handlers: vec![saves],
            moves_on: None,
            background: None,
            surfaces: Vec::new(),
            system_bars: None,
            example: String::new(),
            shown: None,
            radio_groups: Vec::new(),
            choice_by_opener: BTreeMap::new(),
        };
        let model = AppModel {
            package: "app".to_owned(),
            label: "App".to_owned(),
            entry: "list".to_owned(),
            entry_guard: false,
            fresh_start: false,
            reopens_tab: Vec::new(),
            screens: vec![list],
            abstraction: Abstraction::new("app", 0.5),
            sources: Vec::new(),
            unreproduced_edges: Vec::new(),
            warnings: Vec::new(),
            images: BTreeMap::new(),
        };
        assert_eq!(model.keys_a_tap_may_change("list", "row"), ["list_search__saved"]);
        assert_eq!(model.keys_a_tap_may_change("list", "title"), ["list_search__saved"]);
    }
}
