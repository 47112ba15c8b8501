//! The bundled colour emoji font (a subset of Noto Color Emoji: one strike of PNG bitmaps in
//! CBDT/CBLC). fontdue has no colour glyphs, so this face is read with ttf-parser: which chars
//! and sequences it covers (sequences are GSUB ligatures), their advances and their PNGs.

use std::sync::OnceLock;
use ttf_parser::gsub::SubstitutionSubtable;
use ttf_parser::GlyphId;

const ZWJ: char = '\u{200D}';
const VS15: char = '\u{FE0E}';
const VS16: char = '\u{FE0F}';
/// The longest sequence tried as a ligature (a family of four is 7 chars).
const MAX_SEQUENCE: usize = 10;

fn font() -> &'static ttf_parser::Face<'static> {
    static FACE: OnceLock<ttf_parser::Face<'static>> = OnceLock::new();
    FACE.get_or_init(|| {
        let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/fonts/NotoColorEmoji-Subset.ttf"));
        ttf_parser::Face::parse(bytes, 0).expect("bundled emoji font parses")
    })
}

/// Skin-tone modifiers: the subset has none, so they are absorbed into the emoji before them
/// (drawn in its default colour) instead of showing a box.
fn is_skin_tone(c: char) -> bool {
    matches!(c, '\u{1F3FB}'..='\u{1F3FF}')
}

/// One emoji found at the start of a run of chars.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct EmojiMatch {
    pub(crate) glyph: u16,
    /// Chars of the source it stands for (variation selectors and absorbed modifiers included).
    pub(crate) chars: usize,
}

/// The emoji at the start of `chars`, if it is drawn from the emoji font: a listed sequence
/// (ZWJ sequence, flag) as one glyph, else the first char alone. `primary_has` tells whether the
/// text face has a glyph for the first char: then it is an emoji only when followed by U+FE0F
/// (emoji presentation), as for ☺ or ♥. U+FE0E (text presentation) always keeps it text.
pub(crate) fn match_emoji(chars: &[char], primary_has: bool) -> Option<EmojiMatch> {
    let (&first, rest) = chars.split_first()?;
    let f = font();
    let g0 = f.glyph_index(first).filter(|g| g.0 != 0)?;
    let next = rest.first().copied();
    if next == Some(VS15) || (primary_has && next != Some(VS16)) || first == ZWJ {
        return None;
    }
    // The glyphs of the run (variation selectors skipped) and the char index after each.
    let mut glyphs = vec![g0];
    let mut ends = vec![1];
    for (i, &c) in rest.iter().enumerate().take(MAX_SEQUENCE * 2) {
        if c == VS16 {
            *ends.last_mut().expect("one glyph at least") = i + 2;
            continue;
        }
        match f.glyph_index(c).filter(|g| g.0 != 0) {
            Some(g) if glyphs.len() < MAX_SEQUENCE => {
                glyphs.push(g);
                ends.push(i + 2);
            }
            _ => break,
        }
    }
    let (glyph, used) = ligature(f, &glyphs).unwrap_or((g0, 1));
    let mut end = ends[used - 1];
    while chars.get(end).is_some_and(|&c| c == VS16 || is_skin_tone(c)) {
        end += 1;
    }
    Some(EmojiMatch { glyph: glyph.0, chars: end })
}

/// The longest GSUB ligature starting at `glyphs[0]`: its glyph and how many glyphs it replaces.
fn ligature(f: &ttf_parser::Face<'_>, glyphs: &[GlyphId]) -> Option<(GlyphId, usize)> {
    let gsub = f.tables().gsub?;
    let mut best: Option<(GlyphId, usize)> = None;
    for lookup in gsub.lookups {
        for sub in lookup.subtables.into_iter::<SubstitutionSubtable<'_>>() {
            let SubstitutionSubtable::Ligature(lig) = sub else { continue };
            let Some(set) = lig.coverage.get(glyphs[0]).and_then(|i| lig.ligature_sets.get(i)) else { continue };
            for l in set {
                let n = usize::from(l.components.len()) + 1;
                let matches = glyphs.len() >= n && l.components.into_iter().zip(&glyphs[1..]).all(|(a, b)| a == *b);
                if matches && best.is_none_or(|(_, m)| n > m) {
                    best = Some((l.glyph, n));
                }
            }
        }
    }
    best
}

/// Advance of an emoji glyph in ems.
pub(crate) fn advance_em(glyph: u16) -> f32 {
    let f = font();
    f32::from(f.glyph_hor_advance(GlyphId(glyph)).unwrap_or(0)) / f32::from(f.units_per_em())
}

/// Where an emoji's bitmap sits, in ems from the pen on the baseline (y down from the baseline
/// to the bitmap's top is `-top`).
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) struct BitmapBox {
    pub(crate) left: f32,
    pub(crate) top: f32,
    pub(crate) width: f32,
    pub(crate) height: f32,
}

pub(crate) fn bitmap_box(glyph: u16) -> Option<BitmapBox> {
    let img = font().glyph_raster_image(GlyphId(glyph), u16::MAX)?;
    let ppem = f32::from(img.pixels_per_em.max(1));
    Some(BitmapBox {
        left: f32::from(img.x) / ppem,
        top: (f32::from(img.y) + f32::from(img.height)) / ppem,
        width: f32::from(img.width) / ppem,
        height: f32::from(img.height) / ppem,
    })
}

/// The PNG file of an emoji glyph, as stored in the font (None for a glyph without a PNG
/// bitmap). The bytes are the bundled font's, so they are the same on every machine.
pub fn emoji_png(glyph: u16) -> Option<&'static [u8]> {
    let img = font().glyph_raster_image(GlyphId(glyph), u16::MAX)?;
    (img.format == ttf_parser::RasterImageFormat::PNG).then_some(img.data)
}
