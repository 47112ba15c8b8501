//! What the hierarchy does not say: screens whose hierarchy is empty or opaque (a WebView, a
//! Flutter or Adobe AIR surface, a game) get their texts and tap targets from the screenshot.
//!
//! Texts are read with Tesseract ([`crate::ocr`]); pictures are the regions of the screenshot
//! that stand out from its background and are not text. Both become nodes of the screen's
//! hierarchy (marked with the package [`SEEN_PACKAGE`], so measures of the trace's own
//! elements leave them out), and a tap of the trace on one makes it a control; a tap on
//! neither makes a control of a finger's size where it landed. Everything after import reads
//! them as it reads any node.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;

use crate::gaps;
use crate::ocr::{open, TextLine};
use crate::trace::{Screen, ScreenKind, Trace, TraceAction, UiNode};
use crate::unseen;
use crate::visual::{rows_showing, Rgb};

/// The package of nodes found in a screenshot rather than read from the hierarchy.
pub const SEEN_PACKAGE: &str = "phoneworld.seen";

/// A hierarchy with fewer nodes that say something than this is opaque.
const MIN_SPEAKING_NODES: usize = 3;
/// Side of the cells pictures (and gaps) are found in, in screenshot pixels.
pub(crate) const CELL: u32 = 8;
/// A pixel this far from the background colour (sum over channels) is part of something.
const INK_DISTANCE: u32 = 60;
/// A picture is at least this share of the screen's width on its shorter side (an icon, a
/// rating's star)...
const MIN_PICTURE_SIDE: f64 = 0.03;
/// ...and less than this share of it covered by text.
const MAX_TEXT_SHARE: f64 = 0.3;
/// A region larger than this share of the screen's area is cut along the gutters it has (a
/// gallery's tiles); what has none is one large picture (a photo behind the page), of which a
/// crop keeps only the middle.
const MAX_PICTURE_SHARE: f64 = 0.25;
/// A control made where a tap hit nothing is this share of the screen's width across.
const FINGER: f64 = 0.1;

/// Whether a screen's hierarchy (what was read off its screenshot aside) says too little to
/// rebuild it from.
pub fn is_opaque(screen: &Screen) -> bool {
    let Some(root) = &screen.root else { return screen.kind != ScreenKind::HashOnly };
    let mut speaking = 0;
    root.walk(&mut Vec::new(), &mut |_, n| {
        if n.visible && n.package != SEEN_PACKAGE && (!n.text.trim().is_empty() || !n.content_desc.trim().is_empty()) {
            speaking += 1;
        }
    });
    speaking < MIN_SPEAKING_NODES
}

/// Words of the class names of views that draw what the accessibility tree cannot see into.
const SURFACES: [&str; 7] = ["WebView", "Surface", "Texture", "GLRoot", "Flutter", "MapView", "Canvas"];

/// A childless view that says nothing and draws what the hierarchy cannot see into (a WebView,
/// a GL, AIR, camera or map surface): one covering at least `MAX_PICTURE_SHARE` of the screen
/// is read. A plain empty view is not one: it draws nothing of its own.
fn is_opaque_view(n: &UiNode) -> bool {
    let class = n.short_class();
    n.visible
        && n.children.is_empty()
        && n.text.trim().is_empty()
        && n.content_desc.trim().is_empty()
        && SURFACES.iter().any(|w| class.contains(w))
}

/// The parts of a screen to read off its screenshot, in the screen's coordinates: all of it
/// when its hierarchy says too little, else its large opaque views.
pub fn unread_parts(screen: &Screen) -> Vec<[i32; 4]> {
    if screen.screenshot.is_none() || screen.kind == ScreenKind::HashOnly {
        return Vec::new();
    }
    let whole = [0, 0, screen.width as i32, screen.height as i32];
    if is_opaque(screen) {
        return vec![whole];
    }
    let screen_area = f64::from(screen.width) * f64::from(screen.height);
    let mut parts = Vec::new();
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| {
            let b = [n.bounds[0].max(0), n.bounds[1].max(0), n.bounds[2].min(whole[2]), n.bounds[3].min(whole[3])];
            if is_opaque_view(n) && area(b.map(f64::from)) >= MAX_PICTURE_SHARE * screen_area {
                parts.push(b);
            }
        });
    }
    parts
}

/// Whether a point of a screen read only in `part` is on one of the hierarchy's own controls or
/// texts (smaller than the part): a tap there stays theirs.
fn on_a_control(screen: &Screen, part: [i32; 4], x: f64, y: f64) -> bool {
    let part_area = area(part.map(f64::from));
    let mut hit = false;
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| {
            hit |= n.visible
                && n.package != SEEN_PACKAGE
                && (n.clickable || !n.text.trim().is_empty() || !n.content_desc.trim().is_empty())
                && area(n.bounds.map(f64::from)) < part_area
                && n.contains(x, y);
        });
    }
    hit
}

/// Sum of absolute channel differences.
fn distance(a: [u8; 3], b: [u8; 3]) -> u32 {
    (0..3).map(|c| u32::from(a[c].abs_diff(b[c]))).sum()
}

/// Whether the cell `(cx, cy)` of a screenshot holds something unlike `colour` (every other
/// pixel of it is looked at).
pub(crate) fn cell_differs(shot: &Rgb, cx: u32, cy: u32, colour: [u8; 3]) -> bool {
    (0..CELL).step_by(2).any(|dy| (0..CELL).step_by(2).any(|dx| distance(shot.at(cx * CELL + dx, cy * CELL + dy), colour) > INK_DISTANCE))
}

pub(crate) fn area(b: [f64; 4]) -> f64 {
    (b[2] - b[0]).max(0.0) * (b[3] - b[1]).max(0.0)
}

pub(crate) fn overlap(a: [f64; 4], b: [f64; 4]) -> f64 {
    area([a[0].max(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].min(b[3])])
}

/// The boxes of the 4-connected components of `busy` cells (`cols` across), in cells
/// `[x1, y1, x2, y2]`, with their cells.
fn components(busy: &[bool], cols: u32) -> Vec<([u32; 4], Vec<usize>)> {
    let lines = busy.len() as u32 / cols.max(1);
    let mut seen = vec![false; busy.len()];
    let mut out = Vec::new();
    for start in 0..busy.len() {
        if !busy[start] || seen[start] {
            continue;
        }
        // Breadth first over the four neighbours.
        let (mut x1, mut y1, mut x2, mut y2) = (u32::MAX, u32::MAX, 0, 0);
        let mut cells = Vec::new();
        let mut queue = VecDeque::from([start]);
        seen[start] = true;
        while let Some(k) = queue.pop_front() {
            cells.push(k);
            let (cx, cy) = (k as u32 % cols, k as u32 / cols);
            (x1, y1, x2, y2) = (x1.min(cx), y1.min(cy), x2.max(cx + 1), y2.max(cy + 1));
            let neighbours = [
                (cx > 0).then(|| k - 1),
                (cx + 1 < cols).then(|| k + 1),
                (cy > 0).then(|| k - cols as usize),
                (cy + 1 < lines).then(|| k + cols as usize),
            ];
            for n in neighbours.into_iter().flatten() {
                if busy[n] && !seen[n] {
                    seen[n] = true;
                    queue.push_back(n);
                }
            }
        }
        out.push(([x1, y1, x2, y2], cells));
    }
    out
}

/// The pictures of a screenshot (its first `rows` rows): boxes of cells unlike the background,
/// joined where they touch, in screenshot pixels, top to bottom. A region too large to be one
/// picture is cut along straight gutters of flat cells that cross it whole (the frames
/// between a gallery's tiles); one with no such gutter is one large picture, kept whole.
pub(crate) fn pictures(shot: &Rgb, rows: u32, texts: &[[f64; 4]], min_side: f64) -> Vec<[f64; 4]> {
    let Some(background) = shot.background_colour(rows) else { return Vec::new() };
    let (cols, lines) = (shot.width / CELL, rows / CELL);
    let busy: Vec<bool> =
        (0..lines).flat_map(|cy| (0..cols).map(move |cx| (cx, cy))).map(|(cx, cy)| cell_differs(shot, cx, cy, background)).collect();
    let (w, h) = (f64::from(shot.width), f64::from(rows));
    let to_pixels = |c: [u32; 4]| c.map(|v| f64::from(v * CELL));
    let too_large = |b: [f64; 4]| area(b) > MAX_PICTURE_SHARE * w * h;
    let is_picture = |b: [f64; 4]| {
        let side = (b[2] - b[0]).min(b[3] - b[1]);
        let text_share = texts.iter().map(|t| overlap(*t, b)).sum::<f64>() / area(b).max(1.0);
        side >= min_side && text_share < MAX_TEXT_SHARE
    };
    let flat = |cx: u32, cy: u32| shot.flat_colour(cx * CELL, cy * CELL, CELL).is_some();
    let mut out = Vec::new();
    for (cells_box, _) in components(&busy, cols) {
        if !too_large(to_pixels(cells_box)) {
            out.extend(Some(to_pixels(cells_box)).filter(|b| is_picture(*b)));
            continue;
        }
        // Cut while there are gutters; what has none left is one picture (if not too large).
        let mut parts = vec![(cells_box, 0)];
        while let Some((part, depth)) = parts.pop() {
            let sides = if depth < MAX_CUTS { cut_at_gutter(part, &flat) } else { Vec::new() };
            if sides.is_empty() {
                out.extend(Some(to_pixels(part)).filter(|b| is_picture(*b)));
            } else {
                parts.extend(sides.into_iter().map(|p| (p, depth + 1)));
            }
        }
    }
    out.sort_by(|a, b| a[1].total_cmp(&b[1]).then(a[0].total_cmp(&b[0])));
    out
}

/// How many times a region is cut along gutters, at most.
const MAX_CUTS: usize = 8;

/// The two sides of the first gutter of `region` (cells `[x1, y1, x2, y2]`): a row, or else a
/// column, whose every cell across the region is flat, with content on both sides; each side
/// without its flat edges. Nothing when there is no gutter.
fn cut_at_gutter(region: [u32; 4], flat: &dyn Fn(u32, u32) -> bool) -> Vec<[u32; 4]> {
    let trim = |r: [u32; 4]| {
        let [mut a, mut b, mut c, mut d] = r;
        while b < d && (a..c).all(|x| flat(x, b)) {
            b += 1;
        }
        while d > b && (a..c).all(|x| flat(x, d - 1)) {
            d -= 1;
        }
        while a < c && (b..d).all(|y| flat(a, y)) {
            a += 1;
        }
        while c > a && (b..d).all(|y| flat(c - 1, y)) {
            c -= 1;
        }
        (a < c && b < d).then_some([a, b, c, d])
    };
    let Some([x1, y1, x2, y2]) = trim(region) else { return Vec::new() };
    let row_flat = |y: u32| (x1..x2).all(|x| flat(x, y));
    let column_flat = |x: u32| (y1..y2).all(|y| flat(x, y));
    if let Some(y) = (y1 + 1..y2).find(|y| row_flat(*y)) {
        return [trim([x1, y1, x2, y]), trim([x1, y, x2, y2])].into_iter().flatten().collect();
    }
    if let Some(x) = (x1 + 1..x2).find(|x| column_flat(*x)) {
        return [trim([x1, y1, x, y2]), trim([x, y1, x2, y2])].into_iter().flatten().collect();
    }
    Vec::new()
}

fn seen_node(class: &str, bounds: [i32; 4]) -> UiNode {
    UiNode { package: SEEN_PACKAGE.into(), ..UiNode::new(class, bounds) }
}

/// The boxes the hierarchy already gives, in the screen's coordinates: leaves no larger than a
/// picture may be (a surface covering the screen gives nothing), and whether each speaks.
fn known_boxes(screen: &Screen) -> Vec<([f64; 4], bool)> {
    let mut out = Vec::new();
    let screen_area = f64::from(screen.width) * f64::from(screen.height);
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| {
            let b = n.bounds.map(f64::from);
            if n.visible && n.children.is_empty() && area(b) > 0.0 && area(b) <= MAX_PICTURE_SHARE * screen_area {
                out.push((b, !n.text.trim().is_empty() || !n.content_desc.trim().is_empty()));
            }
        });
    }
    out
}

/// The pixels of a screenshot showing `part` of a screen, and where they start in it.
fn part_of(shot: &Rgb, screen: &Screen, part: [i32; 4]) -> Option<(Rgb, [u32; 2])> {
    let rows = rows_showing(shot, screen.width, screen.height);
    let scale = f64::from(shot.width) / f64::from(screen.width.max(1));
    let px = |v: i32, limit: u32| ((f64::from(v.max(0)) * scale) as u32).min(limit);
    let (x1, y1, x2, y2) = (px(part[0], shot.width), px(part[1], rows), px(part[2], shot.width), px(part[3], rows));
    if (x1, y1, x2, y2) == (0, 0, shot.width, rows) && rows == shot.height {
        return Some((shot.clone(), [0, 0]));
    }
    Some((shot.crop(x1, y1, x2.checked_sub(x1)?, y2.checked_sub(y1)?)?, [x1, y1]))
}

/// What was read off a part of a screenshot (`shot`, starting at `origin` of the whole) and the
/// hierarchy does not already say: its lines of text and its pictures, as nodes in the screen's
/// coordinates.
fn read(shot: &Rgb, origin: [u32; 2], screen: &Screen, full_width: u32, lines: &[TextLine], strict: bool) -> Vec<UiNode> {
    let rows = shot.height;
    let scale = f64::from(screen.width.max(1)) / f64::from(full_width.max(1));
    let (ox, oy) = (f64::from(origin[0]), f64::from(origin[1]));
    let to_screen = |b: [f64; 4]| [(b[0] + ox) * scale, (b[1] + oy) * scale, (b[2] + ox) * scale, (b[3] + oy) * scale];
    let known = known_boxes(screen);
    // Half of it under a node of the hierarchy (one that speaks, for text): already said.
    // `strict` (a gap): a fifth under any node is.
    let said = |b: [f64; 4], speaking_only: bool| {
        let share = if strict { 0.2 } else { 0.5 };
        known.iter().any(|(k, speaks)| (*speaks || !speaking_only || strict) && overlap(*k, b) >= share * area(b))
    };
    let text_boxes: Vec<[f64; 4]> = lines.iter().map(|l| l.bounds.map(f64::from)).collect();
    let found = pictures(shot, rows, &text_boxes, MIN_PICTURE_SIDE * f64::from(full_width));
    // One letter or digit read inside a picture is its texture read as a letter.
    let texture = |l: &TextLine| {
        let b = l.bounds.map(f64::from);
        l.text.chars().filter(|c| c.is_alphanumeric()).count() < 2 && found.iter().any(|p| overlap(*p, b) * 2.0 >= area(b))
    };
    // Pictures first: a text read over a picture is drawn over it.
    let mut nodes: Vec<UiNode> = found
        .iter()
        .copied()
        .map(to_screen)
        .filter(|b| !said(*b, false))
        .map(|b| seen_node("android.widget.ImageView", b.map(|v| v.round() as i32)))
        .collect();
    nodes.extend(
        lines
            .iter()
            .filter(|l| l.bounds[1] < rows as i32 && !texture(l))
            .map(|l| (l, to_screen(l.bounds.map(f64::from))))
            .filter(|(_, b)| !said(*b, true))
            .map(|(l, b)| UiNode { text: l.text.clone(), ..seen_node("android.widget.TextView", b.map(|v| v.round() as i32)) }),
    );
    nodes
}

/// The one Tesseract engine of the process (opened on first use), or why there is none.
fn shared() -> Result<&'static crate::ocr::Tesseract, String> {
    static ENGINE: std::sync::OnceLock<Result<crate::ocr::Tesseract, String>> = std::sync::OnceLock::new();
    ENGINE.get_or_init(open).as_ref().map_err(Clone::clone)
}

/// The lines of text Tesseract reads in an image, each with its box (`[x1, y1, x2, y2]` in
/// the image's pixels); none without Tesseract.
pub(crate) fn text_lines_in(image: &Rgb) -> Vec<(String, [u32; 4])> {
    let Ok(engine) = shared() else { return Vec::new() };
    engine.lines(image).into_iter().map(|l| (l.text, l.bounds.map(|v| v.max(0) as u32))).collect()
}

/// What a screenshot (`shot`, cut to the screen) shows in the gaps of a screen's hierarchy
/// (see [`gaps`]) as nodes to add to it, and the Tesseract version that read them; nothing
/// when there is no gap or no Tesseract.
pub(crate) fn read_gaps(screen: &Screen, shot: &Rgb) -> (Vec<UiNode>, Option<String>) {
    if is_opaque(screen) {
        return (Vec::new(), None);
    }
    let parts = gaps::gaps(shot, screen);
    let Some(engine) = (!parts.is_empty()).then(shared).and_then(Result::ok) else { return (Vec::new(), None) };
    let mut nodes = Vec::new();
    for part in parts {
        let Some((pixels, origin)) = part_of(shot, screen, part) else { continue };
        nodes.extend(read(&pixels, origin, screen, shot.width, &engine.lines(&pixels), true));
    }
    (nodes, Some(engine.version().to_owned()))
}

/// Reads the screenshots of a trace's opaque screens, and of its screens' opaque views, into
/// their hierarchies; returns how many screens were read, or why none could be.
pub fn recover(trace: &mut Trace) -> Result<usize, String> {
    let clashing: Vec<String> =
        trace.screens.values().filter(|s| s.screenshot.is_some() && unseen::has_clashes(s)).map(|s| s.id.clone()).collect();
    // The parts to read: whole opaque screens, and WebViews and surfaces. (Gaps are read later,
    // on the one visit each rebuilt screen is drawn from: `read_gaps`.)
    let parts: BTreeMap<String, Vec<([i32; 4], bool)>> = trace
        .screens
        .values()
        .map(|s| (s.id.clone(), unread_parts(s).into_iter().map(|p| (p, false)).collect::<Vec<_>>()))
        .filter(|(_, p)| !p.is_empty())
        .collect();
    if clashing.is_empty() && parts.is_empty() {
        return Ok(0);
    }
    let engine = shared()?;
    // First what the hierarchy says is there and the screenshot does not show.
    let mut hidden = 0;
    let mut reads = unseen::Reads::default();
    for id in &clashing {
        let Some(screen) = trace.screens.get_mut(id) else { continue };
        let Some(rel) = screen.screenshot.clone() else { continue };
        let (base, width) = (trace.base_dir.clone(), screen.width);
        hidden += unseen::hide_unshown(screen, &mut reads, &mut || {
            let shot = Rgb::load(&Path::new(&base).join(&rel)).ok()?;
            Some((engine.lines(&shot), f64::from(width.max(1)) / f64::from(shot.width.max(1))))
        });
    }
    if hidden > 0 {
        trace.notes.push(format!("{hidden} part(s) of hierarchies that their screenshots do not show (texts under other texts) hidden"));
    }
    let mut read_count = 0;
    for (id, screen_parts) in &parts {
        let Some(screen) = trace.screens.get_mut(id) else { continue };
        let Some(rel) = screen.screenshot.clone() else { continue };
        // A screenshot that does not load was noted by the importer; the screen stays as it is.
        let Ok(shot) = Rgb::load(&Path::new(&trace.base_dir).join(&rel)) else { continue };
        let mut nodes = Vec::new();
        for (part, strict) in screen_parts {
            let Some((pixels, origin)) = part_of(&shot, screen, *part) else { continue };
            let lines = engine.lines(&pixels);
            nodes.extend(read(&pixels, origin, screen, shot.width, &lines, *strict));
        }
        let root = screen.root.get_or_insert_with(|| UiNode {
            package: screen.package.clone(),
            ..UiNode::new("android.widget.FrameLayout", [0, 0, screen.width as i32, screen.height as i32])
        });
        root.children.extend(nodes);
        if screen.kind == ScreenKind::Empty {
            screen.kind = ScreenKind::Full;
        }
        read_count += 1;
    }
    // Taps in a part read make controls: of what they landed on, or of a finger's size where
    // nothing was. A tap the trace gave the opaque view itself goes to what it landed on.
    let mut taps: Vec<(String, f64, f64)> = Vec::new();
    for step in &mut trace.steps {
        let (TraceAction::Tap { x, y } | TraceAction::LongPress { x, y }) = step.action else { continue };
        let Some(screen_parts) = parts.get(&step.screen) else { continue };
        let Some((part, _)) =
            screen_parts.iter().find(|(p, _)| f64::from(p[0]) <= x && x < f64::from(p[2]) && f64::from(p[1]) <= y && y < f64::from(p[3]))
        else {
            continue;
        };
        let screen = trace.screens.get(&step.screen);
        if screen.is_some_and(|s| !is_opaque(s)) && screen.is_some_and(|s| on_a_control(s, *part, x, y)) {
            continue;
        }
        match &step.target {
            None => {}
            Some(t) if t.node.bounds == *part && is_opaque_view(&t.node) => step.target = None,
            Some(_) => continue,
        }
        taps.push((step.screen.clone(), x, y));
    }
    for (id, x, y) in taps {
        let Some(screen) = trace.screens.get_mut(&id) else { continue };
        let side = (f64::from(screen.width) * FINGER) as i32;
        let Some(root) = screen.root.as_mut() else { continue };
        let hit = root.children.iter_mut().filter(|n| n.package == SEEN_PACKAGE && n.contains(x, y)).min_by_key(|n| n.width() * n.height());
        match hit {
            Some(node) => node.clickable = true,
            None => {
                let (cx, cy) = (x as i32, y as i32);
                let mut node = seen_node("android.view.View", [cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2]);
                node.clickable = true;
                root.children.push(node);
            }
        }
    }
    if read_count > 0 {
        trace.notes.push(format!(
            "{read_count} screen(s) whose hierarchy, or a WebView or surface in it, says too little read from their screenshots with Tesseract {}",
            engine.version()
        ));
    }
    Ok(read_count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pictures_are_what_stands_out_from_the_background_and_is_not_text() {
        // A white 200 x 400 screen with a dark square (a picture) and a dark bar under text.
        let mut rgba = vec![255u8; 200 * 400 * 4];
        let mut paint = |x1: u32, y1: u32, x2: u32, y2: u32| {
            for y in y1..y2 {
                for x in x1..x2 {
                    let i = ((y * 200 + x) * 4) as usize;
                    rgba[i..i + 3].copy_from_slice(&[30, 60, 90]);
                }
            }
        };
        paint(16, 16, 80, 80);
        paint(16, 200, 180, 216);
        let shot = Rgb::from_rgba(200, 400, &rgba);
        let text = [[16.0, 200.0, 180.0, 216.0]];
        let found = pictures(&shot, 400, &text, 12.0);
        assert_eq!(found, vec![[16.0, 16.0, 80.0, 80.0]]);
    }

    /// A 400 x 800 black screen with a grey frame over its middle half holding `tiles` x
    /// `tiles` noisy pictures (one when `tiles` is 1: no gutter inside).
    fn gallery(tiles: u32) -> Rgb {
        let (w, h) = (400u32, 800u32);
        let mut rgba = vec![0u8; (w * h * 4) as usize];
        let (frame_x, frame_y, side) = (0u32, 200u32, 400u32);
        let tile = side / tiles;
        for y in frame_y..frame_y + side {
            for x in frame_x..frame_x + side {
                let (tx, ty) = ((x - frame_x) % tile, (y - frame_y) % tile);
                let in_gutter = tiles > 1 && (tx < 16 || ty < 16);
                let v = if in_gutter {
                    [120, 120, 120]
                } else {
                    [((x * 37 + y * 91) % 251) as u8, ((x * 13) % 256) as u8, ((y * 7) % 256) as u8]
                };
                let i = ((y * w + x) * 4) as usize;
                rgba[i..i + 3].copy_from_slice(&v);
            }
        }
        Rgb::from_rgba(w, h, &rgba)
    }

    #[test]
    fn tiles_joined_by_their_frame_are_cut_apart_and_one_large_picture_is_kept_whole() {
        let tiles = pictures(&gallery(2), 800, &[], 24.0);
        assert_eq!(
            tiles,
            vec![[16.0, 216.0, 200.0, 400.0], [216.0, 216.0, 400.0, 400.0], [16.0, 416.0, 200.0, 600.0], [216.0, 416.0, 400.0, 600.0]]
        );
        assert_eq!(pictures(&gallery(1), 800, &[], 24.0), vec![[0.0, 200.0, 400.0, 600.0]], "half the screen in one picture, whole");
    }

    #[test]
    fn one_letter_read_inside_a_picture_is_its_texture_and_a_word_or_a_letter_elsewhere_is_text() {
        // The 400 x 800 screen of `gallery(1)`: one photo over its middle half.
        let shot = gallery(1);
        let screen = Screen::from_root("s", "p", "", 400, 800, None);
        let line = |text: &str, bounds: [i32; 4]| TextLine { text: text.into(), bounds, confidence: 70.0 };
        let lines = [line("4", [100, 300, 116, 320]), line("Summer sale", [100, 340, 300, 370]), line("A", [40, 700, 56, 720])];
        let texts: Vec<String> =
            read(&shot, [0, 0], &screen, 400, &lines, false).into_iter().map(|n| n.text).filter(|t| !t.is_empty()).collect();
        assert_eq!(texts, ["Summer sale", "A"]);
    }

    #[test]
    fn a_large_webview_of_a_screen_that_speaks_is_read_and_a_large_image_is_not() {
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 100, 200]);
        for (i, t) in ["Back", "Reload", "Menu"].iter().enumerate() {
            root.children
                .push(UiNode { text: (*t).into(), ..UiNode::new("android.widget.Button", [i as i32 * 30, 0, i as i32 * 30 + 30, 20]) });
        }
        root.children.push(UiNode::new("android.webkit.WebView", [0, 20, 100, 200]));
        root.children.push(UiNode::new("android.widget.ImageView", [0, 20, 100, 200]));
        root.children.push(UiNode::new("android.webkit.WebView", [0, 0, 10, 10]));
        let mut screen = Screen::from_root("s", "p", "", 100, 200, Some(root));
        assert!(unread_parts(&screen).is_empty(), "no screenshot, nothing to read");
        screen.screenshot = Some("s.png".into());
        assert_eq!(unread_parts(&screen), vec![[0, 20, 100, 200]]);
    }

    #[test]
    fn a_hierarchy_with_almost_nothing_to_say_is_opaque() {
        let mut screen = Screen::from_root("s", "p", "", 100, 200, Some(UiNode::new("android.view.SurfaceView", [0, 0, 100, 200])));
        screen.screenshot = Some("s.png".into());
        assert!(is_opaque(&screen));
        let root = screen.root.as_mut().unwrap();
        for (i, t) in ["Sign in", "Email", "Password"].iter().enumerate() {
            root.children
                .push(UiNode { text: (*t).into(), ..UiNode::new("android.widget.TextView", [0, i as i32 * 20, 100, i as i32 * 20 + 20]) });
        }
        assert!(!is_opaque(&screen));
    }
}
