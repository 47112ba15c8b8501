//! The bundled font files, each parsed once on first use.

use std::sync::OnceLock;

/// Which bundled font a glyph comes from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum FontFace {
    Regular,
    Medium,
    Bold,
    Icons,
    Fallback,
}

/// Text weight; each maps to one Roboto face.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub enum Weight {
    #[default]
    Regular,
    Medium,
    Bold,
}

impl Weight {
    /// The Roboto face used for this weight.
    pub fn face(self) -> FontFace {
        match self {
            Weight::Regular => FontFace::Regular,
            Weight::Medium => FontFace::Medium,
            Weight::Bold => FontFace::Bold,
        }
    }
}

/// Chars below this get a direct lookup table (glyph index + advance), so measuring Latin text
/// never touches fontdue's hash map.
const TABLE_LEN: usize = 0x800;

pub(crate) struct Face {
    pub(crate) font: fontdue::Font,
    pub(crate) units_per_em: f32,
    /// hhea ascender / descender in font units (descender negative).
    pub(crate) ascent: f32,
    pub(crate) descent: f32,
    table: Box<[(u16, f32)]>,
}

impl Face {
    fn parse(bytes: &'static [u8]) -> Face {
        let settings = fontdue::FontSettings { load_substitutions: false, ..fontdue::FontSettings::default() };
        let font = fontdue::Font::from_bytes(bytes, settings).expect("bundled font parses");
        let units_per_em = font.units_per_em();
        let lm = font.horizontal_line_metrics(units_per_em).expect("bundled font has hhea");
        let table = (0..TABLE_LEN as u32)
            .map(|c| {
                let g = char::from_u32(c).map_or(0, |c| font.lookup_glyph_index(c));
                let adv = if g == 0 { 0.0 } else { font.metrics_indexed(g, units_per_em).advance_width };
                (g, adv)
            })
            .collect();
        Face { font, units_per_em, ascent: lm.ascent, descent: lm.descent, table }
    }

    /// Glyph index and advance in font units; glyph 0 means the face lacks the char.
    #[inline]
    pub(crate) fn lookup(&self, c: char) -> (u16, f32) {
        if let Some(&e) = self.table.get(c as usize) {
            return e;
        }
        let g = self.font.lookup_glyph_index(c);
        if g == 0 {
            return (0, 0.0);
        }
        (g, self.font.metrics_indexed(g, self.units_per_em).advance_width)
    }
}

macro_rules! font_bytes {
    ($file:literal) => {
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/fonts/", $file))
    };
}

static FACES: [OnceLock<Face>; 5] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];

/// The parsed face; each is parsed lazily and separately (the CJK fallback is large).
pub(crate) fn face(f: FontFace) -> &'static Face {
    let (i, bytes): (usize, &'static [u8]) = match f {
        FontFace::Regular => (0, font_bytes!("Roboto-Regular.ttf")),
        FontFace::Medium => (1, font_bytes!("Roboto-Medium.ttf")),
        FontFace::Bold => (2, font_bytes!("Roboto-Bold.ttf")),
        FontFace::Icons => (3, font_bytes!("MaterialIcons-Regular.ttf")),
        FontFace::Fallback => (4, font_bytes!("DroidSansFallbackFull.ttf")),
    };
    FACES[i].get_or_init(|| Face::parse(bytes))
}
