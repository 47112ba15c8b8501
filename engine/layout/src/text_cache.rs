//! A per-thread memo of laid-out text. Laying out text is a pure function of its inputs, and
//! most texts of a screen (bars, labels, rows) are the same from one step to the next. Keys
//! are hashed without copying the text; the text is compared on a hit.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use phoneworld_text::{layout_icon, layout_text, TextLayout, TextStyle, Weight};

/// The key is already a hash: pass it through.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

struct Entry {
    text: Box<str>,
    params: (u32, Weight, Option<u32>, Option<usize>, bool),
    layout: Arc<TextLayout>,
}

/// Entries kept before the memo starts over (bounded memory, no eviction order to track).
const CAPACITY: usize = 8192;

thread_local! {
    static MEMO: RefCell<HashMap<u64, Vec<Entry>, BuildHasherDefault<PassThrough>>> = RefCell::new(HashMap::default());
}

/// A fast multiplicative hash (FxHash-style), 8 bytes at a time.
fn hash(text: &str, params: (u32, Weight, Option<u32>, Option<usize>, bool)) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = 0;
    let mut add = |v: u64| h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    let bytes = text.as_bytes();
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    add(u64::from_le_bytes(tail) ^ (bytes.len() as u64) << 56);
    add(u64::from(params.0));
    add(params.1 as u64);
    add(params.2.map_or(u64::MAX, u64::from));
    add(params.3.map_or(u64::MAX, |v| v as u64));
    add(u64::from(params.4));
    h
}

fn memo(text: &str, params: (u32, Weight, Option<u32>, Option<usize>, bool), make: impl FnOnce() -> TextLayout) -> Arc<TextLayout> {
    let key = hash(text, params);
    MEMO.with(|m| {
        if let Some(bucket) = m.borrow().get(&key) {
            if let Some(e) = bucket.iter().find(|e| e.params == params && &*e.text == text) {
                return Arc::clone(&e.layout);
            }
        }
        let laid = Arc::new(make());
        let mut m = m.borrow_mut();
        if m.len() >= CAPACITY {
            m.clear();
        }
        m.entry(key).or_default().push(Entry { text: text.into(), params, layout: Arc::clone(&laid) });
        laid
    })
}

pub(crate) fn text(text: &str, style: TextStyle, max_width: Option<f32>, max_lines: Option<usize>) -> Arc<TextLayout> {
    // Widths are compared in whole pixels: layouts at 300.2 and 300.4 px wrap identically.
    let width = max_width.map(|w| w.floor() as u32);
    memo(text, (style.size_px.to_bits(), style.weight, width, max_lines, false), || {
        layout_text(text, style, max_width.map(f32::floor), max_lines)
    })
}

pub(crate) fn icon(name: &str, size_px: f32) -> Arc<TextLayout> {
    memo(name, (size_px.to_bits(), Weight::Regular, None, None, true), || layout_icon(name, size_px))
}
