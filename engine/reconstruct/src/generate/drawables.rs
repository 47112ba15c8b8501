//! Pictures drawn inside a text's own box: Android's compound drawables (a tab's icon above
//! its label, a drawer row's icon before its words). The hierarchy names no view for them, so
//! without this they are lost. Each is cut from the screenshot as the text's decorative
//! picture (drawn, no element of the UI tree), and the text keeps to the rest of its box.
//!
//! A picture is told from words by its shape: a run of strokes set apart from the text (by a
//! row gap above its one line, or a gap of three fifths of its height before it) that is
//! taller than the text's strokes by a sixth or more and about as wide as tall.

use std::collections::BTreeMap;

use super::crops::{pixel_box, unlike};
use super::widgets::{Drawable, Side, Widget, WidgetKind};
use crate::visual::{channel_medians, Rgb};

/// A picture is taller than the text's strokes by this much or more.
const TALLER: f64 = 7.0 / 6.0;
/// A picture is at most this many times as wide as tall, and as tall as wide (a line of
/// words is wider).
const SQUARISH: f64 = 2.0;
/// A run of strokes a fifth as tall (or wide) as the tallest, or less, is a line drawn along
/// the box, no text or picture.
const THIN: usize = 5;
/// The smallest box that may hold a picture and a text, in screenshot pixels a side.
const MIN_SIDE_PX: u32 = 8;

/// Runs of `true` in `marks`, as half-open ranges; gaps of at most `gap` inside a run join it.
fn runs(marks: &[bool], gap: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, _) in marks.iter().enumerate().filter(|(_, m)| **m) {
        match out.last_mut() {
            Some(last) if i - last.1 <= gap => last.1 = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

/// The strokes of a box: which of its pixels are unlike the colour most of it is, row by row.
struct Strokes {
    w: usize,
    h: usize,
    inked: Vec<bool>,
}

impl Strokes {
    /// The strokes over the colour most of the box is (a divider along its edge is a stroke).
    fn read(shot: &Rgb, [x1, y1, x2, y2]: [u32; 4]) -> Option<Strokes> {
        let pixels: Vec<[u8; 3]> = (y1..y2).flat_map(|y| (x1..x2).map(move |x| (x, y))).map(|(x, y)| shot.at(x, y)).collect();
        let ground = channel_medians(&pixels)?;
        let (w, h) = ((x2 - x1) as usize, (y2 - y1) as usize);
        Some(Strokes { w, h, inked: pixels.into_iter().map(|c| unlike(c, ground)).collect() })
    }

    fn at(&self, x: usize, y: usize) -> bool {
        self.inked[y * self.w + x]
    }

    /// The rows of `ys` with strokes in the columns `xs`, and the columns of `xs` with strokes
    /// in the rows `ys`.
    fn marks(&self, xs: (usize, usize), ys: (usize, usize)) -> (Vec<bool>, Vec<bool>) {
        let rows = (ys.0..ys.1).map(|y| (xs.0..xs.1).any(|x| self.at(x, y))).collect();
        let cols = (xs.0..xs.1).map(|x| (ys.0..ys.1).any(|y| self.at(x, y))).collect();
        (rows, cols)
    }

    /// The rows `ys` without those at its ends drawn as one solid stroke (an underline
    /// touching the words above it): a row of letters has gaps between them.
    fn without_solid_rows(&self, (mut y0, mut y1): (usize, usize)) -> (usize, usize) {
        // One run at least twice as long as the line is tall: no letter is that wide.
        let long = 2 * (y1 - y0);
        let solid = |y: usize| matches!(runs(&(0..self.w).map(|x| self.at(x, y)).collect::<Vec<_>>(), 0)[..], [(a, b)] if b - a >= long);
        while y1 > y0 + 1 && solid(y1 - 1) {
            y1 -= 1;
        }
        while y1 > y0 + 1 && solid(y0) {
            y0 += 1;
        }
        (y0, y1)
    }

    /// The bounding box `[x1, y1, x2, y2]` of the strokes inside the given box, if any.
    fn bounds(&self, xs: (usize, usize), ys: (usize, usize)) -> Option<[usize; 4]> {
        let (rows, cols) = self.marks(xs, ys);
        let (r0, r1) = (rows.iter().position(|m| *m)?, rows.iter().rposition(|m| *m)?);
        let (c0, c1) = (cols.iter().position(|m| *m)?, cols.iter().rposition(|m| *m)?);
        Some([xs.0 + c0, ys.0 + r0, xs.0 + c1 + 1, ys.0 + r1 + 1])
    }
}

/// Whether a run of strokes `[x1, y1, x2, y2]` has a picture's shape beside text strokes `text_h` tall.
fn picture_shaped(b: [usize; 4], text_h: usize) -> bool {
    let (w, h) = ((b[2] - b[0]) as f64, (b[3] - b[1]) as f64);
    h >= TALLER * text_h as f64 && w <= SQUARISH * h && h <= SQUARISH * w
}

/// A picture found in a text's box, in the box's pixels.
#[derive(Debug, PartialEq)]
struct Found {
    side: Side,
    /// `[x1, y1, x2, y2]` of its strokes.
    picture: [usize; 4],
    /// Where the rest of the box for the text begins on that side, from the box's edge: below
    /// the picture, centred on the text's line; after the picture, where its strokes begin.
    text_from: usize,
    /// How tall the text's strokes are (its line's, below a picture).
    line_px: usize,
}

/// The picture in a text's box (`px`, screenshot pixels).
/// `one_line`: the text is drawn on one line, so strokes above its line are no words;
/// `letters`: how many letters it has.
fn find(shot: &Rgb, px: [u32; 4], one_line: bool, letters: usize) -> Option<Found> {
    if px[2] < px[0] + MIN_SIDE_PX || px[3] < px[1] + MIN_SIDE_PX {
        return None;
    }
    let s = Strokes::read(shot, px)?;
    let (rows, _) = s.marks((0, s.w), (0, s.h));
    // Lines of strokes; a thin one (a divider along the box, an underline) is no line.
    let mut lines = runs(&rows, 1);
    let tallest = lines.iter().map(|r| r.1 - r.0).max()?;
    lines.retain(|r| (r.1 - r.0) * THIN >= tallest && r.1 - r.0 >= 2);
    let (top, bottom) = (lines.first()?.0, lines.last()?.1);
    // Words are letters apart: a line of one solid stroke (a selected tab's underline) is none.
    let lettered = |xs: (usize, usize), ys: (usize, usize)| letters < 2 || runs(&s.marks(xs, ys).1, 0).len() >= 2;
    // The label is the last line of letters (below it, at most a selected tab's underline),
    // with one line above it: several are a wrapped text's.
    let trimmed: Vec<(usize, usize)> = lines.iter().map(|l| s.without_solid_rows(*l)).collect();
    let label = trimmed.iter().rposition(|l| lettered((0, s.w), *l)).filter(|&i| i == 1);
    if let (true, Some(i)) = (one_line, label) {
        let label = trimmed[i];
        let above = s.bounds((0, s.w), (top, label.0))?;
        if picture_shaped(above, label.1 - label.0) {
            // The text is centred in what is left below: that rest centred on its line.
            return Some(Found {
                side: Side::Above,
                picture: above,
                text_from: (label.0 + label.1).saturating_sub(s.h).max(above[3]),
                line_px: label.1 - label.0,
            });
        }
    }
    // Columns split by gaps of three fifths of the strokes' height: not spaces between words.
    let (_, cols) = s.marks((0, s.w), (top, bottom));
    let mut parts = runs(&cols, ((bottom - top) * 3 / 5).max(2));
    parts.retain(|r| (r.1 - r.0) * THIN >= bottom - top);
    if parts.len() >= 2 {
        let picture = s.bounds((parts[0].0, parts[0].1), (top, bottom))?;
        let text = s.bounds((parts[1].0, parts[parts.len() - 1].1), (top, bottom))?;
        if picture_shaped(picture, text[3] - text[1]) && lettered((text[0], text[2]), (top, bottom)) {
            return Some(Found { side: Side::Before, picture, text_from: text[0], line_px: text[3] - text[1] });
        }
    }
    None
}

/// Cuts the picture drawn inside each text's box out of the screenshot (`rows`: its rows that
/// show the screen) into `images`, and gives the text its `drawable`; a text with a picture
/// above its line is measured by that line alone.
pub(crate) fn cut(widgets: &mut [Widget], shot: &Rgb, rows: u32, screen: &str, images: &mut BTreeMap<String, Vec<u8>>) {
    for w in widgets.iter_mut() {
        w.walk_mut(&mut |w| {
            // A row merged from another visit has no ink here: its box is of another screenshot.
            if w.kind != WidgetKind::Text || w.text.trim().is_empty() || !w.children.is_empty() || w.ink.is_none() {
                return;
            }
            let px = pixel_box(w.source_box, shot, rows);
            let letters = w.text.chars().filter(|c| c.is_alphanumeric()).count();
            let Some(Found { side, picture: b, text_from, line_px }) = find(shot, px, !w.text.contains('\n'), letters) else { return };
            // One pixel of margin around the strokes keeps their anti-aliased edge.
            let (bw, bh) = ((px[2] - px[0]) as usize, (px[3] - px[1]) as usize);
            let b = [b[0].saturating_sub(1), b[1].saturating_sub(1), (b[2] + 1).min(bw), (b[3] + 1).min(bh)];
            let as_u32 = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
            let Some(png) = shot
                .crop(px[0] + as_u32(b[0]), px[1] + as_u32(b[1]), as_u32(b[2] - b[0]), as_u32(b[3] - b[1]))
                .and_then(|c| c.png_bytes(png::Compression::Best).ok())
            else {
                return;
            };
            let path = format!("images/{screen}__{}_drawable.png", w.id);
            images.insert(path.clone(), png);
            let r = w.rect;
            let (sx, sy) = (r[2] / bw as f64, r[3] / bh as f64);
            let rect = [r[0] + b[0] as f64 * sx, r[1] + b[1] as f64 * sy, (b[2] - b[0]) as f64 * sx, (b[3] - b[1]) as f64 * sy];
            let inset = match side {
                Side::Above => text_from as f64 * sy,
                Side::Before => text_from as f64 * sx,
            };
            if side == Side::Above {
                // Its one line is the label's, not the underline of a selected tab below it.
                if let Some(ink) = w.ink.as_mut() {
                    let line = u32::try_from(line_px).unwrap_or(u32::MAX);
                    (ink.lines, ink.stroke_px, ink.last_stroke_px, ink.pitch_px) = (1, line, line, 0);
                }
            }
            w.drawable = Some(Drawable { image: path, rect, side, inset });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white box `w` x `h` with dark bars `(x, y, width, height)`.
    fn drawn(w: u32, h: u32, bars: &[(u32, u32, u32, u32)]) -> Rgb {
        let mut pixels = vec![[255u8; 3]; (w * h) as usize];
        for &(x, y, bw, bh) in bars {
            for yy in y..y + bh {
                for xx in x..x + bw {
                    pixels[(yy * w + xx) as usize] = [40, 40, 40];
                }
            }
        }
        Rgb { width: w, height: h, pixels }
    }

    /// Letters: bars 3 px wide, 2 px apart, `height` tall, from `x` at `y`.
    fn word(x: u32, y: u32, letters: u32, height: u32) -> Vec<(u32, u32, u32, u32)> {
        (0..letters).map(|i| (x + 5 * i, y, 3, height)).collect()
    }

    #[test]
    fn an_icon_above_a_tabs_label_is_its_picture_and_the_label_begins_below_it() {
        // A 24 px icon above a 10 px label, in a 100 x 60 box.
        let mut bars = vec![(38, 6, 24, 24)];
        bars.extend(word(30, 40, 8, 10));
        let shot = drawn(100, 60, &bars);
        // The rest of the box for the label, 40..60 and 30..60, is centred on its line (40..50).
        assert_eq!(
            find(&shot, [0, 0, 100, 60], true, 8),
            Some(Found { side: Side::Above, picture: [38, 6, 62, 30], text_from: 30, line_px: 10 })
        );
        // Two lines of words of one size are no picture, nor is the same with one line asked.
        let mut lines = word(10, 10, 12, 10);
        lines.extend(word(10, 30, 12, 10));
        assert_eq!(find(&drawn(100, 60, &lines), [0, 0, 100, 60], true, 8), None);
        assert_eq!(find(&shot, [0, 0, 100, 60], false, 8), None, "a text of several lines: strokes above are words");
        // A selected tab's underline below its label is no line of words.
        let mut underlined = bars.clone();
        underlined.push((30, 53, 40, 6));
        assert_eq!(
            find(&drawn(100, 60, &underlined), [0, 0, 100, 60], true, 8),
            Some(Found { side: Side::Above, picture: [38, 6, 62, 30], text_from: 30, line_px: 10 })
        );
        // An underline touching the label is no part of its line.
        let mut touching = bars.clone();
        touching.push((30, 50, 40, 3));
        assert_eq!(
            find(&drawn(100, 60, &touching), [0, 0, 100, 60], true, 8),
            Some(Found { side: Side::Above, picture: [38, 6, 62, 30], text_from: 30, line_px: 10 })
        );
        // A paragraph wrapped over four lines (no newline in its text) has no picture above.
        let paragraph: Vec<_> = (0..4).flat_map(|l| word(2, 2 + 14 * l, 10, 10)).collect();
        assert_eq!(find(&drawn(60, 60, &paragraph), [0, 0, 60, 60], true, 40), None);
        // A divider along the top of the tab bar is no part of the picture.
        bars.push((0, 0, 100, 1));
        assert_eq!(
            find(&drawn(100, 60, &bars), [0, 0, 100, 60], true, 8),
            Some(Found { side: Side::Above, picture: [38, 6, 62, 30], text_from: 30, line_px: 10 })
        );
    }

    #[test]
    fn an_icon_before_a_rows_words_is_its_picture_and_a_space_between_words_is_not() {
        // A 20 px icon, 20 px of padding, then two words of 12 px letters 8 px apart.
        let mut bars = vec![(4, 5, 20, 20)];
        bars.extend(word(44, 9, 4, 12));
        bars.extend(word(72, 9, 4, 12));
        let shot = drawn(120, 30, &bars);
        assert_eq!(
            find(&shot, [0, 0, 120, 30], true, 8),
            Some(Found { side: Side::Before, picture: [4, 5, 24, 25], text_from: 44, line_px: 12 })
        );
        // A row's divider along its bottom does not join the columns.
        bars.push((0, 29, 120, 1));
        assert_eq!(
            find(&drawn(120, 30, &bars), [0, 0, 120, 30], true, 8),
            Some(Found { side: Side::Before, picture: [4, 5, 24, 25], text_from: 44, line_px: 12 })
        );
        // Words alone: the gap between them is no picture's.
        let mut words = word(4, 9, 4, 12);
        words.extend(word(32, 9, 4, 12));
        assert_eq!(find(&drawn(120, 30, &words), [0, 0, 120, 30], true, 8), None);
        // A first letter as tall as the rest is a word, however far it stands.
        let mut spaced = word(4, 9, 1, 12);
        spaced.extend(word(44, 9, 4, 12));
        assert_eq!(find(&drawn(120, 30, &spaced), [0, 0, 120, 30], true, 8), None);
    }
}
