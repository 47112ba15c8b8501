//! Nodes a hierarchy calls visible that its screenshot does not show: a closed navigation
//! drawer reported open, a tab's page kept behind another. Where two texts of a hierarchy lie
//! on top of each other, only one can be on the screen; the screenshot's text (read with
//! Tesseract) says which, and the part of the tree holding only texts it does not show is
//! hidden.

use std::collections::BTreeMap;

use crate::ocr::TextLine;
use crate::see::{area, overlap};
use crate::trace::{Screen, UiNode};

/// Two texts whose boxes share at least this share of the smaller one cover each other.
const COVERS: f64 = 0.5;
/// A text is shown when at least this share of its words is read where it lies.
const WORDS_READ: f64 = 0.5;

/// What the screenshot says of one text of the hierarchy.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Read {
    Shown,
    NotShown,
    /// Too few letters to tell (a number, an icon's glyph).
    Unknown,
}

/// A text leaf: where it is in the tree and its box.
struct Text {
    path: Vec<usize>,
    bounds: [f64; 4],
    text: String,
}

/// Lower-case words of at least three letters or digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).map(str::to_lowercase).collect()
}

fn texts(screen: &Screen) -> Vec<Text> {
    let mut out = Vec::new();
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |path, n| {
            if n.visible
                && n.children.is_empty()
                && !n.text.trim().is_empty()
                && n.width() > 0
                && n.height() > 0
                && !crate::abstraction::is_system_chrome(n)
            {
                out.push(Text { path: path.to_vec(), bounds: n.bounds.map(f64::from), text: n.text.clone() });
            }
        });
    }
    out
}

/// Pairs of texts (indices into `texts`) that cover each other and say different things.
fn clashes(texts: &[Text]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            let (a, b) = (&texts[i], &texts[j]);
            let smaller = area(a.bounds).min(area(b.bounds));
            if smaller > 0.0 && overlap(a.bounds, b.bounds) >= COVERS * smaller && words(&a.text) != words(&b.text) {
                out.push((i, j));
            }
        }
    }
    out
}

/// Whether the lines read (in screen coordinates) show a text where it lies.
fn read_at(text: &Text, lines: &[([f64; 4], Vec<String>)]) -> Read {
    let wanted = words(&text.text);
    if wanted.is_empty() {
        return Read::Unknown;
    }
    let there: Vec<&String> = lines.iter().filter(|(b, _)| overlap(*b, text.bounds) > 0.0).flat_map(|(_, w)| w).collect();
    let found = wanted.iter().filter(|w| there.contains(w)).count();
    if found as f64 >= WORDS_READ * wanted.len() as f64 {
        Read::Shown
    } else {
        Read::NotShown
    }
}

/// Whether a screen has texts on top of each other, so its screenshot is worth reading.
pub(crate) fn has_clashes(screen: &Screen) -> bool {
    !clashes(&texts(screen)).is_empty()
}

/// What earlier screenshots showed of a text at a box: a trace shows the same screen many
/// times, and a screen all of whose texts were read before needs no reading again.
#[derive(Default)]
pub(crate) struct Reads(BTreeMap<(String, [i64; 4]), Read>);

fn key(t: &Text) -> (String, [i64; 4]) {
    (t.text.clone(), t.bounds.map(|v| v as i64))
}

/// Hides what the screenshot does not show of a screen whose texts clash. `read` gives the
/// lines read off its screenshot and the scale from their pixels to the screen's, when `reads`
/// does not already know every text. Returns how many parts of the tree were hidden.
pub(crate) fn hide_unshown(screen: &mut Screen, reads: &mut Reads, read: &mut dyn FnMut() -> Option<(Vec<TextLine>, f64)>) -> usize {
    let texts = texts(screen);
    let clashes = clashes(&texts);
    if clashes.is_empty() {
        return 0;
    }
    if !texts.iter().all(|t| reads.0.contains_key(&key(t))) {
        let Some((lines, scale)) = read() else { return 0 };
        let lines: Vec<([f64; 4], Vec<String>)> = lines.iter().map(|l| (l.bounds.map(|v| f64::from(v) * scale), words(&l.text))).collect();
        for t in &texts {
            reads.0.insert(key(t), read_at(t, &lines));
        }
    }
    let reads: Vec<Read> = texts.iter().map(|t| reads.0.get(&key(t)).copied().unwrap_or(Read::Unknown)).collect();
    let shown: Vec<&Vec<usize>> = texts.iter().zip(&reads).filter(|(_, r)| **r == Read::Shown).map(|(t, _)| &t.path).collect();
    let mut hidden: Vec<Vec<usize>> = Vec::new();
    for (i, j) in clashes {
        for (gone, kept) in [(i, j), (j, i)] {
            if reads[gone] != Read::NotShown || reads[kept] != Read::Shown {
                continue;
            }
            // The highest ancestor of the text not shown that holds no text shown.
            let path = &texts[gone].path;
            let depth = (1..=path.len()).find(|&d| !shown.iter().any(|s| s.starts_with(&path[..d]))).unwrap_or(path.len());
            let top = path[..depth].to_vec();
            if !hidden.iter().any(|h| top.starts_with(h)) {
                hidden.retain(|h| !h.starts_with(&top));
                hidden.push(top);
            }
        }
    }
    let Some(root) = screen.root.as_mut() else { return 0 };
    for path in &hidden {
        if let Some(node) = node_at(root, path) {
            hide(node);
        }
    }
    hidden.len()
}

fn node_at<'n>(root: &'n mut UiNode, path: &[usize]) -> Option<&'n mut UiNode> {
    let mut node = root;
    for &i in path {
        node = node.children.get_mut(i)?;
    }
    Some(node)
}

fn hide(node: &mut UiNode) {
    node.visible = false;
    for child in &mut node.children {
        hide(child);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str, b: [i32; 4]) -> UiNode {
        UiNode { text: t.into(), ..UiNode::new("android.widget.TextView", b) }
    }

    #[test]
    fn a_drawer_the_screenshot_does_not_show_is_hidden() {
        let mut page = UiNode::new("android.widget.ListView", [0, 200, 1000, 1000]);
        page.children = vec![text("About The Tour", [0, 200, 1000, 300]), text("Stage Map", [0, 400, 1000, 500])];
        let mut drawer = UiNode::new("android.widget.ListView", [0, 200, 600, 1000]);
        drawer.children = vec![text("Live Coverage", [0, 210, 600, 290]), text("42", [0, 410, 600, 490])];
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 1000, 1000]);
        root.children = vec![page, drawer];
        let mut screen = Screen::from_root("s", "p", "", 1000, 1000, Some(root));
        // The screenshot (half the size) shows the page's texts.
        let line = |t: &str, b: [i32; 4]| TextLine { text: t.into(), bounds: b, confidence: 90.0 };
        let lines = [line("About The Tour", [5, 110, 200, 140]), line("Stage Map", [5, 210, 150, 240])];
        assert!(has_clashes(&screen));
        assert_eq!(hide_unshown(&mut screen, &mut Reads::default(), &mut || Some((lines.to_vec(), 2.0))), 1);
        let root = screen.root.as_ref().unwrap();
        assert!(root.children[0].visible && root.children[0].children.iter().all(|c| c.visible));
        assert!(!root.children[1].visible && root.children[1].children.iter().all(|c| !c.visible));
    }

    #[test]
    fn nothing_is_hidden_when_the_screenshot_shows_neither_text() {
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 1000, 1000]);
        root.children = vec![text("About The Tour", [0, 200, 1000, 300]), text("Live Coverage", [0, 210, 600, 290])];
        let mut screen = Screen::from_root("s", "p", "", 1000, 1000, Some(root));
        assert_eq!(hide_unshown(&mut screen, &mut Reads::default(), &mut || Some((Vec::new(), 1.0))), 0);
        assert!(screen.root.as_ref().unwrap().children.iter().all(|c| c.visible));
    }
}
