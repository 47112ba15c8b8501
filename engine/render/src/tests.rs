use super::*;
use phoneworld_text::{layout_icon, layout_text, TextStyle, Weight};

const BG: Color = Color::rgb(250, 250, 250);
const RED: Color = Color::rgb(200, 10, 20);

fn px(f: &Frame, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * f.width + x) * 4) as usize;
    f.pixels[i..i + 4].try_into().unwrap()
}

fn bg(c: Color) -> [u8; 4] {
    [c.r, c.g, c.b, 255]
}

fn count_non_bg(f: &Frame, x0: u32, y0: u32, x1: u32, y1: u32) -> usize {
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            n += usize::from(px(f, x, y) != bg(BG));
        }
    }
    n
}

#[test]
fn fill_rect_sets_exact_pixels() {
    let mut f = Frame::new(20, 20);
    render(&[DrawCmd::Fill { rect: Rect::new(2.0, 3.0, 5.0, 4.0), color: RED, radius: 0.0 }], &mut f, BG);
    for y in 0..20 {
        for x in 0..20 {
            let inside = (2..7).contains(&x) && (3..7).contains(&y);
            assert_eq!(px(&f, x, y), if inside { bg(RED) } else { bg(BG) }, "({x},{y})");
        }
    }
    assert!(f.pixels.chunks(4).all(|p| p[3] == 255));
}

#[test]
fn translucent_fill_blends() {
    let mut f = Frame::new(4, 4);
    render(&[DrawCmd::Fill { rect: Rect::new(0.0, 0.0, 4.0, 4.0), color: Color::rgba(0, 0, 0, 128), radius: 0.0 }], &mut f, Color::WHITE);
    assert_eq!(px(&f, 1, 1), [127, 127, 127, 255]);
}

#[test]
fn shapes_are_antialiased_and_inside_bounds() {
    let mut f = Frame::new(100, 100);
    let cmds = [
        DrawCmd::Fill { rect: Rect::new(10.0, 10.0, 80.0, 30.0), color: RED, radius: 12.0 },
        DrawCmd::Circle { cx: 30.0, cy: 70.0, r: 15.0, color: RED },
        DrawCmd::Ring { cx: 70.0, cy: 70.0, r: 15.0, color: RED, width: 3.0 },
    ];
    render(&cmds, &mut f, BG);
    assert_eq!(px(&f, 10, 10), bg(BG), "rounded corner is empty");
    assert_eq!(px(&f, 50, 10), bg(RED));
    assert_eq!(px(&f, 10, 25), bg(RED));
    assert_eq!(px(&f, 30, 70), bg(RED));
    assert_eq!(px(&f, 70, 70), bg(BG), "ring centre is empty");
    assert_eq!(px(&f, 70, 56), bg(RED), "ring stroke inside r");
    assert_eq!(px(&f, 70, 54), bg(BG));
    // Anti-aliasing produces intermediate colors on the circle's edge.
    let partial = (0..100).any(|x| {
        let p = px(&f, x, 60);
        p != bg(RED) && p != bg(BG)
    });
    assert!(partial);
    assert_eq!(count_non_bg(&f, 0, 0, 100, 10), 0);
    assert_eq!(count_non_bg(&f, 0, 40, 100, 55), 0);
}

#[test]
fn stroke_is_inside_rect() {
    let mut f = Frame::new(40, 40);
    render(&[DrawCmd::Stroke { rect: Rect::new(5.0, 5.0, 30.0, 30.0), color: RED, width: 2.0, radius: 0.0 }], &mut f, BG);
    assert_eq!(px(&f, 5, 5), bg(RED));
    assert_eq!(px(&f, 6, 20), bg(RED));
    assert_eq!(px(&f, 7, 20), bg(BG));
    assert_eq!(px(&f, 34, 20), bg(RED));
    assert_eq!(px(&f, 35, 20), bg(BG));
    assert_eq!(px(&f, 20, 20), bg(BG));
    let mut g = Frame::new(40, 40);
    render(&[DrawCmd::Stroke { rect: Rect::new(5.0, 5.0, 30.0, 30.0), color: RED, width: 2.0, radius: 8.0 }], &mut g, BG);
    assert_eq!(px(&g, 5, 5), bg(BG));
    assert_eq!(px(&g, 5, 20), bg(RED));
    assert_eq!(px(&g, 20, 20), bg(BG));
    assert_eq!(count_non_bg(&g, 0, 0, 40, 5), 0);
}

#[test]
fn clip_limits_drawing_and_pops() {
    let mut f = Frame::new(50, 50);
    let cmds = [
        DrawCmd::PushClip(Rect::new(10.0, 10.0, 10.0, 10.0)),
        DrawCmd::PushClip(Rect::new(0.0, 0.0, 15.0, 50.0)),
        DrawCmd::Fill { rect: Rect::new(0.0, 0.0, 50.0, 50.0), color: RED, radius: 5.0 },
        DrawCmd::PopClip,
        DrawCmd::Circle { cx: 25.0, cy: 25.0, r: 25.0, color: RED },
        DrawCmd::PopClip,
        DrawCmd::Fill { rect: Rect::new(40.0, 40.0, 5.0, 5.0), color: RED, radius: 0.0 },
    ];
    render(&cmds, &mut f, BG);
    assert_eq!(count_non_bg(&f, 0, 0, 50, 50), 100 + 25);
    assert_eq!(px(&f, 19, 19), bg(RED));
    assert_eq!(px(&f, 9, 9), bg(BG));
}

#[test]
fn text_draws_inside_its_box_only() {
    let layout = Arc::new(layout_text(
        "Hello, world! 你好 gjpqy \u{1F600}",
        TextStyle { size_px: 40.0, weight: Weight::Regular },
        Some(300.0),
        None,
    ));
    let (x, y) = (20.0, 30.0);
    let mut f = Frame::new(400, 300);
    render(&[DrawCmd::Text { x, y, layout: layout.clone(), color: Color::BLACK }], &mut f, BG);
    let (x1, y1) = (20 + layout.width as u32, 30 + layout.height as u32);
    let inside = count_non_bg(&f, 20, 30, x1, y1);
    assert!(inside > 500, "{inside}");
    assert_eq!(count_non_bg(&f, 0, 0, 400, 300), inside, "nothing outside {}x{}", layout.width, layout.height);

    let icon = Arc::new(layout_icon("alarm", 48.0));
    let mut g = Frame::new(100, 100);
    render(&[DrawCmd::Text { x: 10.0, y: 10.0, layout: icon, color: Color::BLACK }], &mut g, BG);
    let inside = count_non_bg(&g, 10, 10, 58, 58);
    assert!(inside > 100);
    assert_eq!(count_non_bg(&g, 0, 0, 100, 100), inside);
}

#[test]
fn text_respects_clip() {
    let layout = Arc::new(layout_text("WWWWWWWW", TextStyle { size_px: 40.0, weight: Weight::Bold }, None, None));
    let mut f = Frame::new(400, 100);
    let cmds =
        [DrawCmd::PushClip(Rect::new(0.0, 0.0, 60.0, 100.0)), DrawCmd::Text { x: 10.0, y: 10.0, layout, color: RED }, DrawCmd::PopClip];
    render(&cmds, &mut f, BG);
    assert!(count_non_bg(&f, 0, 0, 60, 100) > 100);
    assert_eq!(count_non_bg(&f, 60, 0, 400, 100), 0);
}

#[test]
fn hash_is_stable_and_sensitive() {
    let cmds = screen();
    let mut a = Frame::new(1080, 2400);
    let mut b = Frame::new(1080, 2400);
    render(&cmds, &mut a, BG);
    render(&cmds, &mut b, BG);
    assert_eq!(a.hash(), b.hash());
    assert_eq!(a.hash().len(), 64);
    b.pixels[0] ^= 1;
    assert_ne!(a.hash(), b.hash());
    assert_ne!(Frame::new(2, 3).hash(), Frame::new(3, 2).hash());
}

#[test]
fn downscale_and_rgb() {
    let mut f = Frame::new(1080, 2400);
    render(&[DrawCmd::Fill { rect: Rect::new(0.0, 0.0, 540.0, 2400.0), color: Color::BLACK, radius: 0.0 }], &mut f, Color::WHITE);
    let d = f.downscale(270, 600);
    assert_eq!((d.width, d.height, d.pixels.len()), (270, 600, 270 * 600 * 4));
    assert_eq!(px(&d, 0, 0), [0, 0, 0, 255]);
    assert_eq!(px(&d, 269, 599), [255, 255, 255, 255]);
    let odd = f.downscale(7, 5);
    assert_eq!(px(&odd, 3, 2)[3], 255);
    assert!(px(&odd, 3, 2)[0] > 0 && px(&odd, 3, 2)[0] < 255, "edge column averages");
    assert_eq!(d.to_rgb().len(), 270 * 600 * 3);
    assert_eq!(&d.to_rgb()[..3], &[0, 0, 0]);
}

#[test]
fn downscale_averages_each_output_pixels_source_box() {
    // Varied pixels (a fixed pattern) and sizes that divide and do not divide the source; half
    // the size (a path of its own) included.
    for (sw, sh, dw, dh) in [(37, 23, 37, 23), (37, 23, 10, 7), (37, 23, 1, 1), (37, 23, 36, 5), (38, 24, 19, 12), (38, 24, 19, 24)] {
        let mut f = Frame::new(sw, sh);
        for (i, v) in f.pixels.iter_mut().enumerate() {
            *v = (i.wrapping_mul(2_654_435_761) >> 7) as u8;
        }
        let d = f.downscale(dw, dh);
        for (y, x) in (0..dh).flat_map(|y| (0..dw).map(move |x| (y, x))) {
            let span = |i: u32, s: u32, d: u32| (i * s / d, ((i + 1) * s / d).max(i * s / d + 1).min(s));
            let ((x0, x1), (y0, y1)) = (span(x, sw, dw), span(y, sh, dh));
            let n = (x1 - x0) * (y1 - y0);
            for ch in 0..4 {
                let sum: u32 = (y0..y1).flat_map(|sy| (x0..x1).map(move |sx| (sy, sx))).map(|(sy, sx)| u32::from(px(&f, sx, sy)[ch])).sum();
                assert_eq!(u32::from(px(&d, x, y)[ch]), (sum + n / 2) / n, "{dw}x{dh} at ({x}, {y}) channel {ch}");
            }
        }
    }
}

#[test]
fn png_round_trip() {
    let mut f = Frame::new(64, 32);
    render(&screen()[..6], &mut f, BG);
    let bytes = f.to_png();
    let dec = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (64, 32));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(&buf[..info.buffer_size()], &f.pixels[..]);
}

/// A busy 1080x2400 screen: ~40 shapes and ~800 glyphs of 14–16sp text.
fn screen() -> Vec<DrawCmd> {
    let mut cmds = vec![
        DrawCmd::Fill { rect: Rect::new(0.0, 0.0, 1080.0, 63.0), color: Color::rgb(30, 30, 30), radius: 0.0 },
        DrawCmd::Fill { rect: Rect::new(0.0, 63.0, 1080.0, 147.0), color: Color::rgb(98, 0, 238), radius: 0.0 },
    ];
    let styles = [TextStyle { size_px: 42.0, weight: Weight::Medium }, TextStyle { size_px: 37.0, weight: Weight::Regular }];
    cmds.push(DrawCmd::Text {
        x: 48.0,
        y: 100.0,
        layout: Arc::new(layout_text("Messages", TextStyle { size_px: 52.0, weight: Weight::Bold }, None, None)),
        color: Color::WHITE,
    });
    for i in 0..9 {
        let top = 240.0 + i as f32 * 230.0;
        cmds.push(DrawCmd::Fill { rect: Rect::new(24.0, top, 1032.0, 210.0), color: Color::WHITE, radius: 28.0 });
        cmds.push(DrawCmd::Stroke {
            rect: Rect::new(24.0, top, 1032.0, 210.0),
            color: Color::rgb(220, 220, 220),
            width: 3.0,
            radius: 28.0,
        });
        cmds.push(DrawCmd::Circle { cx: 110.0, cy: top + 105.0, r: 56.0, color: Color::rgb(3, 169, 244) });
        cmds.push(DrawCmd::PushClip(Rect::new(190.0, top, 840.0, 210.0)));
        for (j, st) in styles.iter().enumerate() {
            let text = if j == 0 {
                format!("Contact number {i}")
            } else {
                format!("Message {i}: the quick brown fox jumps over the lazy dog and keeps running far away")
            };
            let layout = Arc::new(layout_text(&text, *st, Some(820.0), Some(2)));
            cmds.push(DrawCmd::Text { x: 200.0, y: top + 20.0 + j as f32 * 56.0, layout, color: Color::rgb(33, 33, 33) });
        }
        cmds.push(DrawCmd::PopClip);
    }
    cmds.push(DrawCmd::Ring { cx: 950.0, cy: 2250.0, r: 80.0, color: RED, width: 6.0 });
    cmds.push(DrawCmd::Fill { rect: Rect::new(0.0, 2316.0, 1080.0, 84.0), color: Color::rgba(0, 0, 0, 200), radius: 0.0 });
    cmds
}

fn glyph_count(cmds: &[DrawCmd]) -> usize {
    cmds.iter().map(|c| if let DrawCmd::Text { layout, .. } = c { layout.glyphs.len() } else { 0 }).sum()
}

/// Render speed on the target screen vs a memcpy of the frame (best of many runs, since the
/// machine is shared): `cargo test -p phoneworld-render --release -- --ignored --nocapture`.
#[test]
#[ignore]
fn render_speed() {
    fn best(mut f: impl FnMut()) -> std::time::Duration {
        f();
        (0..200)
            .map(|_| {
                let t0 = std::time::Instant::now();
                f();
                t0.elapsed()
            })
            .min()
            .unwrap()
    }
    let cmds = screen();
    let mut f = Frame::new(1080, 2400);
    let full = best(|| render(std::hint::black_box(&cmds), &mut f, BG));
    let mut dst = vec![0u8; f.pixels.len()];
    let copy = best(|| dst.copy_from_slice(std::hint::black_box(&f.pixels)));
    println!(
        "render {} cmds + {} glyphs: {full:?}; memcpy 10MB: {copy:?}; ratio {:.2}",
        cmds.len(),
        glyph_count(&cmds),
        full.as_secs_f64() / copy.as_secs_f64()
    );
    let text: Vec<DrawCmd> = cmds.iter().filter(|c| matches!(c, DrawCmd::Text { .. })).cloned().collect();
    let clear = best(|| render(&[], &mut f, BG));
    println!("clear only: {clear:?}; text only: {:?}", best(|| render(&text, &mut f, BG)));
    for kind in ["Fill", "Stroke", "Circle", "Ring"] {
        let only: Vec<DrawCmd> = cmds.iter().filter(|c| format!("{c:?}").starts_with(kind)).cloned().collect();
        println!("{kind} x{}: {:?}", only.len(), best(|| render(&only, &mut f, BG)));
    }
    render(&cmds, &mut f, BG);
    std::fs::write(std::env::temp_dir().join("phoneworld_render_speed.png"), f.to_png()).unwrap();
}

#[test]
fn big_clipped_circle_matches_small_cached_logic() {
    // A huge circle is rasterized only where visible; its edge still lands where expected.
    let mut f = Frame::new(200, 200);
    let cmds = [
        DrawCmd::PushClip(Rect::new(0.0, 0.0, 200.0, 100.0)),
        DrawCmd::Circle { cx: 100.0, cy: 1100.0, r: 1050.0, color: RED },
        DrawCmd::PopClip,
    ];
    render(&cmds, &mut f, BG);
    assert_eq!(px(&f, 100, 49), bg(BG));
    assert_eq!(px(&f, 100, 51), bg(RED));
    assert_eq!(px(&f, 100, 99), bg(RED));
    assert_eq!(px(&f, 100, 100), bg(BG));
    // Huge rounded rect: corners are rasterized directly too.
    let mut g = Frame::new(1200, 1200);
    render(&[DrawCmd::Fill { rect: Rect::new(0.0, 0.0, 1200.0, 1200.0), color: RED, radius: 600.0 }], &mut g, BG);
    assert_eq!(px(&g, 600, 600), bg(RED));
    assert_eq!(px(&g, 600, 1), bg(RED));
    assert_eq!(px(&g, 5, 5), bg(BG));
    assert_eq!(px(&g, 1194, 1194), bg(BG));
}

fn text_frame(text: &str, color: Color) -> (Frame, Arc<phoneworld_text::TextLayout>) {
    let layout = Arc::new(layout_text(text, TextStyle { size_px: 48.0, weight: Weight::Regular }, None, None));
    let mut f = Frame::new(200, 80);
    render(&[DrawCmd::Text { x: 10.0, y: 10.0, layout: layout.clone(), color }], &mut f, BG);
    (f, layout)
}

#[test]
fn emoji_are_drawn_in_their_own_colours_the_same_every_time() {
    // A grinning face: yellow, whatever the text colour.
    let (black, layout) = text_frame("\u{1F600}", Color::BLACK);
    let e = layout.emoji[0];
    let (x0, y0) = (10 + e.x as u32, 10 + e.y as u32);
    let mut yellow = 0;
    for y in y0..y0 + e.h as u32 {
        for x in x0..x0 + e.w as u32 {
            let [r, g, b, _] = px(&black, x, y);
            yellow += usize::from(r > 200 && g > 150 && b < 100);
        }
    }
    assert!(yellow as f32 > 0.4 * e.w * e.h, "{yellow} yellow pixels of {}x{}", e.w, e.h);
    let (red, _) = text_frame("\u{1F600}", RED);
    assert!(black.pixels == red.pixels, "the text colour does not tint an emoji");
    let (again, _) = text_frame("\u{1F600}", Color::BLACK);
    assert!(black.pixels == again.pixels);
    assert_eq!(count_non_bg(&black, 0, 0, 200, 80), count_non_bg(&black, x0, y0, x0 + e.w as u32, y0 + e.h as u32));
}

#[test]
fn an_emoji_the_font_lacks_draws_a_box_in_the_text_colour() {
    let (f, layout) = text_frame("a\u{1F9A9}b", RED);
    let p = layout.placeholders[0];
    // The box's left edge is in the text colour.
    let (x, y) = (10 + p.x as u32, 10 + (p.y + p.h / 2.0) as u32);
    assert_eq!(px(&f, x, y), bg(RED));
    assert!(layout.emoji.is_empty());
}

/// A tiny deterministic generator for the property test below.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u32) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % u64::from(n)) as u32
    }
}

fn solid_image(w: u32, h: u32, rgba: [u8; 4]) -> Arc<Image> {
    Arc::new(Image::from_premultiplied(w, h, rgba.repeat((w * h) as usize)).unwrap())
}

fn random_command(rng: &mut Lcg, images: &[Arc<Image>; 2], height: u32) -> DrawCmd {
    let rect =
        Rect::new(rng.next(90) as f32 - 10.0, rng.next(height + 10) as f32 - 10.0, rng.next(80) as f32 + 1.0, rng.next(80) as f32 + 1.0);
    let radius = [0.0, 0.0, 4.0, 11.5][rng.next(4) as usize];
    let color = Color::rgba(rng.next(256) as u8, 90, 30, [255, 255, 100][rng.next(3) as usize]);
    match rng.next(7) {
        0 => DrawCmd::PushClip(Rect::new(rng.next(40) as f32, rng.next(height) as f32, 50.0, 50.0)),
        1 => DrawCmd::PopClip,
        2 => {
            let image = Arc::clone(&images[usize::from(rng.next(4) == 0)]);
            let fit = [Fit::Cover, Fit::Fill, Fit::Contain][rng.next(3) as usize];
            DrawCmd::Image { rect, image, fit, radius, circle: rng.next(5) == 0 }
        }
        3 => DrawCmd::Image {
            rect: Rect::new(rect.x, rect.y, 40.0, 30.0),
            image: Arc::clone(&images[0]),
            fit: Fit::Cover,
            radius: 0.0,
            circle: false,
        },
        4 => DrawCmd::Circle { cx: rect.x + 20.0, cy: rect.y + 20.0, r: 15.5, color },
        _ => DrawCmd::Fill { rect, color, radius },
    }
}

fn random_commands(rng: &mut Lcg, images: &[Arc<Image>; 2], height: u32) -> Vec<DrawCmd> {
    (0..1 + rng.next(14)).map(|_| random_command(rng, images, height)).collect()
}

fn test_images() -> [Arc<Image>; 2] {
    [solid_image(40, 30, [10, 120, 200, 255]), solid_image(40, 30, [0, 60, 0, 128])]
}

/// Overdraw culling skips pixels that a later opaque draw covers: whatever the buffer held
/// before (the previous frame), every pixel of the new frame comes from its commands alone.
#[test]
fn every_pixel_comes_from_the_commands_whatever_the_buffer_held() {
    let images = test_images();
    let mut rng = Lcg(7);
    for case in 0..300 {
        let cmds = random_commands(&mut rng, &images, 80);
        let (mut a, mut b) = (Frame::new(80, 80), Frame::new(80, 80));
        a.pixels.fill(0);
        b.pixels.iter_mut().enumerate().for_each(|(i, p)| *p = (i * 37 % 251) as u8);
        render(&cmds, &mut a, BG);
        render(&cmds, &mut b, BG);
        assert!(a.pixels == b.pixels, "case {case}: a pixel depends on the buffer's old content: {cmds:?}");
    }
}

/// Drawing only the bands whose commands changed gives the frame a full render gives.
#[test]
fn redrawing_the_changed_bands_gives_the_full_frame() {
    let images = test_images();
    let mut rng = Lcg(11);
    let mut redrawn_partly = 0;
    for case in 0..300 {
        let before = random_commands(&mut rng, &images, 200);
        let mut after = before.clone();
        match rng.next(3) {
            0 => after.push(random_command(&mut rng, &images, 200)),
            1 if !after.is_empty() => {
                let i = rng.next(after.len() as u32) as usize;
                after[i] = random_command(&mut rng, &images, 200);
            }
            _ => {}
        }
        let background = if rng.next(8) == 0 { RED } else { BG };
        let (mut reused, mut bands) = (Frame::new(80, 200), FrameBands::default());
        render_reusing(&before, &mut reused, BG, &mut bands);
        let snapshot_before = reused.pixels.clone();
        render_reusing(&after, &mut reused, background, &mut bands);
        let mut fresh = Frame::new(80, 200);
        render(&after, &mut fresh, background);
        assert!(reused.pixels == fresh.pixels, "case {case}: {before:?}\n→ {after:?}");
        // The same over a frame still viewed elsewhere, into another buffer of stale pixels.
        let (mut viewed, mut over_bands) = (Frame::new(80, 200), FrameBands::default());
        render_reusing(&before, &mut viewed, BG, &mut over_bands);
        let mut other = Frame::new(80, 200);
        other.pixels.iter_mut().enumerate().for_each(|(i, p)| *p = (i * 37 % 251) as u8);
        render_over(&after, &viewed, &mut other, background, &mut over_bands);
        assert!(other.pixels == fresh.pixels, "case {case}, drawn over a viewed frame: {before:?}\n→ {after:?}");
        redrawn_partly += usize::from(reused.pixels != snapshot_before && before != after);
    }
    assert!(redrawn_partly > 50, "the cases change frames: {redrawn_partly}");
}
