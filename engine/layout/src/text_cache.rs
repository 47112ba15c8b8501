//! A per-thread memo of laid-out text. Laying out text is a pure function of its inputs, and
//! most texts of a screen (bars, labels, rows) are the same from one step to the next.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use phoneworld_text::{layout_icon, layout_text, TextLayout, TextStyle, Weight};

#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Text { text: String, size: u32, weight: Weight, max_width: Option<u32>, max_lines: Option<usize> },
    Icon { name: String, size: u32 },
}

/// Entries kept before the memo starts over (bounded memory, no eviction order to track).
const CAPACITY: usize = 8192;

thread_local! {
    static MEMO: RefCell<HashMap<Key, Arc<TextLayout>>> = RefCell::new(HashMap::new());
}

fn memo(key: Key, make: impl FnOnce() -> TextLayout) -> Arc<TextLayout> {
    MEMO.with(|m| {
        if let Some(hit) = m.borrow().get(&key) {
            return Arc::clone(hit);
        }
        let laid = Arc::new(make());
        let mut m = m.borrow_mut();
        if m.len() >= CAPACITY {
            m.clear();
        }
        m.insert(key, Arc::clone(&laid));
        laid
    })
}

pub(crate) fn text(text: &str, style: TextStyle, max_width: Option<f32>, max_lines: Option<usize>) -> Arc<TextLayout> {
    // Widths are compared in whole pixels: layouts at 300.2 and 300.4 px wrap identically.
    let key = Key::Text {
        text: text.to_owned(),
        size: style.size_px.to_bits(),
        weight: style.weight,
        max_width: max_width.map(|w| w.floor() as u32),
        max_lines,
    };
    memo(key, || layout_text(text, style, max_width.map(f32::floor), max_lines))
}

pub(crate) fn icon(name: &str, size_px: f32) -> Arc<TextLayout> {
    memo(Key::Icon { name: name.to_owned(), size: size_px.to_bits() }, || layout_icon(name, size_px))
}
