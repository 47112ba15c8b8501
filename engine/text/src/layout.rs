//! Line breaking and glyph placement.

use crate::emoji::{advance_em, bitmap_box, match_emoji};
use crate::fonts::{face, FontFace, Weight};
use crate::icons::icon_codepoint;

/// Font size (device pixels per em) and weight.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct TextStyle {
    pub size_px: f32,
    pub weight: Weight,
}

/// One glyph placed relative to the top-left of the text box.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct PlacedGlyph {
    pub face: FontFace,
    pub glyph: u16,
    /// Pen x, snapped to whole pixels.
    pub x: f32,
    /// Baseline y, a whole pixel.
    pub baseline: f32,
    pub size_px: f32,
}

/// A character no bundled face covers: drawn as a visible box outline.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Placeholder {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// A colour emoji: its glyph in the emoji font and the box its bitmap is scaled into, in whole
/// pixels relative to the top-left of the text box.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct PlacedEmoji {
    pub glyph: u16,
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

/// The result of laying out a text (or an icon).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct TextLayout {
    /// Widest line, rounded up to a whole pixel (so re-laying out at this width never wraps).
    pub width: f32,
    /// `lines.len() * line_height`.
    pub height: f32,
    pub line_height: f32,
    pub lines: Vec<String>,
    pub glyphs: Vec<PlacedGlyph>,
    /// Colour emoji, drawn in their own colours (not the text colour).
    pub emoji: Vec<PlacedEmoji>,
    pub placeholders: Vec<Placeholder>,
    pub truncated: bool,
}

/// Line height for a font size: 1.25 × size, rounded to whole pixels.
pub fn line_height(size_px: f32) -> f32 {
    (size_px * 1.25).round().max(1.0)
}

/// Placeholder advance as a fraction of the font size.
const PLACEHOLDER_ADVANCE: f32 = 0.7;
/// Slack for float noise when the caller feeds a measured width back as `max_width`.
const FIT_EPSILON: f32 = 1e-3;
const ELLIPSIS: char = '\u{2026}';

/// Where a cell's glyph comes from.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    Face(FontFace),
    /// The colour emoji font; the cell may stand for a sequence of chars.
    Emoji,
    /// No face covers the char: a placeholder box.
    Missing,
}

#[derive(Clone, Copy)]
struct Cell {
    c: char,
    source: Source,
    glyph: u16,
    adv: f32,
    /// The chars of the text this cell stands for: `chars[first..first + len]`.
    first: usize,
    len: usize,
}

/// A visual line: cells[start..end] plus an optional trailing ellipsis.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    width: f32,
    ellipsis: bool,
}

#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Space,
    /// Breakable before and after (CJK ideographs, kana, hangul, emoji).
    Ideograph,
    Word,
    Newline,
}

fn is_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x2E80..=0x2FFF | 0x3000..=0x9FFF | 0xA000..=0xA4CF
        | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF
        | 0x1F000..=0x1FAFF | 0x20000..=0x3FFFF)
}

fn kind(cell: &Cell) -> Kind {
    if cell.source == Source::Emoji {
        return Kind::Ideograph;
    }
    match cell.c {
        '\n' => Kind::Newline,
        ' ' | '\t' => Kind::Space,
        c if is_ideograph(c) => Kind::Ideograph,
        _ => Kind::Word,
    }
}

/// Invisible format characters that would otherwise become placeholders.
fn is_ignorable(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{200B}'..='\u{200F}' | '\u{2060}' | '\u{FE0E}' | '\u{FE0F}' | '\u{FEFF}')
}

/// The bundled emoji font has nothing below this char, so plain text skips its lookup.
const FIRST_EMOJI: char = '\u{2000}';

/// The cell for the text at `chars[first..]` (one char, or an emoji sequence): the weight's
/// Roboto face, the emoji font (chars Roboto lacks, or any it has when U+FE0F asks for emoji),
/// the fallback face, else a placeholder.
fn resolve(chars: &[char], first: usize, primary: FontFace, size_px: f32) -> Cell {
    let c = if chars[first] == '\t' { ' ' } else { chars[first] };
    let cell = |source, glyph, adv| Cell { c, source, glyph, adv, first, len: 1 };
    let p = face(primary);
    let (g, adv) = p.lookup(c);
    if c >= FIRST_EMOJI {
        if let Some(m) = match_emoji(&chars[first..], g != 0) {
            return Cell { len: m.chars, ..cell(Source::Emoji, m.glyph, advance_em(m.glyph) * size_px) };
        }
    }
    if g != 0 {
        return cell(Source::Face(primary), g, adv * size_px / p.units_per_em);
    }
    let f = face(FontFace::Fallback);
    let (g, adv) = f.lookup(c);
    if g != 0 {
        return cell(Source::Face(FontFace::Fallback), g, adv * size_px / f.units_per_em);
    }
    cell(Source::Missing, 0, PLACEHOLDER_ADVANCE * size_px)
}

fn width(cells: &[Cell]) -> f32 {
    cells.iter().map(|c| c.adv).sum()
}

/// Greedy line breaking of one paragraph `cells[p0..p1]`, appending to `lines`.
/// Stops early once `limit` lines exist (the caller only needs to know there are more).
fn break_paragraph(cells: &[Cell], p0: usize, p1: usize, max: Option<f32>, lines: &mut Vec<Line>, limit: usize) {
    let fits = |w: f32| max.is_none_or(|m| w <= m + FIT_EPSILON);
    let mut start = p0;
    let mut end = p0;
    let mut w = 0.0f32;
    let mut i = p0;
    while i < p1 {
        if lines.len() >= limit {
            return;
        }
        let k = kind(&cells[i]);
        let ts = i;
        i += 1;
        if k == Kind::Word {
            while i < p1 && kind(&cells[i]) == Kind::Word {
                i += 1;
            }
        } else if k == Kind::Space {
            // Spaces are only committed together with the token that follows them.
            while i < p1 && kind(&cells[i]) == Kind::Space {
                i += 1;
            }
            continue;
        }
        let te = i;
        let pending = width(&cells[end..ts]);
        let tw = width(&cells[ts..te]);
        if fits(w + pending + tw) {
            w += pending + tw;
            end = te;
            continue;
        }
        if end > start {
            lines.push(Line { start, end, width: w, ellipsis: false });
        }
        // The token starts a fresh line; spaces before it are dropped.
        start = ts;
        end = ts;
        w = 0.0;
        if fits(tw) {
            w = tw;
            end = te;
            continue;
        }
        // A word longer than the line breaks between any two chars.
        for (k, cell) in cells.iter().enumerate().take(te).skip(ts) {
            if end > start && !fits(w + cell.adv) {
                lines.push(Line { start, end, width: w, ellipsis: false });
                if lines.len() >= limit {
                    return;
                }
                start = k;
                w = 0.0;
            }
            w += cell.adv;
            end = k + 1;
        }
    }
    lines.push(Line { start, end, width: w, ellipsis: false });
}

/// Vertical offset of the baseline inside a line box: the face's ascent/descent centred.
fn baseline_offset(f: FontFace, size_px: f32, line_h: f32) -> f32 {
    let fc = face(f);
    let scale = size_px / fc.units_per_em;
    let content = (fc.ascent - fc.descent) * scale;
    ((line_h - content) / 2.0 + fc.ascent * scale).round()
}

/// Characters of one text that are laid out at most: more than a 1440x3120 screen shows at the
/// smallest text size.
pub const MAX_LAID_OUT_CHARS: usize = 20_000;

/// Lays out text: breaks at spaces (and anywhere inside a CJK run or a word longer than the
/// line), honours '\n', stops after `max_lines` lines and ends the last one with '…' when text
/// was cut. `max_width = None` means one unbounded line per paragraph.
/// Font choice per character: the weight's Roboto face, else a colour emoji (see `resolve`),
/// else Fallback (CJK), else placeholder.
pub fn layout_text(text: &str, style: TextStyle, max_width: Option<f32>, max_lines: Option<usize>) -> TextLayout {
    let size = style.size_px.max(0.0);
    let primary = style.weight.face();
    let max_lines = max_lines.map_or(usize::MAX, |m| m.max(1));
    // One more line than allowed tells us whether text was cut.
    let limit = max_lines.saturating_add(1);
    // Text past what any screen shows is cut (and ends in '…'), so a huge string costs no more
    // than a screenful.
    let cut = text.len() > MAX_LAID_OUT_CHARS && text.chars().nth(MAX_LAID_OUT_CHARS).is_some();

    let chars: Vec<char> = text.chars().take(MAX_LAID_OUT_CHARS).collect();
    let mut cells: Vec<Cell> = Vec::with_capacity(chars.len());
    let mut lines: Vec<Line> = Vec::new();
    let mut p0 = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            break_paragraph(&cells, p0, cells.len(), max_width, &mut lines, limit);
            p0 = cells.len();
            if lines.len() >= limit {
                break;
            }
        } else if !is_ignorable(c) {
            let cell = resolve(&chars, i, primary, size);
            i += cell.len;
            cells.push(cell);
            continue;
        }
        i += 1;
    }
    if lines.len() < limit {
        break_paragraph(&cells, p0, cells.len(), max_width, &mut lines, limit);
    }

    let truncated = lines.len() > max_lines || (cut && !lines.is_empty());
    let ellipsis = resolve(&[ELLIPSIS], 0, primary, size);
    if truncated {
        lines.truncate(max_lines);
        let last = lines.last_mut().expect("max_lines >= 1");
        let room = max_width.map_or(f32::INFINITY, |m| m + FIT_EPSILON);
        // Trailing spaces never precede the ellipsis; drop chars until it fits.
        while last.end > last.start && (cells[last.end - 1].c == ' ' || width(&cells[last.start..last.end]) + ellipsis.adv > room) {
            last.end -= 1;
        }
        last.width = width(&cells[last.start..last.end]) + ellipsis.adv;
        last.ellipsis = true;
    }

    let lh = line_height(size);
    let bl = baseline_offset(primary, size, lh);
    let mut out = TextLayout {
        width: 0.0,
        height: lh * lines.len() as f32,
        line_height: lh,
        lines: Vec::with_capacity(lines.len()),
        glyphs: Vec::with_capacity(cells.len()),
        emoji: Vec::new(),
        placeholders: Vec::new(),
        truncated,
    };
    for (n, line) in lines.iter().enumerate() {
        let top = n as f32 * lh;
        let mut pen = 0.0f32;
        let mut s = String::new();
        let tail = line.ellipsis.then_some(&ellipsis);
        for cell in cells[line.start..line.end].iter().chain(tail) {
            let placeholder = Placeholder {
                x: (pen + 0.1 * size).round(),
                y: (top + bl - 0.7 * size).round(),
                w: (0.5 * size).round().max(1.0),
                h: (0.7 * size).round().max(1.0),
            };
            match cell.source {
                Source::Face(f) => {
                    s.push(cell.c);
                    if cell.c != ' ' {
                        out.glyphs.push(PlacedGlyph { face: f, glyph: cell.glyph, x: pen.round(), baseline: top + bl, size_px: size })
                    }
                }
                Source::Emoji => {
                    s.extend(&chars[cell.first..cell.first + cell.len]);
                    match bitmap_box(cell.glyph) {
                        Some(b) => out.emoji.push(PlacedEmoji {
                            glyph: cell.glyph,
                            x: pen.round() + (b.left * size).round(),
                            y: top + bl - (b.top * size).round(),
                            w: (b.width * size).round().max(1.0),
                            h: (b.height * size).round().max(1.0),
                        }),
                        None => out.placeholders.push(placeholder),
                    }
                }
                Source::Missing => {
                    s.push(cell.c);
                    out.placeholders.push(placeholder);
                }
            }
            pen += cell.adv;
        }
        out.lines.push(s);
        out.width = out.width.max(line.width);
    }
    out.width = out.width.ceil();
    out
}

/// Lays out one Material icon by name ("alarm", "wifi", ...), a square of `size_px`.
/// Unknown names give a placeholder box (never nothing).
pub fn layout_icon(name: &str, size_px: f32) -> TextLayout {
    let size = size_px.max(0.0);
    let mut out = TextLayout { width: size, height: size, line_height: size, lines: vec![name.to_string()], ..TextLayout::default() };
    let f = face(FontFace::Icons);
    let glyph = icon_codepoint(name).map_or(0, |c| f.lookup(c).0);
    if glyph != 0 {
        // Material icons span exactly ascent..descent, so this puts the em square in the box.
        let baseline = (size * f.ascent / (f.ascent - f.descent)).round();
        out.glyphs.push(PlacedGlyph { face: FontFace::Icons, glyph, x: 0.0, baseline, size_px: size });
    } else {
        let inset = (size * 0.1).round();
        out.placeholders.push(Placeholder { x: inset, y: inset, w: (size - 2.0 * inset).max(1.0), h: (size - 2.0 * inset).max(1.0) });
    }
    out
}
