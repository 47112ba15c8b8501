//! Text as its screenshot draws it: the colour of its ink and where in its box it sits.
//!
//! A text's box is mostly its background; the pixels far from that background are its
//! strokes. Their colour is the text's colour (white on a green banner, blue for a link), and
//! the columns they cover say whether the app centred the text in its box or pushed it to
//! the end.

use serde::{Deserialize, Serialize};

use crate::visual::{channel_medians, Rgb};

/// How far (sum of channel differences) a pixel must be from the box's background to be ink.
const INK_DISTANCE: u32 = 120;
/// The least share of a box's pixels that must be ink for the box to be read at all.
const MIN_INK_SHARE: f64 = 0.005;
/// Pixels looked at in one box, at most (larger boxes are sampled on a grid).
const MAX_SAMPLES: u64 = 60_000;
/// Text whose ink spans more than this share of its box's width fills it: no alignment.
const FILLS_BOX: f64 = 0.8;

/// Where a text sits in its box, when not at its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextAlign {
    Center,
    End,
}

impl TextAlign {
    /// The layout format's `text_align` value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            TextAlign::Center => "center",
            TextAlign::End => "end",
        }
    }
}

/// The look of a text read off its screenshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ink {
    /// The colour of its strokes.
    pub colour: [u8; 3],
    /// The colour they are drawn on (the box's median).
    #[serde(default)]
    pub ground: Option<[u8; 3]>,
    /// Where it sits in its box (`None`: at the start, or filling it).
    pub align: Option<TextAlign>,
    /// Its lines of strokes (runs of rows with strokes, a fifth as tall as the tallest or more).
    #[serde(default)]
    pub lines: usize,
    /// How tall a line's strokes are (the median line, and the last), in screenshot pixels.
    #[serde(default)]
    pub stroke_px: u32,
    #[serde(default)]
    pub last_stroke_px: u32,
    /// From one line's top to the next one's (the median), in screenshot pixels; 0 for one line.
    #[serde(default)]
    pub pitch_px: u32,
    /// The box's height in screenshot pixels, what the two above are measured against.
    #[serde(default)]
    pub box_px: u32,
    /// The width of the text's strokes (without an icon beside them), and the box's width, in
    /// screenshot pixels.
    #[serde(default)]
    pub span_px: u32,
    #[serde(default)]
    pub box_w_px: u32,
}

impl Ink {
    /// The width its strokes span, in the box's units (`box_width`: the box's width in them).
    pub(crate) fn span(&self, box_width: f64) -> Option<f64> {
        (self.box_w_px > 0 && self.span_px > 0).then(|| f64::from(self.span_px) * box_width / f64::from(self.box_w_px))
    }

    /// The sizes (in the box's units: `box` is the box's width and height in them) the text
    /// may have been drawn at, likeliest first: from its line pitch when it has several lines
    /// (so lines land where the app drew them, at the engine's line height of 1.25 sizes); from
    /// its strokes' height and the share of an em its letters span (capitals and ascenders reach
    /// 0.73 em above the baseline, lowercase 0.53, descenders 0.21 below); from its last line's
    /// strokes (an icon above a tab's label is a line of strokes too). The box's height sets the
    /// scale; where its width sets another one (a screen of another shape, stretched to the
    /// phone's), the same sizes at the width's scale follow: glyphs keep their shape.
    pub(crate) fn drawn_sizes(&self, text: &str, (box_width, box_height): (f64, f64)) -> Vec<f64> {
        if self.box_px == 0 {
            return Vec::new();
        }
        let tall_unit = box_height / f64::from(self.box_px);
        let mut units = vec![tall_unit];
        if self.box_w_px > 0 {
            let wide_unit = box_width / f64::from(self.box_w_px);
            if (wide_unit - tall_unit).abs() > 0.05 * tall_unit {
                units.push(wide_unit);
            }
        }
        let em = em_share(text);
        // One word is never broken over lines: above its last line of strokes is something
        // else (a tab's icon above its label).
        let one_word = one_word(text);
        let strokes: &[u32] = if one_word && self.lines >= 2 { &[self.last_stroke_px] } else { &[self.stroke_px, self.last_stroke_px] };
        let mut sizes = Vec::new();
        for unit in units {
            if self.lines >= 2 && self.pitch_px > 0 && !one_word {
                sizes.push(f64::from(self.pitch_px) * unit / 1.25);
            }
            if let Some(em) = em {
                for &stroke in strokes {
                    if stroke > 0 {
                        sizes.push(f64::from(stroke) * unit / em);
                    }
                }
            }
        }
        sizes
    }

    /// Whether the screenshot shows `text` in capitals (Android's `textAllCaps`, the default
    /// of buttons) where the hierarchy says it as written: one line of strokes whose height
    /// over width is that of the capitals, nearer it than that of the text as written. The
    /// ratio holds at any size and in the screenshot's own pixels, whatever the screen's shape.
    pub(crate) fn shows_capitals(&self, text: &str) -> bool {
        let capitals = text.to_uppercase();
        if self.lines != 1 || capitals == text || self.span_px == 0 || self.stroke_px == 0 {
            return false;
        }
        let measured = f64::from(self.stroke_px) / f64::from(self.span_px);
        // Height over width of a text (the em share its letters span over its width in ems),
        // laid out large so that pixel rounding does not count.
        let shape = |t: &str| Some(em_share(t)? * 100.0 / width_px(t, 100.0).max(f64::EPSILON));
        let miss = |t: &str| shape(t).map(|r| (r / measured).ln().abs());
        match (miss(&capitals), miss(text)) {
            (Some(caps), Some(as_written)) => caps < as_written && caps <= CAPITALS_FIT,
            _ => false,
        }
    }
}

/// How far the capitals' height over width may be from the strokes' (a log ratio: 15%).
const CAPITALS_FIT: f64 = 0.14;

/// The share of an em the strokes of `text` span from top to bottom: capitals and ascenders
/// reach 0.73 em above the baseline, lowercase 0.53, descenders 0.21 below; `None` without
/// letters or digits.
fn em_share(text: &str) -> Option<f64> {
    let letters: Vec<char> = text.chars().filter(|c| c.is_alphanumeric()).collect();
    (!letters.is_empty()).then(|| {
        let tall = letters.iter().any(|c| c.is_uppercase() || c.is_ascii_digit() || "bdfhiklt".contains(*c) || !c.is_ascii());
        let deep = letters.iter().any(|c| "gjpqy".contains(*c) || !c.is_ascii());
        (if tall { 0.73 } else { 0.53 }) + if deep { 0.21 } else { 0.0 }
    })
}

/// The width of `text` on one line at `size_px` pixels, in pixels.
fn width_px(text: &str, size_px: f32) -> f64 {
    use phoneworld_text::{layout_text, TextStyle, Weight};
    f64::from(layout_text(text, TextStyle { size_px, weight: Weight::Regular }, None, Some(1)).width)
}

fn distance(a: [u8; 3], b: [u8; 3]) -> u32 {
    (0..3).map(|c| u32::from(a[c].abs_diff(b[c]))).sum()
}

/// A short word of one script with spaces (not a paragraph of CJK or a URL, which wrap
/// without spaces): never broken over lines.
pub(crate) fn one_word(text: &str) -> bool {
    let text = text.trim();
    !text.contains(char::is_whitespace) && text.chars().count() <= 20 && text.is_ascii()
}

/// The ink of the text in the box `b` (fractions of the screenshot, 0..1), if the box holds
/// enough pixels unlike its background to be read.
pub(crate) fn ink_of(shot: &Rgb, b: [f64; 4]) -> Option<Ink> {
    let background = shot.median_color(b[0], b[1], b[2], b[3])?;
    let (w, h) = (f64::from(shot.width), f64::from(shot.height));
    let x1 = (b[0].clamp(0.0, 1.0) * w) as u32;
    let x2 = (b[2].clamp(0.0, 1.0) * w) as u32;
    let y1 = (b[1].clamp(0.0, 1.0) * h) as u32;
    let y2 = (b[3].clamp(0.0, 1.0) * h) as u32;
    if x2 <= x1 || y2 <= y1 {
        return None;
    }
    let pixels = u64::from(x2 - x1) * u64::from(y2 - y1);
    let stride = ((pixels as f64 / MAX_SAMPLES as f64).sqrt().ceil() as u32).max(1);
    let (cols, rows) = ((x2 - x1).div_ceil(stride) as usize, (y2 - y1).div_ceil(stride) as usize);
    // The sampled grid: which samples are strokes.
    let mut inked = vec![false; cols * rows];
    let mut strokes: Vec<(u32, [u8; 3], usize, usize)> = Vec::new();
    for (r, y) in (y1..y2).step_by(stride as usize).enumerate() {
        for (c, x) in (x1..x2).step_by(stride as usize).enumerate() {
            let p = shot.at(x, y);
            let d = distance(p, background);
            if d > INK_DISTANCE {
                strokes.push((d, p, r, c));
                inked[r * cols + c] = true;
            }
        }
    }
    if strokes.is_empty() || (strokes.len() as f64) < MIN_INK_SHARE * (cols * rows) as f64 {
        return None;
    }
    // The colour is read inside the bands along the box's edges that are another colour
    // whole (a raised button's insets and shadow): strokes never fill a line of their box.
    let (inner_rows, inner_cols) = inside_edge_bands(&inked, cols, rows);
    let mut inside: Vec<(u32, [u8; 3])> =
        strokes.iter().filter(|s| inner_rows.contains(&s.2) && inner_cols.contains(&s.3)).map(|s| (s.0, s.1)).collect();
    if inside.is_empty() {
        inside = strokes.iter().map(|s| (s.0, s.1)).collect();
    }
    // The strongest half of the strokes: anti-aliased edges blend into the background.
    inside.sort_by_key(|s| std::cmp::Reverse(s.0));
    inside.truncate(inside.len().div_ceil(2));
    let colour = channel_medians(&inside.iter().map(|(_, p)| *p).collect::<Vec<_>>())?;
    let all_columns = 0..cols;
    let column_inked = |c: usize| (0..rows).any(|r| inked[r * cols + c]);
    let (first, last) = (all_columns.clone().find(|&c| column_inked(c))?, all_columns.rev().find(|&c| column_inked(c))?);
    let width = cols as f64;
    let (before, after) = (first as f64, (cols - 1 - last) as f64);
    let align = if width - before - after > FILLS_BOX * width || before < 0.05 * width {
        None
    } else if (before - after).abs() <= 0.3 * (before + after) {
        Some(TextAlign::Center)
    } else if after < before {
        Some(TextAlign::End)
    } else {
        None
    };
    // The text's columns: of the runs of inked columns (gaps of three fifths of the tallest
    // line split them: an icon beside the label, not a space between words), the widest.
    // Only rows of lines count: a border or a speck across the box would join every column.
    let all_lines = row_runs(&inked, cols, rows, 0..cols);
    let mut in_lines = vec![false; rows];
    for &(start, len) in &all_lines {
        in_lines[start..start + len].fill(true);
    }
    // A space between words is a third of a line's strokes; an icon sits a padding (two
    // thirds of its height or more) away from its label.
    let gap = (all_lines.iter().map(|r| r.1).max().unwrap_or(1) * 3 / 5).max(2);
    let text_columns = column_runs(&inked, cols, &in_lines, gap).into_iter().max_by_key(|r| r.len()).unwrap_or(first..last + 1);
    let lines = row_runs(&inked, cols, rows, text_columns.clone());
    let median = |mut v: Vec<usize>| {
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0)
    };
    let px = |samples: usize| samples as u32 * stride;
    Some(Ink {
        colour,
        ground: Some(background),
        align,
        lines: lines.len(),
        stroke_px: px(median(lines.iter().map(|r| r.1).collect())),
        last_stroke_px: px(lines.last().map_or(0, |r| r.1)),
        pitch_px: px(median(lines.windows(2).map(|w| w[1].0 - w[0].0).collect())),
        box_px: y2 - y1,
        span_px: px(text_columns.len()),
        box_w_px: x2 - x1,
    })
}

/// The sampled rows and columns inside the bands along the grid's edges where most samples
/// are unlike the background.
fn inside_edge_bands(inked: &[bool], cols: usize, rows: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let row_band = |r: usize| 2 * (0..cols).filter(|&c| inked[r * cols + c]).count() > cols;
    let col_band = |c: usize| 2 * (0..rows).filter(|&r| inked[r * cols + c]).count() > rows;
    let inner = |len: usize, band: &dyn Fn(usize) -> bool| {
        let start = (0..len).find(|&i| !band(i)).unwrap_or(len);
        let end = (start..len).rev().find(|&i| !band(i)).map_or(start, |i| i + 1);
        start..end
    };
    (inner(rows, &row_band), inner(cols, &col_band))
}

/// Runs of sampled rows with strokes in `columns`, as (first row, rows): the lines of a text
/// (a run a fifth as tall as the tallest or more; lower ones are specks).
fn row_runs(inked: &[bool], cols: usize, rows: usize, columns: std::ops::Range<usize>) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for r in 0..=rows {
        let any = r < rows && columns.clone().any(|c| inked[r * cols + c]);
        match (any, start) {
            (true, None) => start = Some(r),
            (false, Some(s)) => {
                runs.push((s, r - s));
                start = None;
            }
            _ => {}
        }
    }
    let tallest = runs.iter().map(|r| r.1).max().unwrap_or(0);
    runs.retain(|r| 5 * r.1 >= tallest);
    runs
}

/// Runs of sampled columns with strokes in the `rows` marked, split where `gap` or more
/// columns in a row have none.
fn column_runs(inked: &[bool], cols: usize, rows: &[bool], gap: usize) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    let mut empty = 0;
    for c in 0..cols {
        if rows.iter().enumerate().any(|(r, &counted)| counted && inked[r * cols + c]) {
            match runs.last_mut() {
                Some(run) if empty < gap => run.end = c + 1,
                _ => runs.push(c..c + 1),
            }
            empty = 0;
        } else {
            empty += 1;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ink of `text` drawn `size` pixels tall on one line (measured at ten times that),
    /// read as `lines` lines.
    fn line_of(text: &str, size: f64, lines: usize) -> Ink {
        let px = |v: f64| (v * 10.0).round() as u32;
        let width = |t: &str, size: f64| width_px(t, size as f32);
        Ink {
            colour: [0, 0, 0],
            ground: None,
            align: None,
            lines,
            stroke_px: px(em_share(text).unwrap() * size),
            last_stroke_px: 0,
            pitch_px: 0,
            box_px: px(size * 2.0),
            span_px: px(width(text, size)),
            box_w_px: px(width(text, size) * 2.0),
        }
    }

    #[test]
    fn a_label_drawn_in_capitals_is_told_from_one_drawn_as_written() {
        assert!(line_of("SIGN UP WITH EMAIL", 14.0, 1).shows_capitals("Sign up with Email"));
        assert!(!line_of("Sign up with Email", 14.0, 1).shows_capitals("Sign up with Email"));
        assert!(line_of("INVITE FRIENDS", 19.0, 1).shows_capitals("Invite Friends"), "at any size");
        assert!(!line_of("INVITE FRIENDS", 14.0, 2).shows_capitals("Invite Friends"), "two lines of strokes: not one label");
        assert!(!line_of("OK", 14.0, 1).shows_capitals("OK"), "nothing to tell");
    }

    /// A 200 x 40 grey box with a black bar (a word's strokes) over columns `from..to`.
    fn word_at(from: u32, to: u32, ink: [u8; 3]) -> Rgb {
        let mut img = Rgb { width: 200, height: 40, pixels: vec![[200, 200, 200]; 200 * 40] };
        for y in 12..28 {
            for x in from..to {
                if x % 3 != 0 {
                    img.pixels[(y * 200 + x) as usize] = ink;
                }
            }
        }
        img
    }

    #[test]
    fn the_ink_is_the_colour_of_the_strokes_and_where_they_sit() {
        let whole = [0.0, 0.0, 1.0, 1.0];
        let look = |img: &Rgb| ink_of(img, whole).map(|i| (i.colour, i.align));
        assert_eq!(look(&word_at(4, 60, [255, 255, 255])), Some(([255, 255, 255], None)));
        assert_eq!(look(&word_at(70, 130, [20, 40, 200])), Some(([20, 40, 200], Some(TextAlign::Center))));
        let word = ink_of(&word_at(70, 130, [0, 0, 0]), whole).unwrap();
        assert_eq!(word.lines, 1, "one line of strokes");
        assert_eq!(ink_of(&word_at(140, 196, [0, 0, 0]), whole).and_then(|i| i.align), Some(TextAlign::End));
        assert_eq!(ink_of(&word_at(2, 196, [0, 0, 0]), whole).and_then(|i| i.align), None, "a text that fills its box");
    }

    /// A 200 x 100 light box with bars of strokes: `(top, height, from column, to column)`.
    fn bars(bars: &[(u32, u32, u32, u32)]) -> Rgb {
        let mut img = Rgb { width: 200, height: 100, pixels: vec![[250, 250, 250]; 200 * 100] };
        for &(top, height, from, to) in bars {
            for y in top..top + height {
                for x in (from..to).filter(|x| x % 3 != 0) {
                    img.pixels[(y * 200 + x) as usize] = [20, 20, 20];
                }
            }
        }
        img
    }

    #[test]
    fn a_raised_buttons_label_is_read_inside_its_insets_and_shadow() {
        // An orange button with white strokes, drawn inset in a green box, a dark shadow below.
        let mut img = Rgb { width: 200, height: 60, pixels: vec![[76, 176, 80]; 200 * 60] };
        for y in 6..52 {
            for x in 4..196 {
                img.pixels[(y * 200 + x) as usize] = if y >= 48 { [40, 40, 40] } else { [254, 87, 34] };
            }
        }
        for y in 20..34 {
            for x in (60..140).filter(|x| x % 3 != 0) {
                img.pixels[(y * 200 + x) as usize] = [255, 255, 255];
            }
        }
        let ink = ink_of(&img, [0.0, 0.0, 1.0, 1.0]).unwrap();
        assert_eq!(ink.colour, [255, 255, 255], "the label's white, not the insets' green or the shadow");
    }

    #[test]
    fn the_size_a_text_was_drawn_at_comes_from_its_line_pitch_or_its_strokes() {
        // Two lines of strokes 16 px tall, 30 px apart, in a box 100 px tall.
        let two = ink_of(&bars(&[(10, 16, 10, 180), (40, 16, 10, 180)]), [0.0, 0.0, 1.0, 1.0]).unwrap();
        assert_eq!((two.lines, two.stroke_px, two.pitch_px, two.box_px), (2, 16, 30, 100));
        // A box 50 dp tall: 30 px of pitch is 15 dp, at the engine's line height of 1.25 sizes;
        // then the strokes' height over the em its letters span.
        let square = |side: f64| (side * f64::from(two.box_w_px) / f64::from(two.box_px), side);
        assert_eq!(two.drawn_sizes("two lines of words", square(50.0)), vec![12.0, 8.0 / 0.73, 8.0 / 0.73]);
        // A screen of another shape stretched 1.25 times taller: the same at the width's scale follow.
        let stretched = two.drawn_sizes("two lines of words", (square(50.0).0, 62.5));
        assert_eq!(stretched[3..], [12.0, 8.0 / 0.73, 8.0 / 0.73]);
        let one = Ink { lines: 1, pitch_px: 0, ..two };
        let size = |text: &str| one.drawn_sizes(text, square(100.0)).first().map(|s| (s * 10.0).round() / 10.0);
        // Capitals span 0.73 em, lowercase 0.53, descenders add 0.21.
        assert_eq!(size("HELLO"), Some(21.9));
        assert_eq!(size("Happy"), Some(17.0));
        assert_eq!(size("ace"), Some(30.2));
        assert_eq!(size("..."), None, "no letters to measure");
    }

    #[test]
    fn an_icon_beside_or_above_a_label_is_not_the_labels_strokes() {
        // An icon 40 px tall at the left, a word 12 px tall 30 px right of it, a border along the top.
        let beside = ink_of(&bars(&[(0, 1, 0, 200), (20, 40, 4, 40), (34, 12, 70, 160)]), [0.0, 0.0, 1.0, 1.0]).unwrap();
        assert_eq!((beside.lines, beside.stroke_px, beside.span_px), (1, 12, 89));
        // An icon above the label: two lines, the last one the label's.
        let above = ink_of(&bars(&[(10, 40, 80, 120), (70, 12, 60, 140)]), [0.0, 0.0, 1.0, 1.0]).unwrap();
        assert_eq!((above.lines, above.last_stroke_px, above.span_px), (2, 12, 79));
        // A one-word label is sized from its own line alone, never from the pitch or the icon.
        let unit = |side: f64| (side * f64::from(above.box_w_px) / f64::from(above.box_px), side);
        assert_eq!(above.drawn_sizes("Activity", unit(100.0)), vec![12.0 / (0.73 + 0.21)]);
    }

    #[test]
    fn a_box_of_one_colour_has_no_ink() {
        let flat = Rgb { width: 50, height: 20, pixels: vec![[90, 160, 60]; 1000] };
        assert_eq!(ink_of(&flat, [0.0, 0.0, 1.0, 1.0]), None);
    }
}
