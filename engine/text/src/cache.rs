//! Process-wide cache of rasterized glyph coverage, shared by every device.

use crate::fonts::{face, FontFace};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

/// 8-bit coverage of one glyph. `left`/`top` locate the bitmap's top-left relative to the pen
/// on the baseline: x = pen_x + left, y = baseline - top (`top` is positive upward, fontdue's
/// `ymin + height`).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct GlyphBitmap {
    pub width: usize,
    pub height: usize,
    pub left: i32,
    pub top: i32,
    pub coverage: Vec<u8>,
}

type Key = (FontFace, u16, u32);

fn cache() -> &'static RwLock<HashMap<Key, Arc<GlyphBitmap>>> {
    static CACHE: OnceLock<RwLock<HashMap<Key, Arc<GlyphBitmap>>>> = OnceLock::new();
    CACHE.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Sizes are quantized to 1/4 px so nearly equal sizes share bitmaps.
fn quantize(size_px: f32) -> u32 {
    (size_px.max(0.0) * 4.0).round() as u32
}

thread_local! {
    // A per-thread front for the shared cache: devices rendering on several threads would
    // otherwise contend on the lock word for every glyph drawn.
    static LOCAL: RefCell<HashMap<Key, Arc<GlyphBitmap>>> = RefCell::new(HashMap::new());
}

/// The coverage bitmap of `glyph` in `face` at `size_px`, rasterized once per process.
pub fn glyph_bitmap(face_id: FontFace, glyph: u16, size_px: f32) -> Arc<GlyphBitmap> {
    let key = (face_id, glyph, quantize(size_px));
    if let Some(b) = LOCAL.with(|local| local.borrow().get(&key).cloned()) {
        return b;
    }
    let bitmap = shared_bitmap(key);
    LOCAL.with(|local| local.borrow_mut().insert(key, Arc::clone(&bitmap)));
    bitmap
}

fn shared_bitmap(key: Key) -> Arc<GlyphBitmap> {
    if let Some(b) = cache().read().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Arc::clone(b);
    }
    // Rasterize outside the lock; a racing thread computes the identical bitmap.
    let (face_id, glyph, size) = key;
    let (m, coverage) = face(face_id).font.rasterize_indexed(glyph, size as f32 / 4.0);
    let bitmap = Arc::new(GlyphBitmap { width: m.width, height: m.height, left: m.xmin, top: m.ymin + m.height as i32, coverage });
    let mut w = cache().write().unwrap_or_else(|e| e.into_inner());
    Arc::clone(w.entry(key).or_insert(bitmap))
}
