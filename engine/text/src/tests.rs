use super::*;

fn style(size_px: f32) -> TextStyle {
    TextStyle { size_px, weight: Weight::Regular }
}

#[test]
fn single_line_unbounded() {
    let l = layout_text("Hello world", style(40.0), None, None);
    assert_eq!(l.lines, vec!["Hello world"]);
    assert_eq!(l.line_height, 50.0);
    assert_eq!(l.height, 50.0);
    assert!(l.width > 100.0 && l.width < 300.0, "{}", l.width);
    assert_eq!(l.glyphs.len(), 10); // the space has no glyph
    assert!(!l.truncated);
}

#[test]
fn wraps_at_spaces() {
    let one = layout_text("aaaa", style(40.0), None, None).width;
    let l = layout_text("aaaa aaaa aaaa aaaa", style(40.0), Some(one * 2.5), None);
    assert_eq!(l.lines, vec!["aaaa aaaa", "aaaa aaaa"]);
    assert_eq!(l.height, 100.0);
    assert!(l.width <= one * 2.5 + 1.0);
    // Feeding the measured width back never changes the wrapping.
    let again = layout_text("aaaa aaaa aaaa aaaa", style(40.0), Some(l.width), None);
    assert_eq!(again.lines, l.lines);
}

#[test]
fn newlines_and_long_words() {
    let l = layout_text("a\n\nb", style(20.0), None, None);
    assert_eq!(l.lines, vec!["a", "", "b"]);
    let w = layout_text("abcdefghij", style(40.0), None, None).width;
    let l = layout_text("abcdefghij", style(40.0), Some(w / 3.0), None);
    assert!(l.lines.len() >= 3, "{:?}", l.lines);
    assert_eq!(l.lines.concat(), "abcdefghij");
}

#[test]
fn ellipsis_when_cut() {
    let one = layout_text("word", style(40.0), None, None).width;
    let l = layout_text("word word word word word word", style(40.0), Some(one * 2.2), Some(2));
    assert_eq!(l.lines.len(), 2);
    assert!(l.truncated);
    assert!(l.lines[1].ends_with('…'), "{:?}", l.lines);
    assert!(l.width <= (one * 2.2).ceil());
    let l = layout_text("short", style(40.0), Some(1000.0), Some(1));
    assert!(!l.truncated);
    assert_eq!(l.lines, vec!["short"]);
    let l = layout_text("a\nb\nc", style(40.0), None, Some(2));
    assert_eq!(l.lines, vec!["a", "b…"]);
}

#[test]
fn cjk_uses_fallback_and_breaks_anywhere() {
    let l = layout_text("你好世界你好世界", style(40.0), Some(130.0), None);
    assert!(l.glyphs.iter().all(|g| g.face == FontFace::Fallback));
    assert!(l.lines.len() >= 2);
    assert!(l.placeholders.is_empty());
    let l = layout_text("Hi 你", TextStyle { size_px: 40.0, weight: Weight::Bold }, None, None);
    assert_eq!(l.glyphs[0].face, FontFace::Bold);
    assert_eq!(l.glyphs[2].face, FontFace::Fallback);
}

#[test]
fn uncovered_char_is_placeholder() {
    // The flamingo is an emoji the bundled subset leaves out, and no other face has it.
    let l = layout_text("a\u{1F9A9}b", style(40.0), None, None);
    assert_eq!(l.placeholders.len(), 1, "U+1F9A9 should be covered by no face");
    assert!(l.emoji.is_empty());
    assert_eq!(l.glyphs.len(), 2);
    let p = l.placeholders[0];
    assert!(p.w > 0.0 && p.h > 0.0 && p.y >= 0.0 && p.y + p.h <= l.height);
}

#[test]
fn icons() {
    assert!(icon_exists("alarm"));
    assert!(icon_exists("wifi"));
    assert!(!icon_exists("no_such_icon_xyz"));
    let l = layout_icon("alarm", 48.0);
    assert_eq!((l.width, l.height), (48.0, 48.0));
    assert_eq!(l.glyphs.len(), 1);
    assert_eq!(l.glyphs[0].face, FontFace::Icons);
    let b = glyph_bitmap(FontFace::Icons, l.glyphs[0].glyph, 48.0);
    let top = l.glyphs[0].baseline as i32 - b.top;
    assert!(top >= 0 && top + b.height as i32 <= 48, "icon inside its box: {top} {}", b.height);
    let l = layout_icon("no_such_icon_xyz", 48.0);
    assert!(l.glyphs.is_empty());
    assert_eq!(l.placeholders.len(), 1);
}

#[test]
fn glyph_bitmaps_are_shared_and_inside_the_line() {
    let l = layout_text("Ag", style(40.0), None, None);
    let a = glyph_bitmap(l.glyphs[0].face, l.glyphs[0].glyph, 40.0);
    let b = glyph_bitmap(l.glyphs[0].face, l.glyphs[0].glyph, 40.05);
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert_eq!(a.coverage.len(), a.width * a.height);
    for g in &l.glyphs {
        let bm = glyph_bitmap(g.face, g.glyph, g.size_px);
        let y0 = g.baseline as i32 - bm.top;
        assert!(y0 >= 0 && y0 + bm.height as i32 <= l.height as i32);
    }
}

#[test]
fn deterministic() {
    let t = "The quick brown fox 你好 jumps over the lazy dog \u{1F600}";
    let a = layout_text(t, style(37.0), Some(300.0), Some(3));
    let b = layout_text(t, style(37.0), Some(300.0), Some(3));
    assert_eq!(a, b);
}

fn emoji_count(t: &str) -> (usize, usize, usize) {
    let l = layout_text(t, style(40.0), None, None);
    (l.emoji.len(), l.glyphs.len(), l.placeholders.len())
}

#[test]
fn emoji_are_measured_with_their_advance_and_wrap_like_ideographs() {
    let one = layout_text("\u{1F600}", style(40.0), None, None);
    assert_eq!(one.emoji.len(), 1);
    assert!(one.placeholders.is_empty() && one.glyphs.is_empty());
    // Noto's advance is about 1.25 em: far wider than a placeholder box (0.7 em).
    assert!((48.0..=52.0).contains(&one.width), "{}", one.width);
    let hi = layout_text("hi \u{1F600}", style(40.0), None, None).width;
    assert!(hi > one.width + 20.0);
    // Room for "hi" and one emoji and a half: the second emoji wraps, on its own.
    let l = layout_text("hi \u{1F600}\u{1F600}", style(40.0), Some(hi + 0.5 * one.width), None);
    assert_eq!(l.lines, vec!["hi \u{1F600}", "\u{1F600}"]);
    assert_eq!(l.emoji.len(), 2);
    assert_eq!(l.emoji[1].y, l.emoji[0].y + l.line_height, "second line");
    let l = layout_text("hi \u{1F600}\u{1F600}", style(40.0), Some(hi + one.width), None);
    assert_eq!(l.lines.len(), 1);
    // An emoji that does not fit before the ellipsis is dropped whole.
    let l = layout_text("hi \u{1F600}\u{1F600}\u{1F600}", style(40.0), Some(hi + one.width), Some(1));
    assert!(l.truncated);
    assert_eq!(l.lines, vec!["hi \u{1F600}…"]);
}

#[test]
fn emoji_sit_inside_the_line_box_at_the_text_size() {
    for size in [20.0, 40.0, 57.0] {
        let l = layout_text("Ag\u{1F44D}", style(size), None, None);
        let e = l.emoji[0];
        assert!(e.y >= 0.0 && e.y + e.h <= l.height, "{size}: {e:?} in {}", l.height);
        assert!((e.h - size * 128.0 / 109.0).abs() <= 1.0, "{size}: {e:?}");
        assert!(e.x >= l.glyphs[1].x, "after the text");
    }
}

#[test]
fn emoji_sequences_variation_selectors_and_modifiers() {
    // Listed ZWJ sequences and flags are one glyph; the source text is kept in `lines`.
    for seq in ["\u{2764}\u{FE0F}\u{200D}\u{1F525}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F1EF}\u{1F1F5}"] {
        let l = layout_text(seq, style(40.0), None, None);
        assert_eq!((l.emoji.len(), l.glyphs.len(), l.placeholders.len()), (1, 0, 0), "{seq}");
        assert_eq!(l.lines, vec![seq]);
    }
    // A ZWJ sequence the subset lacks (woman astronaut) falls back to its parts.
    assert_eq!(emoji_count("\u{1F469}\u{200D}\u{1F680}"), (2, 0, 0));
    // A skin tone is absorbed: the emoji in its default colour, no box.
    assert_eq!(emoji_count("\u{1F44D}\u{1F3FD}"), (1, 0, 0));
    assert_eq!(emoji_count("\u{1F44D}\u{1F3FD}"), emoji_count("\u{1F44D}"));
    // U+FE0F asks for the emoji of a char the text face has; without it, the text glyph.
    assert_eq!(emoji_count("\u{203C}"), (0, 1, 0));
    assert_eq!(emoji_count("\u{203C}\u{FE0F}"), (1, 0, 0));
    // Chars the text face lacks are emoji by default; U+FE0E keeps them text.
    assert_eq!(emoji_count("\u{2764}"), (1, 0, 0));
    assert_eq!(emoji_count("\u{2764}\u{FE0E}").0, 0);
    // Stray joiners and selectors draw nothing.
    assert_eq!(emoji_count("\u{200D}\u{FE0F}"), (0, 0, 0));
}

#[test]
fn the_emoji_font_has_nothing_below_the_plain_text_fast_path() {
    for c in (0..0x2000).filter_map(char::from_u32) {
        assert_eq!(crate::emoji::match_emoji(&[c], false), None, "U+{:04X}", c as u32);
    }
}

#[test]
fn every_emoji_has_a_png() {
    let l = layout_text("\u{1F600}\u{1F1FA}\u{1F1F8}\u{1F44D}", style(40.0), None, None);
    for e in &l.emoji {
        let png = emoji_png(e.glyph).expect("a PNG bitmap");
        assert!(png.starts_with(b"\x89PNG"));
    }
}

/// Measures layout speed: `cargo test -p phoneworld-text --release -- --ignored --nocapture`.
#[test]
#[ignore]
fn layout_speed() {
    let t0 = std::time::Instant::now();
    layout_text("a", style(40.0), None, None);
    let roboto = t0.elapsed();
    let t0 = std::time::Instant::now();
    layout_text("你", style(40.0), None, None);
    println!("first use: Roboto {roboto:?}, CJK fallback {:?}", t0.elapsed());
    let texts: Vec<String> = (0..40).map(|i| format!("Notification {i}: the quick brown fox jumps")).collect();
    let glyphs: usize = texts.iter().map(|t| t.chars().count()).sum();
    let run = || texts.iter().map(|t| layout_text(t, style(40.0), Some(900.0), Some(2)).glyphs.len()).sum::<usize>();
    run();
    let n = 2000;
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(run());
    }
    let per = t0.elapsed() / n;
    println!("layout of {glyphs} chars: {per:?}");
}

#[test]
fn a_huge_text_is_cut_to_a_screenful_and_ends_in_an_ellipsis() {
    let huge = "word ".repeat(1_000_000);
    let l = layout_text(&huge, style(20.0), Some(1000.0), None);
    assert!(l.glyphs.len() <= MAX_LAID_OUT_CHARS, "{}", l.glyphs.len());
    assert!(l.truncated && l.lines.last().is_some_and(|line| line.ends_with('…')), "the cut is visible");
    assert!(!layout_text("word", style(20.0), Some(1000.0), None).truncated);
}
