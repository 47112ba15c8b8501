//! Readable RON for the generated bundle: one widget per line where it fits, children
//! indented, every box in dp as `margin: (left, top, 0, 0), width:, height:`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::model::{AppModel, ScreenModel, Shown, Surface, GUARD_SCREEN};
use super::surfaces::own_colour;
use super::widgets::{Side, Widget, WidgetKind};
use crate::abstraction::Role;
use crate::trace::{ScreenKind, Trace};
use crate::visual::{hex, luma};
use phoneworld_data::{MAX_DP, MAX_EXPR_BYTES};

/// Most bytes of `content/observed.ron`: half of what the app loader reads of a file.
const MAX_OBSERVED_BYTES: usize = (phoneworld_data::MAX_BUNDLE_FILE_BYTES / 2) as usize;

/// A RON string literal, cut to `MAX_EXPR_BYTES`: the app loader reads no longer template
/// (a layout's `text:`), and a content string that long says all a screen can show of it.
fn lit(text: &str) -> String {
    let mut end = text.len().min(MAX_EXPR_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 2);
    out.push('"');
    for c in text[..end].chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A template literal: braces are doubled so observed text never reads as a binding (and
/// the text is cut so that, doubled, it still fits `MAX_EXPR_BYTES`).
fn tlit(text: &str) -> String {
    let mut doubled = String::with_capacity(text.len());
    for c in text.chars() {
        let brace = matches!(c, '{' | '}');
        if doubled.len() + c.len_utf8() * if brace { 2 } else { 1 } > MAX_EXPR_BYTES {
            break;
        }
        doubled.push(c);
        if brace {
            doubled.push(c);
        }
    }
    lit(&doubled)
}

/// A length in dp, within what a layout may hold (`MAX_DP`).
fn num(v: f64) -> String {
    format!("{}", v.clamp(-f64::from(MAX_DP), f64::from(MAX_DP)).round() as i64)
}

/// Text color that reads on a background.
fn ink(bg: Option<[u8; 3]>) -> &'static str {
    match bg {
        Some(c) if luma(c) < 128.0 => "#FFFFFF",
        _ => "#1F1F1F",
    }
}

/// The colour a widget's text is drawn in: its ink as the screenshot shows it where that
/// reads on the background it is drawn on, or on the ground the screenshot shows under it
/// when that is not the background (a picture's cut, a surface: black text on a white bubble
/// over a dark photo); else black or white, whichever reads.
fn text_colour(w: &Widget, bg: Option<[u8; 3]>) -> String {
    let reads = |a: [u8; 3], b: [u8; 3]| (luma(a) - luma(b)).abs() >= MIN_INK_CONTRAST;
    match w.ink {
        Some(i) if bg.is_none_or(|b| reads(i.colour, b)) => hex(i.colour),
        Some(i) if i.ground.is_some_and(|g| reads(i.colour, g) && bg.is_some_and(|b| reads(g, b))) => hex(i.colour),
        _ => ink(bg).to_owned(),
    }
}

/// The least luma difference between a text's sampled ink and its background for the ink to
/// be used (below it the text would not read).
const MIN_INK_CONTRAST: f64 = 40.0;

fn text_size(height_dp: f64) -> f64 {
    // One line of text is about 1.5x its size tall; long boxes hold several lines.
    let lines = (height_dp / 28.0).round().max(1.0);
    (height_dp / lines / 1.6).clamp(10.0, 24.0).round()
}

/// The size a text is drawn at and the lines it may take: `natural` (as tall as its box says,
/// `text_size`), then smaller until it fits the box's width in as many lines as the box is
/// tall for with no word broken, as the real app drew it. A text the app cut short (a review
/// under "more") is not shrunk past three quarters: it is cut with an ellipsis where its box ends.
fn fitted_text(text: &str, natural: f64, width_dp: f64, height_dp: f64, ink_lines: Option<usize>) -> (f64, Option<usize>) {
    use phoneworld_text::{layout_text, line_height, TextStyle, Weight};
    let px = super::widgets::PX_PER_DP;
    let (width_px, height_px) = ((width_dp * px) as f32, height_dp * px);
    let fits = |size: f64| {
        let style = TextStyle { size_px: (size * px) as f32, weight: Weight::Regular };
        let widest_word = text.split_whitespace().map(|w| layout_text(w, style, None, None).width).fold(0.0, f32::max);
        // No more lines than the screenshot shows, where it shows them.
        let room = match ink_lines {
            Some(lines) => (height_px * 1.1).min(lines as f64 * f64::from(line_height((size * px) as f32)) * 1.05),
            None => height_px * 1.1,
        };
        // A little room over the measured width: the box's width is rounded to pixels when laid out.
        widest_word <= width_px * 0.98 && f64::from(layout_text(text, style, Some(width_px), None).height) <= room
    };
    let smallest = (natural * 0.75).floor().max(8.0);
    let mut size = natural;
    while size > smallest && !fits(size) {
        size -= 1.0;
    }
    if fits(size) {
        return (size, None);
    }
    let lines = (height_px / f64::from(line_height((size * px) as f32))).floor().max(1.0) as usize;
    (size, Some(ink_lines.map_or(lines, |shown| shown.min(lines))))
}

/// A button's label as its screenshot draws it: in capitals where the screenshot shows them
/// (the platform's default for buttons; `all_caps` is then added to `props`, and the element
/// keeps the label as written).
fn drawn_label(w: &Widget, label: &str, props: &mut Vec<String>) -> String {
    if w.ink.is_some_and(|i| i.shows_capitals(label)) {
        props.push("all_caps: true".to_owned());
        return label.to_uppercase();
    }
    label.to_owned()
}

/// The sizes a button's label is drawn at (sp); a larger one measured an icon beside it.
const BUTTON_LABEL_SIZES: std::ops::RangeInclusive<f64> = 10.0..=24.0;

/// The size `drawn` was drawn at in its widget's box, as the screenshot shows it (`room`: the
/// part of the box the text has). A size at which the text is wider than its strokes measured
/// something else too (an icon above the label) and is not used.
fn drawn_size(w: &Widget, drawn: &str, room: [f64; 2]) -> Option<f64> {
    let ink = w.ink?;
    let span = ink.span(w.rect[2])?;
    // One line of strokes is as wide as the text unwrapped; several, as the widest line.
    let wrap = if ink.lines == 1 { f64::INFINITY } else { room[0] };
    let fits = |size: &f64| text_width(drawn, *size, wrap) <= span * 1.15;
    let mut sizes = ink.drawn_sizes(drawn, (w.rect[2], w.rect[3])).into_iter().map(|s| s.clamp(8.0, 48.0).round()).filter(fits);
    if ink.lines != 1 {
        return sizes.next();
    }
    // One line: of the sizes its strokes' height gives (at the scale of the box's height, or of
    // its width on a screen of another shape), the one whose width is its strokes' width.
    let miss = |size: f64| (text_width(drawn, size, wrap) - span).abs();
    sizes.min_by(|a, b| miss(*a).total_cmp(&miss(*b)))
}

/// The width of `text` laid out at `size` (dp) in a box `wrap` dp wide, in dp.
fn text_width(text: &str, size: f64, wrap: f64) -> f64 {
    use phoneworld_text::{layout_text, TextStyle, Weight};
    let px = super::widgets::PX_PER_DP;
    let style = TextStyle { size_px: (size * px) as f32, weight: Weight::Regular };
    f64::from(layout_text(text, style, Some((wrap * px) as f32), None).width) / px
}

fn first_text(w: &Widget) -> Option<String> {
    let mut found = None;
    w.walk(&mut |c| {
        if found.is_none() && !c.text.trim().is_empty() {
            found = Some(c.text.trim().to_owned());
        }
    });
    found
}

/// The screen a widget is written for: its id and the texts that follow the row that opened it.
#[derive(Clone, Copy)]
struct On<'a> {
    screen: &'a str,
    shown: Option<&'a Shown>,
    /// Flat surfaces of the screenshot, by the container they are drawn in (see `surfaces::place`).
    surfaces: &'a BTreeMap<String, Vec<Surface>>,
}

impl On<'_> {
    /// A text property: the literal, or, for a slot that follows the opening row, the
    /// opening row's text (`params.shown`) with the example's as the fallback; on a screen
    /// whose checked controls changed, what it shows since (`local.shown`) first.
    fn text(&self, slot: &str, literal: &str) -> String {
        match self.shown {
            Some(shown) if shown.default.contains_key(slot) => {
                let opened = format!("params.shown ? params.shown.{slot} : content.shown.{}.default.{slot}", self.screen);
                if shown.selection.as_ref().is_some_and(|sel| sel.slots.contains(slot)) {
                    format!("\"{{local.shown ? local.shown.{slot} : ({opened})}}\"")
                } else {
                    format!("\"{{{opened}}}\"")
                }
            }
            _ => tlit(literal),
        }
    }
}

fn widget(w: &Widget, parent: [f64; 4], bg: Option<[u8; 3]>, on: On<'_>, depth: usize, out: &mut String) {
    let pad = "    ".repeat(depth);
    let desc_slot = super::shown::desc_slot(&w.id);
    let mut props: Vec<String> = Vec::new();
    // A picture only drawn has no id: with one it would be an element of the UI tree.
    if !w.decorative {
        props.push(format!("id: {}", lit(&w.id)));
    }
    let (rect, natural) = (w.rect, text_size(w.rect[3]));
    let (x, y) = (rect[0] - parent[0], rect[1] - parent[1]);
    let own_bg = own_colour(w, bg);
    match w.kind {
        WidgetKind::Text if w.echo.is_some() => {
            let key = w.echo.as_deref().unwrap_or_default();
            props.push(format!("text: {}", lit(&format!("{{state.{key}}}"))));
            props.push(format!("visible: {}", lit(&format!("state.{key}"))));
            let (size, _) = fitted_text(&w.text, natural, rect[2], rect[3], None);
            props.push(format!("size: {}", num(size)));
            props.push(format!("color: {}", lit(&text_colour(w, bg))));
        }
        WidgetKind::Text => {
            props.push(format!("text: {}", on.text(&w.id, &w.text)));
            // A picture drawn in its box (`drawables`) keeps the text to the rest of it, `room`;
            // what the screenshot measured is of the whole box.
            let room = match &w.drawable {
                Some(d) if d.side == Side::Above => {
                    props.push(format!("padding: (0, {}, 0, 0)", num(d.inset)));
                    [rect[2], (rect[3] - d.inset).max(1.0)]
                }
                Some(d) => {
                    props.push(format!("padding: ({}, 0, 0, 0)", num(d.inset)));
                    [(rect[2] - d.inset).max(1.0), rect[3]]
                }
                None => [rect[2], rect[3]],
            };
            // One word takes one line, whatever else its box shows.
            let one_word = super::ink::one_word(&w.text);
            let ink_lines = w.ink.map(|i| if one_word { 1 } else { i.lines }).filter(|l| *l > 0);
            let natural = drawn_size(w, &w.text, room).unwrap_or_else(|| text_size(room[1]));
            let (size, max_lines) = fitted_text(&w.text, natural, room[0], room[1], ink_lines);
            props.push(format!("size: {}", num(size)));
            if let Some(lines) = max_lines {
                props.push(format!("max_lines: {lines}"));
            }
            props.push(format!("color: {}", lit(&text_colour(w, bg))));
            if let Some(align) = w.ink.and_then(|i| i.align) {
                props.push(format!("text_align: {}", lit(align.name())));
            }
        }
        WidgetKind::Button => {
            let (label, slot) = if w.text.is_empty() { (&w.content_desc, &desc_slot) } else { (&w.text, &w.id) };
            props.push(format!("text: {}", on.text(slot, label)));
            if !w.content_desc.is_empty() && w.content_desc != *label {
                props.push(format!("content_desc: {}", on.text(&desc_slot, &w.content_desc)));
            }
            // Drawn as the screenshot shows it: its box in its own colour (the background
            // below), its label in its ink; without a screenshot, a filled button of the theme.
            match (own_bg, w.ink) {
                (Some(_), None) => props.push("variant: \"filled\"".to_owned()),
                (None, None) => props.push("variant: \"text\"".to_owned()),
                (_, Some(_)) => {
                    props.push("variant: \"text\"".to_owned());
                    props.push(format!("color: {}", lit(&text_colour(w, own_bg.or(bg)))));
                    let drawn = drawn_label(w, label, &mut props);
                    if let Some(size) = drawn_size(w, &drawn, [rect[2], rect[3]]).filter(|s| BUTTON_LABEL_SIZES.contains(s)) {
                        props.push(format!("size: {}", num(size)));
                    }
                }
            }
        }
        WidgetKind::Image | WidgetKind::Icon if w.image.is_some() => {
            props.push(format!("src: {}", tlit(w.image.as_deref().unwrap_or_default())));
            props.push("fit: \"fill\"".to_owned());
            if w.decorative {
                props.push("decorative: true".to_owned());
            } else if !w.content_desc.is_empty() {
                props.push(format!("content_desc: {}", on.text(&desc_slot, &w.content_desc)));
            } else if !w.text.is_empty() {
                props.push(format!("content_desc: {}", on.text(&w.id, &w.text)));
            }
        }
        WidgetKind::Image => {
            if !w.content_desc.is_empty() {
                props.push(format!("content_desc: {}", on.text(&desc_slot, &w.content_desc)));
            } else if !w.text.is_empty() {
                props.push(format!("content_desc: {}", on.text(&w.id, &w.text)));
            }
        }
        WidgetKind::Icon => {
            props.push(format!("icon: {}", lit(super::widgets::guess_icon(&w.content_desc, &w.id))));
            props.push(format!("size: {}", num(w.rect[2].min(w.rect[3]).clamp(12.0, 48.0) * 0.7)));
            props.push(format!("color: {}", lit(ink(bg))));
            if !w.content_desc.is_empty() {
                props.push(format!("content_desc: {}", on.text(&desc_slot, &w.content_desc)));
            } else if !w.text.is_empty() {
                props.push(format!("content_desc: {}", on.text(&w.id, &w.text)));
            }
        }
        WidgetKind::TextField => {
            let hint = [&w.text, &w.content_desc].into_iter().find(|t| !t.is_empty()).cloned().unwrap_or_else(|| w.id.replace('_', " "));
            let scope = if w.opens_empty { "local" } else { "state" };
            props.push(format!("value: {}", lit(&format!("{scope}.{}", w.state_key.as_deref().unwrap_or(&w.id)))));
            props.push(format!("hint: {}", tlit(&hint)));
        }
        WidgetKind::Switch | WidgetKind::Checkbox => {
            props.push(format!("value: {}", lit(&format!("state.{}", w.state_key.as_deref().unwrap_or(&w.id)))));
            if !w.text.is_empty() {
                props.push(format!("text: {}", on.text(&w.id, &w.text)));
            }
            if !w.content_desc.is_empty() {
                props.push(format!("content_desc: {}", on.text(&desc_slot, &w.content_desc)));
            }
        }
        WidgetKind::Container => {
            // A control that groups others needs a name to be listed (and found) as one element.
            let acts = w.on_tap.is_some() || w.on_long_press.is_some();
            if !w.content_desc.is_empty() {
                props.push(format!("content_desc: {}", on.text(&desc_slot, &w.content_desc)));
            } else if acts {
                props.push(format!("content_desc: {}", tlit(&first_text(w).unwrap_or_else(|| w.id.replace('_', " ")))));
            }
        }
    }
    if let Some(key) = &w.shown_if {
        props.push(format!("visible: {}", lit(&format!("state.{key}"))));
    }
    if let Some(c) = own_bg {
        props.push(format!("background: {}", lit(&hex(c))));
    }
    if let Some(h) = &w.on_tap {
        // A toggle handles its own taps: what it leads to happens when it changes.
        let event = if matches!(w.kind, WidgetKind::Switch | WidgetKind::Checkbox) { "on_change" } else { "on_tap" };
        props.push(format!("{event}: {}", lit(h)));
    }
    if let Some(h) = &w.on_long_press {
        props.push(format!("on_long_press: {}", lit(h)));
    }
    if let Some(h) = &w.on_change {
        props.push(format!("on_change: {}", lit(h)));
    }
    props.push(format!("margin: ({}, {}, 0, 0)", num(x), num(y)));
    props.push(format!("width: {}", num(rect[2])));
    props.push(format!("height: {}", num(rect[3])));
    let name = match w.kind {
        WidgetKind::Container => "Stack",
        WidgetKind::Text => "Text",
        WidgetKind::Button => "Button",
        WidgetKind::Image => "Image",
        WidgetKind::Icon if w.image.is_some() => "Image",
        WidgetKind::Icon => "Icon",
        WidgetKind::TextField => "TextField",
        WidgetKind::Switch => "Switch",
        WidgetKind::Checkbox => "Checkbox",
    };
    let _ = write!(out, "{pad}// {}", one_line(w.class.rsplit('.').next().unwrap_or(&w.class)));
    if !w.resource_id.is_empty() {
        let _ = write!(out, " {}", one_line(&w.resource_id));
    }
    out.push('\n');
    if w.children.is_empty() {
        let _ = writeln!(out, "{pad}{name}({}),", props.join(", "));
        if let Some(d) = &w.drawable {
            let r = d.rect;
            // Shown when its text is.
            let visible = props.iter().find(|p| p.starts_with("visible: ")).map(|v| format!(", {v}")).unwrap_or_default();
            let _ = writeln!(out, "{pad}// Its picture, drawn in its box (no view of its own).");
            let _ = writeln!(
                out,
                "{pad}Image(src: {}, fit: \"fill\", decorative: true{visible}, margin: ({}, {}, 0, 0), width: {}, height: {}),",
                tlit(&d.image),
                num(r[0] - parent[0]),
                num(r[1] - parent[1]),
                num(r[2]),
                num(r[3])
            );
        }
        return;
    }
    let inner_bg = own_bg.or(bg);
    // A list with rows below its box (from visits scrolled further down) scrolls over them;
    // not one the traces tapped as a whole (its rows drew no nodes): a scroll view takes no
    // taps of its own.
    if w.scrolls_over_rows() && w.on_tap.is_none() && w.on_long_press.is_none() {
        let content_bottom = w.children.iter().map(|c| c.rect[1] + c.rect[3]).fold(0.0, f64::max);
        let _ = writeln!(out, "{pad}Scroll({}, children: [", props.join(", "));
        let _ = writeln!(out, "{pad}    Stack(width: {}, height: {}, children: [", num(w.rect[2]), num(content_bottom - w.rect[1]));
        for c in &w.children {
            widget(c, w.rect, inner_bg, on, depth + 2, out);
        }
        let _ = writeln!(out, "{pad}    ]),");
        let _ = writeln!(out, "{pad}]),");
        return;
    }
    let _ = writeln!(out, "{pad}{name}({}, children: [", props.join(", "));
    write_surfaces(on, &w.id, w.rect, depth + 1, out);
    for c in &w.children {
        widget(c, w.rect, inner_bg, on, depth + 1, out);
    }
    let _ = writeln!(out, "{pad}]),");
}

/// The flat surfaces drawn under the children of the container `owner` (`""`: the screen),
/// as empty boxes in their colours (no element of the screen's UI tree).
fn write_surfaces(on: On<'_>, owner: &str, parent: [f64; 4], depth: usize, out: &mut String) {
    let Some(surfaces) = on.surfaces.get(owner) else { return };
    let pad = "    ".repeat(depth);
    let _ = writeln!(out, "{pad}// Surfaces the screenshot shows in flat colour here.");
    for surface in surfaces {
        let r = surface.rect;
        let (x, y) = (r[0] - parent[0], r[1] - parent[1]);
        let _ = writeln!(
            out,
            "{pad}Spacer(margin: ({}, {}, 0, 0), width: {}, height: {}, background: {}),",
            num(x),
            num(y),
            num(r[2]),
            num(r[3]),
            lit(&hex(surface.colour))
        );
    }
}

/// `screens/<id>.ron`.
pub(super) fn screen(s: &ScreenModel, starts_the_app: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// {}: reconstructed from {}", s.id, one_line(&s.example));
    let _ = writeln!(
        out,
        "// Activity: {}. Seen {} time(s); {}.",
        if s.activity.is_empty() { "unknown".to_owned() } else { one_line(&s.activity) },
        s.visits,
        if s.full { "every widget is kept" } else { "a less used screen: only its interactive widgets are kept" }
    );
    if s.role == Role::Foreign {
        out.push_str("// This screen belongs to another app the traces went to; it is kept so the flow can go on.\n");
    }
    if s.kind == ScreenKind::HashOnly {
        out.push_str("// The trace saved no hierarchy for this screen: only the widgets acted on are known.\n");
    }
    out.push_str("// Boxes are in dp: margin (left, top) inside the parent, then width and height.\n");
    let _ = writeln!(out, "Screen(\n    title: {},", tlit(&s.title));
    if let Some((status, navigation)) = s.system_bars {
        // The bars in the colours the app's screenshot shows there.
        let _ = writeln!(out, "    system_bars: (status: {}, navigation: {}),", lit(&hex(status)), lit(&hex(navigation)));
    }
    if s.moves_on.is_some() || starts_the_app {
        let _ = writeln!(out, "    on_enter: {},", lit(&format!("{}__enter", s.id)));
    }
    out.push_str("    root: Stack(\n");
    let bg = s.background;
    let root_bg = match (s.kind, bg) {
        // Dimmed like the screen beneath it in the screenshot, else a plain scrim.
        (ScreenKind::Dialog, Some(c)) => hex(c),
        (ScreenKind::Dialog, None) => "#99000000".to_owned(),
        (_, Some(c)) => hex(c),
        _ => "surface".to_owned(),
    };
    let _ = writeln!(out, "        background: {},\n        children: [", lit(&root_bg));
    // The first child of a Stack is laid out in flow: a spacer that fills the screen.
    out.push_str("            Spacer(grow: 1),\n");
    let inner_bg = if s.kind == ScreenKind::Dialog { None } else { bg };
    let surfaces = super::surfaces::place(&s.surfaces, &s.widgets, inner_bg);
    let on = On { screen: &s.id, shown: s.shown.as_ref(), surfaces: &surfaces };
    write_surfaces(on, "", [0.0; 4], 3, &mut out);
    if s.kind == ScreenKind::HashOnly {
        let _ = writeln!(
            out,
            "            Text(id: \"unsaved_note\", text: {}, size: 14, margin: (16, 16, 0, 0), width: 379, height: 40),",
            tlit("This screen was not saved by the trace.")
        );
    }
    for w in &s.widgets {
        widget(w, [0.0, 0.0, 0.0, 0.0], inner_bg, on, 3, &mut out);
    }
    out.push_str("        ],\n    ),\n)\n");
    out
}

/// `app.ron`.
pub(super) fn manifest(model: &AppModel, sources: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// {}: reconstructed by `phoneworld reconstruct` from:", one_line(&model.label));
    for s in sources {
        let _ = writeln!(out, "//   {}", one_line(s));
    }
    out.push_str("// Screens are in screens/, navigation in main.lua, observed texts in content/observed.ron.\n");
    let _ = writeln!(out, "App(\n    package: {},\n    label: {},", lit(&model.package), lit(&model.label));
    let entry = if model.entry_guard { GUARD_SCREEN } else { &model.entry };
    let _ = writeln!(out, "    icon: \"apps\",\n    color: \"#5F6368\",\n    entry: {},", lit(entry));
    out.push_str(
        "    scripts: [\"main.lua\"],\n    content: {\"observed\": \"content/observed.ron\", \"shown\": \"content/shown.ron\"},\n",
    );
    let state = initial_state(model);
    if state.is_empty() {
        out.push_str("    state: {},\n");
    } else {
        out.push_str("    // What the inputs hold (text fields, switches), as app data tasks can check.\n    state: {\n");
        for (k, v) in state {
            let _ = writeln!(out, "        {}: {v},", lit(&k));
        }
        out.push_str("    },\n");
    }
    out.push_str(")\n");
    out
}

/// What each input's state key holds when the app is installed, sorted by key: a toggle as
/// the screen's example showed it, a field empty (or its `initial_text`), a dialog's choice
/// per opener as first seen.
/// The values are literals of RON and of Lua (ids are snake case).
pub(super) fn initial_state(model: &AppModel) -> Vec<(String, String)> {
    let mut state: Vec<(String, String)> = Vec::new();
    for s in &model.screens {
        for w in &s.widgets {
            w.walk(&mut |w| {
                if let Some(key) = &w.state_key {
                    let value = match w.kind {
                        WidgetKind::Switch | WidgetKind::Checkbox => w.checked.to_string(),
                        _ => lit(w.initial_text.as_deref().unwrap_or_default()),
                    };
                    state.push((key.clone(), value));
                }
            });
        }
    }
    // What forms saved (`remember::echoes`): nothing yet.
    for s in &model.screens {
        for save in s.handlers.iter().flat_map(|h| &h.saves) {
            state.push((super::remember::saved_key(&save.key), "\"\"".to_owned()));
        }
    }
    // Fields a tap opens in place (`in_place`): closed.
    for key in model.screens.iter().flat_map(|s| &s.handlers).flat_map(|h| &h.opens) {
        state.push((key.clone(), "false".to_owned()));
    }
    // Items picked into a screen (`remember::picks`): none yet.
    for (_, picked) in model.screens.iter().flat_map(|s| &s.handlers).flat_map(|h| &h.picks) {
        state.push((picked.clone(), "false".to_owned()));
    }
    // A dialog following its opener: which opened it, and the choice first made from each.
    for s in model.screens.iter().filter(|s| !s.choice_by_opener.is_empty()) {
        state.push((super::remember::opener_key(&s.id), "\"\"".to_owned()));
        for (handler, chosen) in &s.choice_by_opener {
            state.push((super::remember::choice_key(&s.id, handler), lit(chosen)));
        }
    }
    state.sort();
    state.dedup_by(|a, b| a.0 == b.0);
    state
}

/// `content/observed.ron`: every text each screen showed, across all visits.
pub(super) fn observed(model: &AppModel, traces: &[Trace]) -> String {
    let mut out = String::from("// Every text and description each screen showed in the traces, across visits: material\n// for refining the layouts (lists, alternatives).\n{\n");
    let mut left_out = 0;
    for s in &model.screens {
        let Some(i) = model.abstraction.index_of(&s.id) else { continue };
        let mut texts = BTreeSet::new();
        for (t, id) in &model.abstraction.screens[i].members {
            if let Some(root) = traces.get(*t).and_then(|tr| tr.screens.get(id)).and_then(|s| s.root.as_ref()) {
                root.walk(&mut Vec::new(), &mut |_, n| {
                    for text in [&n.text, &n.content_desc] {
                        if !text.trim().is_empty() && !crate::abstraction::is_system_chrome(n) {
                            texts.insert(text.trim().to_owned());
                        }
                    }
                });
            }
        }
        let _ = writeln!(out, "    {}: [", lit(&s.id));
        for t in texts {
            let line = format!("        {},\n", lit(&t));
            // The file stays well within what the app loader reads (`MAX_BUNDLE_FILE_BYTES`).
            if out.len() + line.len() > MAX_OBSERVED_BYTES {
                left_out += 1;
                continue;
            }
            out.push_str(&line);
        }
        out.push_str("    ],\n");
    }
    if left_out > 0 {
        let _ = writeln!(out, "    // {left_out} more text(s) left out: this file stays under {} MiB.", MAX_OBSERVED_BYTES >> 20);
    }
    out.push_str("}\n");
    out
}

/// `content/shown.ron`: per screen, the texts that follow the row that opened it, or its own
/// checked controls.
pub(super) fn shown(model: &AppModel) -> String {
    let mut out = String::from(
        "// Texts of a screen that follow the row that opened it: `default` is what the screen's\n\
         // example showed, `<screen>__<widget>` what it showed after that widget (a row) was tapped,\n\
         // `items` what it showed after a row naming that item, `named` the item each row named\n\
         // when it was tapped, `rows` the slots naming each row; `selection` what the screen showed\n\
         // with each set of its own checkable controls on (`choices`: controls of which one is on).\n{\n",
    );
    let map = |texts: &BTreeMap<String, String>| {
        let mut out = String::from("{");
        for (slot, text) in texts {
            let _ = write!(out, "{}: {}, ", lit(slot), lit(text));
        }
        out.push('}');
        out
    };
    let slots = |out: &mut String, indent: &str, key: &str, texts: &BTreeMap<String, String>| {
        let _ = writeln!(out, "{indent}{}: {},", lit(key), map(texts));
    };
    for s in &model.screens {
        let Some(shown) = &s.shown else { continue };
        let _ = writeln!(out, "    {}: {{", lit(&s.id));
        for (key, v) in std::iter::once(("default", &shown.default)).chain(shown.variants.iter().map(|(k, v)| (k.as_str(), v))) {
            slots(&mut out, "        ", key, v);
        }
        if !shown.items.is_empty() {
            out.push_str("        \"items\": {\n");
            for (item, v) in &shown.items {
                slots(&mut out, "            ", item, v);
            }
            out.push_str("        },\n");
            slots(&mut out, "        ", "named", &shown.named);
            out.push_str("        \"rows\": {\n");
            for (key, labels) in &shown.rows {
                let _ = write!(out, "            {}: [", lit(key));
                for (slot, text) in labels {
                    let _ = write!(out, "[{}, {}], ", lit(slot), lit(text));
                }
                out.push_str("],\n");
            }
            out.push_str("        },\n");
        }
        if let Some(selection) = &shown.selection {
            let list = |ids: &mut dyn Iterator<Item = &String>| ids.map(|id| lit(id)).collect::<Vec<_>>().join(", ");
            out.push_str("        \"selection\": {\n");
            let _ = writeln!(out, "            \"checkable\": [{}],", list(&mut selection.checkable.iter()));
            out.push_str("            \"choices\": {");
            for (id, others) in &selection.choices {
                let _ = write!(out, "{}: [{}], ", lit(id), list(&mut others.iter()));
            }
            out.push_str("},\n            \"states\": [\n");
            for (on, texts) in &selection.states {
                let _ = writeln!(out, "                {{\"on\": [{}], \"shown\": {}}},", list(&mut on.iter()), map(texts));
            }
            out.push_str("            ],\n        },\n");
        }
        out.push_str("    },\n");
    }
    out.push_str("}\n");
    out
}

/// `screens/start.ron`: the empty screen under the entry when Back must not leave it.
pub(super) fn guard(model: &AppModel) -> String {
    format!(
        "// Under `{0}`: Back on `{0}` stayed there in the traces, so this screen shows it again\n\
         // whenever Back reveals it (see main.lua).\nScreen(\n    title: {1},\n    on_enter: \"{2}__enter\",\n    root: Column(children: []),\n)\n",
        model.entry,
        tlit(&model.label),
        GUARD_SCREEN
    )
}

/// Text for a comment line: control characters (a newline would end the comment) become spaces.
pub(crate) fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::ink::Ink;
    use crate::generate::widgets::{build, Drawable, Mapper};
    use crate::trace::UiNode;
    use crate::visual::Rgb;

    const GREEN: [u8; 3] = [76, 175, 80];
    const ORANGE: [u8; 3] = [255, 87, 34];

    /// A 400 x 800 green screenshot; `boxes` painted (`[x1, y1, x2, y2]`, colour), every third
    /// column of a box left out when `strokes` (so it reads as text, not as a block).
    fn screenshot(boxes: &[([u32; 4], [u8; 3], bool)]) -> Rgb {
        let mut img = Rgb { width: 400, height: 800, pixels: vec![GREEN; 400 * 800] };
        for ([x1, y1, x2, y2], colour, strokes) in boxes {
            for y in *y1..*y2 {
                for x in *x1..*x2 {
                    if !strokes || x % 3 != 0 {
                        img.pixels[(y * 400 + x) as usize] = *colour;
                    }
                }
            }
        }
        img
    }

    fn written(node: &UiNode, shot: &Rgb) -> String {
        let m = Mapper { width: 400.0, height: 800.0 };
        let widgets = build(node, &m, Some(shot));
        let (surfaces, mut out) = (BTreeMap::new(), String::new());
        let on = On { screen: "welcome", shown: None, surfaces: &surfaces };
        for w in &widgets {
            widget(w, [0.0; 4], Some(GREEN), on, 0, &mut out);
        }
        out
    }

    #[test]
    fn a_texts_ink_is_kept_where_it_reads_on_what_the_screenshot_shows_under_it() {
        let m = Mapper { width: 400.0, height: 800.0 };
        let mut caption = super::super::widgets::from_target(&UiNode::new("android.widget.TextView", [0, 0, 400, 40]), &m);
        let dark = [20, 25, 20];
        let ink_on = |ground: Option<[u8; 3]>| Ink {
            colour: [0, 0, 0],
            ground,
            align: None,
            lines: 1,
            stroke_px: 10,
            last_stroke_px: 0,
            pitch_px: 0,
            box_px: 40,
            span_px: 100,
            box_w_px: 400,
        };
        // Black on a white speech bubble cut out of a dark photo: black.
        caption.ink = Some(ink_on(Some([250, 250, 250])));
        assert_eq!(text_colour(&caption, Some(dark)), "#000000");
        // Black measured on the dark page it is drawn on would not read: white.
        caption.ink = Some(ink_on(Some(dark)));
        assert_eq!(text_colour(&caption, Some(dark)), "#FFFFFF");
    }

    #[test]
    fn the_part_a_view_keeps_of_its_picture_is_only_drawn_and_the_view_stays_the_element() {
        let m = Mapper { width: 400.0, height: 800.0 };
        let mut view = super::super::widgets::from_target(&UiNode::new("android.webkit.WebView", [0, 0, 400, 600]), &m);
        let mut part = view.clone();
        (view.id, view.kind) = ("webview".into(), WidgetKind::Container);
        (part.id, part.kind, part.image, part.decorative) =
            ("webview_picture".into(), WidgetKind::Image, Some("images/s__webview_picture.png".into()), true);
        view.children = vec![part];
        let (surfaces, mut out) = (BTreeMap::new(), String::new());
        widget(&view, [0.0; 4], Some(GREEN), On { screen: "s", shown: None, surfaces: &surfaces }, 0, &mut out);
        assert!(out.contains("Stack(id: \"webview\"") && out.contains("decorative: true"), "{out}");
        assert!(!out.contains("webview_picture\","), "no id, no element: {out}");
    }

    #[test]
    fn a_button_and_a_title_are_drawn_in_the_colours_and_place_the_screenshot_shows() {
        let shot = screenshot(&[
            ([100, 600, 300, 660], ORANGE, false),
            ([170, 620, 230, 640], [255, 255, 255], true),
            ([160, 310, 240, 330], [255, 255, 255], true),
        ]);
        let button = UiNode { text: "GET STARTED".into(), clickable: true, ..UiNode::new("android.widget.Button", [100, 600, 300, 660]) };
        let out = written(&button, &shot);
        for part in ["variant: \"text\"", "color: \"#FFFFFF\"", "background: \"#FF5722\""] {
            assert!(out.contains(part), "{part} in {out}");
        }
        let title = UiNode { text: "Welcome!".into(), ..UiNode::new("android.widget.TextView", [0, 300, 400, 340]) };
        let out = written(&title, &shot);
        for part in ["color: \"#FFFFFF\"", "text_align: \"center\""] {
            assert!(out.contains(part), "{part} in {out}");
        }
    }

    #[test]
    fn one_line_of_text_on_a_stretched_screen_is_as_wide_as_its_strokes_not_as_tall() {
        // The screenshot's screen is stretched to the phone's shape: its box is 1.03 dp a pixel
        // across and 1.14 down. Its strokes were drawn at 16 dp, as wide as they are.
        let text = "Give five, get five off";
        let title = UiNode { text: text.into(), ..UiNode::new("android.widget.TextView", [0, 300, 400, 340]) };
        let shot = screenshot(&[]);
        let mut widgets = build(&title, &Mapper { width: 400.0, height: 800.0 }, Some(&shot));
        let w = &mut widgets[0];
        let across = w.rect[2] / 400.0;
        let size = 16.0;
        w.ink = Some(Ink {
            colour: [255, 255, 255],
            ground: None,
            align: None,
            lines: 1,
            stroke_px: (0.94 * size / across).round() as u32, // capitals and ascenders over descenders
            last_stroke_px: 0,
            pitch_px: 0,
            box_px: 40,
            span_px: (text_width(text, size, f64::INFINITY) / across).round() as u32,
            box_w_px: 400,
        });
        let (surfaces, mut out) = (BTreeMap::new(), String::new());
        widget(w, [0.0; 4], Some(GREEN), On { screen: "welcome", shown: None, surfaces: &surfaces }, 0, &mut out);
        assert!(out.contains("size: 16,") && !out.contains("max_lines"), "{out}");
    }

    #[test]
    fn a_texts_picture_is_shown_when_the_text_is() {
        let shot = screenshot(&[([160, 310, 240, 330], [255, 255, 255], true)]);
        let label = UiNode { text: "Saved".into(), ..UiNode::new("android.widget.TextView", [0, 300, 400, 340]) };
        let mut widgets = build(&label, &Mapper { width: 400.0, height: 800.0 }, Some(&shot));
        widgets[0].drawable = Some(Drawable {
            image: "images/welcome__text_drawable.png".into(),
            rect: [10.0, 150.0, 20.0, 20.0],
            side: Side::Before,
            inset: 24.0,
        });
        widgets[0].shown_if = Some("welcome_saved".into());
        let (surfaces, mut out) = (BTreeMap::new(), String::new());
        widget(&widgets[0], [0.0; 4], Some(GREEN), On { screen: "welcome", shown: None, surfaces: &surfaces }, 0, &mut out);
        let picture = out.lines().find(|l| l.starts_with("Image(")).unwrap_or_else(|| panic!("no picture in {out}"));
        assert!(picture.contains("visible: \"state.welcome_saved\""), "{out}");
    }

    #[test]
    fn a_list_with_rows_below_the_fold_scrolls_unless_it_was_tapped_as_a_whole() {
        let row = |y: i32, text: &str| UiNode { text: text.into(), ..UiNode::new("android.widget.TextView", [0, y, 400, y + 100]) };
        let list = UiNode {
            scrollable: true,
            resource_id: "com.example:id/shop".into(),
            children: vec![row(600, "Hoodie"), row(760, "Boots")],
            ..UiNode::new("android.widget.GridView", [0, 100, 400, 800])
        };
        let mut widgets = build(&list, &Mapper { width: 400.0, height: 800.0 }, None);
        assert!(widgets[0].scrolls_over_rows(), "{:?}", widgets[0]);
        let write = |w: &Widget| {
            let (surfaces, mut out) = (BTreeMap::new(), String::new());
            widget(w, [0.0; 4], None, On { screen: "shop", shown: None, surfaces: &surfaces }, 0, &mut out);
            out
        };
        assert!(write(&widgets[0]).starts_with("// GridView com.example:id/shop\nScroll("), "{}", write(&widgets[0]));
        // A scroll view takes no taps of its own: the handler would be lost.
        widgets[0].on_tap = Some("shop__shop".into());
        let tapped = write(&widgets[0]);
        assert!(!tapped.contains("Scroll(") && tapped.contains("on_tap: \"shop__shop\""), "{tapped}");
    }
}
