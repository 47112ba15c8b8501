//! Colour emoji in text: each emoji's PNG (from the bundled emoji font) is decoded once by the
//! image decoder, then scaled to the size it is drawn by the image scaler and its cache, so an
//! emoji is drawn with the same integer arithmetic, and the same pixels, as any bitmap image.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use phoneworld_text::{emoji_png, PlacedEmoji};

use crate::blend::{Canvas, Pixels};
use crate::color::IRect;
use crate::image::{scaled, Fit, Image};

/// Bytes of decoded emoji kept (a decoded emoji is about 70 KB); the oldest go first.
pub const MAX_EMOJI_CACHE_BYTES: usize = 16 << 20;

#[derive(Default)]
struct Decoded {
    map: HashMap<u16, Arc<Image>>,
    /// Insertion order, for eviction.
    order: VecDeque<u16>,
    bytes: usize,
}

fn cache() -> &'static Mutex<Decoded> {
    static CACHE: OnceLock<Mutex<Decoded>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The decoded bitmap of an emoji glyph; None when the font has no PNG for it or it does not
/// decode (never for the bundled font).
fn decoded(glyph: u16) -> Option<Arc<Image>> {
    if let Some(hit) = cache().lock().unwrap_or_else(|e| e.into_inner()).map.get(&glyph) {
        return Some(Arc::clone(hit));
    }
    // Decode outside the lock; a racing thread decodes the identical image.
    let image = Arc::new(Image::decode(emoji_png(glyph)?).ok()?);
    let size = image.byte_size();
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(hit) = c.map.get(&glyph) {
        return Some(Arc::clone(hit));
    }
    while c.bytes + size > MAX_EMOJI_CACHE_BYTES {
        let Some(old) = c.order.pop_front() else { break };
        if let Some(gone) = c.map.remove(&old) {
            c.bytes -= gone.byte_size();
        }
    }
    c.bytes += size;
    c.order.push_back(glyph);
    c.map.insert(glyph, Arc::clone(&image));
    Some(image)
}

/// Draws an emoji of a text whose box's top-left is at (`x`, `y`), in its own colours. Returns
/// false when it has no bitmap (the caller draws a placeholder).
pub(crate) fn draw(cv: &mut Canvas<'_>, x: i32, y: i32, e: &PlacedEmoji, clip: IRect) -> bool {
    let Some(image) = decoded(e.glyph) else { return false };
    let (w, h) = (e.w as u32, e.h as u32);
    let r = IRect { x0: x + e.x as i32, y0: y + e.y as i32, x1: x + e.x as i32 + w as i32, y1: y + e.y as i32 + h as i32 };
    let vis = r.intersect(clip).intersect(cv.bounds());
    if vis.is_empty() {
        return true;
    }
    let s = scaled(&image, w, h, Fit::Fill);
    let src = Pixels { x: r.x0 + s.x, y: r.y0 + s.y, w: s.w, h: s.h, data: &s.pixels, opaque: s.opaque };
    cv.blit_premultiplied(src, None, vis);
    true
}
