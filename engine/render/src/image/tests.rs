use super::*;
use crate::{render, Color, DrawCmd, Frame};

const RED: [u8; 4] = [255, 0, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];

fn png(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(rgba).unwrap();
    w.finish().unwrap();
    out
}

/// A `w`×`h` image whose left half is red and right half blue.
fn halves(w: u32, h: u32) -> Arc<Image> {
    let mut px = Vec::new();
    for _ in 0..h {
        for x in 0..w {
            px.extend_from_slice(if x < w / 2 { &RED } else { &BLUE });
        }
    }
    Arc::new(Image::decode(&png(w, h, &px)).unwrap())
}

fn draw(image: &Arc<Image>, size: u32, fit: Fit, radius: f32, circle: bool) -> Frame {
    let mut f = Frame::new(size, size);
    let rect = Rect::new(0.0, 0.0, size as f32, size as f32);
    render(&[DrawCmd::Image { rect, image: Arc::clone(image), fit, radius, circle }], &mut f, Color::WHITE);
    f
}

fn px(f: &Frame, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * f.width + x) * 4) as usize;
    f.pixels[i..i + 4].try_into().unwrap()
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn a_png_header_claiming_too_many_pixels_is_refused_before_decoding() {
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut file = b"\x89PNG\r\n\x1a\n".to_vec();
    file.extend_from_slice(&13u32.to_be_bytes());
    file.extend_from_slice(&ihdr);
    file.extend_from_slice(&crc32(&ihdr).to_be_bytes());
    let err = Image::decode(&file).unwrap_err();
    assert!(matches!(err, ImageError::TooManyPixels { width: 100_000, height: 100_000 }), "{err}");
}

#[test]
fn corrupt_and_unknown_files_are_errors() {
    let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10];
    jpeg.extend_from_slice(b"JFIF\0garbage that is not a jpeg");
    assert!(matches!(Image::decode(&jpeg), Err(ImageError::Corrupt { format: "JPEG", .. })));
    let mut png_file = png(4, 4, &[7; 64]);
    png_file.truncate(png_file.len() - 20);
    assert!(matches!(Image::decode(&png_file), Err(ImageError::Corrupt { format: "PNG", .. })));
    assert!(matches!(Image::decode(b"GIF89a..."), Err(ImageError::UnknownFormat)));
    assert!(matches!(Image::decode(b"<svg nonsense"), Err(ImageError::Corrupt { format: "SVG", .. })));
    assert!(matches!(Image::decode(b"RIFF\0\0\0\0WEBPVP8 junk"), Err(ImageError::Corrupt { format: "WebP", .. })));
}

#[test]
fn jpeg_webp_and_svg_decode() {
    let mut jpeg = Vec::new();
    jpeg_encoder::Encoder::new(&mut jpeg, 100).encode(&[200u8, 30, 40].repeat(64), 8, 8, jpeg_encoder::ColorType::Rgb).unwrap();
    let img = Arc::new(Image::decode(&jpeg).unwrap());
    assert_eq!((img.width(), img.height()), (8, 8));
    let p = px(&draw(&img, 8, Fit::Fill, 0.0, false), 4, 4);
    assert!(p[0].abs_diff(200) <= 3 && p[1].abs_diff(30) <= 3 && p[2].abs_diff(40) <= 3, "{p:?}");

    let mut webp = Vec::new();
    image_webp::WebPEncoder::new(&mut webp).encode(&[10u8, 20, 30].repeat(12), 4, 3, image_webp::ColorType::Rgb8).unwrap();
    let img = Arc::new(Image::decode(&webp).unwrap());
    assert_eq!((img.width(), img.height()), (4, 3));
    assert_eq!(px(&draw(&img, 6, Fit::Fill, 0.0, false), 3, 3), [10, 20, 30, 255]);

    let svg = br#"<?xml version="1.0"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="10" height="10" fill="red"/><rect x="10" width="10" height="10" fill="blue"/><image href="/etc/passwd" width="20" height="10"/></svg>"#;
    let img = Arc::new(Image::decode(svg).unwrap());
    assert!(img.is_svg());
    let f = draw(&img, 20, Fit::Contain, 0.0, false);
    assert_eq!((px(&f, 2, 10), px(&f, 17, 10), px(&f, 10, 2)), (RED, BLUE, WHITE));
    assert_eq!(draw(&img, 20, Fit::Contain, 0.0, false), f, "SVG rendering is repeatable");
}

#[test]
fn fit_modes_place_a_two_by_one_image_in_a_square() {
    let img = halves(2, 1);
    // fill: stretched, one column each.
    let f = draw(&img, 2, Fit::Fill, 0.0, false);
    assert_eq!([px(&f, 0, 0), px(&f, 1, 0), px(&f, 0, 1), px(&f, 1, 1)], [RED, BLUE, RED, BLUE]);
    // contain: the top row (1 px high, centred rounding down), the rest untouched.
    let f = draw(&img, 2, Fit::Contain, 0.0, false);
    assert_eq!([px(&f, 0, 0), px(&f, 1, 0), px(&f, 0, 1), px(&f, 1, 1)], [RED, BLUE, WHITE, WHITE]);
    // cover: the middle source pixel-width is enlarged bilinearly (a quarter of the other side).
    let f = draw(&img, 2, Fit::Cover, 0.0, false);
    assert_eq!([px(&f, 0, 0), px(&f, 1, 0)], [[191, 0, 64, 255], [64, 0, 191, 255]]);
    assert_eq!(px(&f, 0, 1), px(&f, 0, 0));
    // Shrinking averages whole source pixels: cover crops the middle 10 of 20 columns.
    let f = draw(&halves(20, 10), 10, Fit::Cover, 0.0, false);
    assert!((0..10).all(|y| (0..5).all(|x| px(&f, x, y) == RED) && (5..10).all(|x| px(&f, x, y) == BLUE)));
    let f = draw(&halves(40, 20), 10, Fit::Contain, 0.0, false);
    // 10×5, centred: rows 2 to 6.
    assert_eq!([px(&f, 0, 1), px(&f, 0, 2), px(&f, 9, 6), px(&f, 9, 7)], [WHITE, RED, BLUE, WHITE]);
}

#[test]
fn circle_and_rounded_masks_clip_the_image() {
    let solid = Arc::new(Image::from_premultiplied(4, 4, RED.repeat(16)).unwrap());
    let f = draw(&solid, 20, Fit::Cover, 0.0, true);
    assert_eq!(px(&f, 10, 10), RED);
    assert_eq!(px(&f, 0, 0), WHITE, "outside the circle");
    assert_eq!(px(&f, 19, 19), WHITE);
    assert_eq!(px(&f, 0, 10), px(&draw_circle(20), 0, 10), "the circle's edge is the Circle command's");
    let f = draw(&solid, 20, Fit::Cover, 6.0, false);
    assert_eq!((px(&f, 0, 0), px(&f, 10, 0), px(&f, 0, 10)), (WHITE, RED, RED));
}

fn draw_circle(size: u32) -> Frame {
    let mut f = Frame::new(size, size);
    let r = size as f32 / 2.0;
    render(&[DrawCmd::Circle { cx: r, cy: r, r, color: Color::rgb(255, 0, 0) }], &mut f, Color::WHITE);
    f
}

#[test]
fn scaled_copies_are_shared_per_size_and_fit() {
    let img = halves(30, 20);
    let a = scaled(&img, 7, 5, Fit::Cover);
    assert!(Arc::ptr_eq(&a, &scaled(&img, 7, 5, Fit::Cover)));
    assert!(!Arc::ptr_eq(&a, &scaled(&img, 7, 5, Fit::Fill)));
    assert!(!Arc::ptr_eq(&a, &scaled(&img, 8, 5, Fit::Cover)));
    // A window of a huge box gives the same pixels as that part of the whole.
    let whole = scale_window(&img, 64, 48, Fit::Cover, Rect::new(0.0, 0.0, 64.0, 48.0));
    let part = scale_window(&img, 64, 48, Fit::Cover, Rect::new(10.0, 7.0, 20.0, 9.0));
    for y in 0..9 {
        let w = &whole.pixels[((y + 7) * 64 + 10) * 4..((y + 7) * 64 + 30) * 4];
        assert_eq!(&part.pixels[y * 20 * 4..(y + 1) * 20 * 4], w);
    }
}

#[test]
fn translucent_pixels_blend_premultiplied() {
    // 50% black over white.
    let img = Arc::new(Image::decode(&png(1, 1, &[0, 0, 0, 128])).unwrap());
    assert_eq!(px(&draw(&img, 2, Fit::Fill, 0.0, false), 1, 1), [127, 127, 127, 255]);
}

#[test]
fn images_are_shareable_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Image>();
}
