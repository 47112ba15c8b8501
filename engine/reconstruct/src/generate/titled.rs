//! A control the traces never used, labelled as another screen of the app is titled, opens
//! that screen: a settings row "Customize colors" opens the screen whose toolbar says
//! "Customize colors", a menu's "Equalizer" the equalizer. Apps name their screens after the
//! controls that open them; where no trace showed what a control does, its label is the best
//! evidence there is. A control the traces used keeps what they showed.

use std::collections::BTreeMap;

use super::model::{Handler, ScreenModel};
use super::ways::navigation;
use super::widgets::{Widget, WidgetKind};
use crate::abstraction::{Abstraction, Role};
use crate::graph::UsageGraph;
use crate::trace::ScreenKind;

/// A full screen's title is in its top fifth (a toolbar); a dialog's is its first text.
const TITLE_BAND: f64 = 0.2;
/// Labels shorter than this ("OK", "A") name no screen.
const MIN_LABEL_CHARS: usize = 3;
/// The most words a title may have beyond those of a shorter label that says it.
const MAX_EXTRA_WORDS: usize = 2;

/// Lower case, one space between words, no ellipsis at the end: "Customize colors…" is
/// "customize colors".
fn normalized(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or_default();
    let words: Vec<&str> = first_line.split_whitespace().collect();
    words.join(" ").trim_end_matches(['…', '.']).trim().to_lowercase()
}

/// The title a screen's widgets show: the topmost text that takes no taps and is no part of
/// a control (a toolbar's, a dialog's heading; not a menu's first item).
pub(super) fn heading(widgets: &[Widget], kind: ScreenKind) -> Option<String> {
    fn passive_texts<'w>(w: &'w Widget, in_control: bool, out: &mut Vec<&'w Widget>) {
        let control = in_control || w.clickable || w.on_tap.is_some() || w.on_long_press.is_some();
        if !control && w.kind == WidgetKind::Text && !w.text.trim().is_empty() {
            out.push(w);
        }
        for c in &w.children {
            passive_texts(c, control, out);
        }
    }
    let mut texts = Vec::new();
    for w in widgets {
        passive_texts(w, false, &mut texts);
    }
    let in_band = |w: &&Widget| kind == ScreenKind::Dialog || w.source_box[1] < TITLE_BAND;
    let top = texts.into_iter().filter(in_band).min_by(|a, b| {
        let (a, b) = (a.source_box, b.source_box);
        a[1].total_cmp(&b[1]).then(a[0].total_cmp(&b[0]))
    });
    top.map(|w| normalized(&w.text)).filter(|t| t.chars().count() >= MIN_LABEL_CHARS)
}

/// What a control says: its text, else its description, else, for a row (at most a quarter
/// of the screen, no control inside it), its first text inside (a settings row's label).
fn label(w: &Widget) -> Option<String> {
    let own = if w.text.trim().is_empty() { &w.content_desc } else { &w.text };
    let mut label = normalized(own);
    if label.is_empty() {
        let mut controls_inside = false;
        for c in &w.children {
            c.walk(&mut |d| controls_inside |= d.clickable);
        }
        if controls_inside || !w.row_sized() {
            return None;
        }
        let mut first = None;
        w.walk(&mut |c| {
            if first.is_none() && c.kind == WidgetKind::Text && !c.text.trim().is_empty() {
                first = Some(normalized(&c.text));
            }
        });
        label = first?;
    }
    (label.chars().count() >= MIN_LABEL_CHARS).then_some(label)
}

/// Whether a label of two words or more says a title in fewer words: every word of it is in the
/// title, which has at most two more ("Create group" says "Create a new group").
fn says(label: &str, title: &str) -> bool {
    let words: Vec<&str> = label.split(' ').collect();
    let title_words: Vec<&str> = title.split(' ').collect();
    words.len() >= 2 && title_words.len() <= words.len() + MAX_EXTRA_WORDS && words.iter().all(|w| title_words.contains(w))
}

/// Gives every unused control of the app's screens labelled as exactly one other screen is
/// titled a handler opening it.
pub(super) fn link(screens: &mut [ScreenModel], abstraction: &Abstraction, graph: &UsageGraph) {
    let mut titled: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in screens.iter().enumerate() {
        if s.role == Role::App {
            if let Some(t) = &s.heading {
                titled.entry(t.clone()).or_default().push(i);
            }
        }
    }
    for from in 0..screens.len() {
        // A screen that moves on by itself (a splash) takes no taps.
        let acts_on_its_own = screens[from].moves_on.is_some();
        let Some(from_index) = abstraction.index_of(&screens[from].id).filter(|_| screens[from].role == Role::App && !acts_on_its_own)
        else {
            continue;
        };
        let own_title = screens[from].heading.clone();
        let mut links: Vec<(String, usize)> = Vec::new();
        for w in &screens[from].widgets {
            w.walk(&mut |w| {
                if !w.unused_control() {
                    return;
                }
                let Some(label) = label(w).filter(|l| Some(l) != own_title.as_ref()) else { return };
                let named: Vec<usize> = match titled.get(&label) {
                    Some(exact) => exact.clone(),
                    None => titled.iter().filter(|(t, _)| says(&label, t)).flat_map(|(_, s)| s.iter().copied()).collect(),
                };
                if let [to] = named[..] {
                    if to != from && !links.iter().any(|(id, _)| *id == w.id) {
                        links.push((w.id.clone(), to));
                    }
                }
            });
        }
        for (widget, to) in links {
            let Some(to_index) = abstraction.index_of(&screens[to].id) else { continue };
            let name = format!("{}__{widget}", screens[from].id);
            if screens[from].handlers.iter().any(|h| h.name == name) {
                continue;
            }
            let way = navigation(abstraction, graph, from_index, to_index, 0, false);
            let target = screens[to].id.clone();
            let screen = &mut screens[from];
            for w in screen.widgets.iter_mut() {
                w.walk_mut(&mut |w| {
                    if w.id == widget {
                        w.navigates_on_tap(&name);
                    }
                });
            }
            screen.handlers.push(Handler {
                name,
                widget,
                target,
                pops: way.pops,
                dismisses: way.dismisses,
                titled: true,
                ..Handler::default()
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_titles_compare_as_words() {
        assert_eq!(normalized("  Customize   colors…\nsecond line"), "customize colors");
        assert_eq!(normalized("Settings..."), "settings");
    }

    #[test]
    fn a_shorter_label_says_a_title_with_all_its_words() {
        assert!(says("create group", "create a new group"));
        assert!(!says("group", "create a new group"), "one word says too little");
        assert!(!says("create group", "create a group of your closest friends"), "too many words left unsaid");
        assert!(!says("delete group", "create a new group"));
    }
}
