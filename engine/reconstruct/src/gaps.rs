//! Where a screenshot shows something the hierarchy has no node for: list rows that loaded
//! after the hierarchy was taken, a chart drawn by its container. Each 8-pixel cell of the
//! screenshot belongs to the innermost node over it; a cell unlike that node's own colour,
//! under a node that neither is a leaf nor speaks, is drawn content the hierarchy does not
//! name, unless a leaf drawn before that node covers it (a picture behind the page, seen
//! through the layouts over it). Such cells, joined where they lie close, are the gaps read
//! off the screenshot.

use std::collections::VecDeque;

use crate::abstraction::is_system_chrome;
use crate::see::{cell_differs, CELL};
use crate::trace::{Screen, UiNode};
use crate::visual::{rows_showing, Rgb};

/// Cells at most this share of the width apart join one gap (the space between words, lines
/// and rows).
const JOIN: f64 = 0.025;
/// A gap has at least this many cells of content...
const MIN_CELLS: usize = 24;
/// ...and a box of at least this share of the screen.
const MIN_SHARE: f64 = 0.01;
/// At most this many gaps are read on one screen (the largest).
const MAX_GAPS: usize = 6;

/// A node that paints cells: its box in screenshot pixels and whether it accounts for what
/// is drawn in it (a leaf draws its own content, a WebView or surface is read on its own; a
/// node that speaks names what it shows).
struct Painter {
    bounds: [f64; 4],
    accounts: bool,
    leaf: bool,
}

fn painters(root: &UiNode, scale: f64) -> Vec<Painter> {
    let mut out = Vec::new();
    root.walk(&mut Vec::new(), &mut |_, n| {
        if !n.visible || n.width() <= 0 || n.height() <= 0 || is_system_chrome(n) {
            return;
        }
        let speaks = !n.text.trim().is_empty() || !n.content_desc.trim().is_empty();
        let leaf = n.children.is_empty();
        out.push(Painter { bounds: n.bounds.map(|v| f64::from(v) * scale), accounts: speaks || leaf, leaf });
    });
    out
}

/// The box of the app's own content (`android:id/content`): the status and navigation bars
/// and the window's decor around it are the phone's.
fn app_content(root: &UiNode) -> Option<[i32; 4]> {
    let mut found = None;
    root.walk(&mut Vec::new(), &mut |_, n| {
        if found.is_none() && n.visible && n.resource_id == "android:id/content" {
            found = Some(n.bounds);
        }
    });
    found
}

/// The gaps of a screen: boxes in the screen's coordinates where its screenshot shows drawn
/// content no node of its hierarchy accounts for, largest first.
pub(crate) fn gaps(shot: &Rgb, screen: &Screen) -> Vec<[i32; 4]> {
    let Some(root) = &screen.root else { return Vec::new() };
    let rows = rows_showing(shot, screen.width, screen.height);
    let scale = f64::from(shot.width) / f64::from(screen.width.max(1));
    let painters = painters(root, scale);
    let content_box = app_content(root).map(|b| b.map(|v| f64::from(v) * scale));
    let (cols, lines) = (shot.width / CELL, rows / CELL);
    if cols == 0 || lines == 0 {
        return Vec::new();
    }
    // The innermost painter of each cell: later in tree order paints over earlier. A cell a
    // leaf drew (a picture behind the page) shows through the layouts over it: they draw
    // nothing of their own, so what it shows there is the leaf's.
    let mut owner: Vec<Option<usize>> = vec![None; (cols * lines) as usize];
    let mut leaf_under = vec![false; owner.len()];
    for (i, p) in painters.iter().enumerate() {
        let cx1 = (p.bounds[0] / f64::from(CELL)).ceil().max(0.0) as u32;
        let cy1 = (p.bounds[1] / f64::from(CELL)).ceil().max(0.0) as u32;
        let cx2 = ((p.bounds[2] / f64::from(CELL)).floor().max(0.0) as u32).min(cols);
        let cy2 = ((p.bounds[3] / f64::from(CELL)).floor().max(0.0) as u32).min(lines);
        for cy in cy1..cy2 {
            for cx in cx1..cx2 {
                owner[(cy * cols + cx) as usize] = Some(i);
                leaf_under[(cy * cols + cx) as usize] |= p.leaf;
            }
        }
    }
    let (w, h) = (f64::from(shot.width), f64::from(shot.height));
    let mut colours: Vec<Option<Option<[u8; 3]>>> = vec![None; painters.len()];
    let whole = shot.median_color(0.0, 0.0, 1.0, f64::from(rows) / h);
    let mut content = vec![false; owner.len()];
    for (k, cell) in owner.iter().enumerate() {
        let colour = match cell {
            Some(i) if painters[*i].accounts || leaf_under[k] => continue,
            Some(i) => *colours[*i].get_or_insert_with(|| {
                let b = painters[*i].bounds;
                shot.median_color(b[0] / w, b[1] / h, b[2] / w, b[3] / h)
            }),
            None => whole,
        };
        let Some(colour) = colour else { continue };
        let (cx, cy) = (k as u32 % cols, k as u32 / cols);
        let (x, y) = (f64::from(cx * CELL), f64::from(cy * CELL));
        if content_box.is_some_and(|b| x < b[0] || y < b[1] || x + f64::from(CELL) > b[2] || y + f64::from(CELL) > b[3]) {
            continue;
        }
        content[k] = cell_differs(shot, cx, cy, colour);
    }
    let mut found = clusters(&content, cols, lines);
    let min_area = MIN_SHARE * f64::from(cols) * f64::from(lines);
    found.retain(|(cells, b)| *cells >= MIN_CELLS && f64::from((b[2] - b[0]) * (b[3] - b[1])) >= min_area);
    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    found.truncate(MAX_GAPS);
    let to_screen = |v: u32| (f64::from(v * CELL) / scale).round() as i32;
    found.into_iter().map(|(_, b)| b.map(to_screen)).collect()
}

/// Clusters of content cells at most `JOIN` cells apart: how many cells each has and its box
/// in cells `[x1, y1, x2, y2]`.
fn clusters(content: &[bool], cols: u32, lines: u32) -> Vec<(usize, [u32; 4])> {
    let join = ((JOIN * f64::from(cols)).round() as i64).max(2);
    let mut seen = vec![false; content.len()];
    let mut out = Vec::new();
    for start in 0..content.len() {
        if !content[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        let mut queue = VecDeque::from([start]);
        let (mut b, mut cells) = ([u32::MAX, u32::MAX, 0, 0], 0);
        while let Some(k) = queue.pop_front() {
            let (cx, cy) = (k as u32 % cols, k as u32 / cols);
            cells += 1;
            b = [b[0].min(cx), b[1].min(cy), b[2].max(cx + 1), b[3].max(cy + 1)];
            for dy in -join..=join {
                for dx in -join..=join {
                    let (nx, ny) = (i64::from(cx) + dx, i64::from(cy) + dy);
                    if nx < 0 || ny < 0 || nx >= i64::from(cols) || ny >= i64::from(lines) {
                        continue;
                    }
                    let n = (ny * i64::from(cols) + nx) as usize;
                    if content[n] && !seen[n] {
                        seen[n] = true;
                        queue.push_back(n);
                    }
                }
            }
        }
        out.push((cells, b));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white 400 x 800 screenshot of a screen of the same size, with dark blocks painted in.
    fn shot(blocks: &[[u32; 4]]) -> Rgb {
        let mut rgba = vec![255u8; 400 * 800 * 4];
        for b in blocks {
            for y in b[1]..b[3] {
                for x in b[0]..b[2] {
                    let i = ((y * 400 + x) * 4) as usize;
                    rgba[i..i + 3].copy_from_slice(&[20, 20, 20]);
                }
            }
        }
        Rgb::from_rgba(400, 800, &rgba)
    }

    #[test]
    fn content_no_node_accounts_for_is_a_gap_and_a_leaf_over_it_is_not() {
        // A list 33 pixels tall whose rows (drawn lower down) the hierarchy missed, and a title.
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 400, 800]);
        root.children = vec![
            UiNode { text: "Results".into(), ..UiNode::new("android.widget.TextView", [16, 16, 200, 56]) },
            UiNode::new("android.widget.ListView", [0, 80, 400, 113]),
        ];
        let screen = Screen::from_root("s", "p", "", 400, 800, Some(root));
        let rows = [[16, 200, 300, 240], [16, 248, 200, 280], [16, 400, 300, 440], [16, 448, 200, 480]];
        let mut blocks = rows.to_vec();
        blocks.push([16, 16, 200, 56]);
        let gaps = gaps(&shot(&blocks), &screen);
        assert_eq!(gaps.len(), 2, "{gaps:?}");
        assert_eq!(gaps[0], [16, 200, 304, 280]);
        assert_eq!(gaps[1], [16, 400, 304, 480]);
    }

    #[test]
    fn a_screen_its_hierarchy_accounts_for_has_no_gap() {
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 400, 800]);
        root.children = vec![UiNode { text: "Results".into(), ..UiNode::new("android.widget.TextView", [16, 200, 300, 280]) }];
        let screen = Screen::from_root("s", "p", "", 400, 800, Some(root));
        assert!(gaps(&shot(&[[16, 200, 300, 280]]), &screen).is_empty());
    }

    #[test]
    fn a_picture_behind_the_page_shows_through_the_layouts_over_it_and_is_no_gap() {
        // A background image, then a layout over all of it with a title: what the screenshot
        // shows in the layout's box, away from the title, is the background's.
        let page = |background: bool| {
            let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 400, 800]);
            if background {
                root.children.push(UiNode::new("android.widget.ImageView", [0, 0, 400, 800]));
            }
            let mut layout = UiNode::new("android.widget.LinearLayout", [0, 0, 400, 800]);
            layout.children = vec![UiNode { text: "Welcome".into(), ..UiNode::new("android.widget.TextView", [16, 16, 200, 56]) }];
            root.children.push(layout);
            Screen::from_root("s", "p", "", 400, 800, Some(root))
        };
        let photo = shot(&[[16, 200, 300, 240], [40, 260, 380, 400]]);
        assert!(gaps(&photo, &page(true)).is_empty());
        assert_eq!(
            gaps(&photo, &page(false)),
            vec![[40, 256, 384, 400], [16, 200, 304, 240]],
            "with nothing behind the layout, its content is gaps"
        );
    }
}
