//! Writes the small images of the test fixture app `tests/fixtures/images/photos`, or with
//! `--bench` the photos of the benchmark fixture `engine/bench/fixtures/thumbnails`:
//! `cargo run -p phoneworld-render --example fixture_images -- tests/fixtures/images/photos/images`
//! `cargo run -p phoneworld-render --example fixture_images -- engine/bench/fixtures/thumbnails/images --bench`.

use std::path::PathBuf;

fn pixels(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).flat_map(|(x, y)| f(x, y)).collect()
}

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).expect("output folder"));
    std::fs::create_dir_all(&dir).expect("output folder");
    if std::env::args().any(|a| a == "--bench") {
        bench_photos(&dir);
        return;
    }
    // A sunset gradient, a PNG with a transparent border.
    let (w, h) = (48, 32);
    let mut rgba = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let edge = x < 2 || y < 2 || x >= w - 2 || y >= h - 2;
            rgba.extend_from_slice(&[250 - (y * 4) as u8, 120 + (x * 2) as u8, 40 + (y * 5) as u8, if edge { 0 } else { 255 }]);
        }
    }
    let mut png_bytes = Vec::new();
    let mut enc = png::Encoder::new(&mut png_bytes, w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().expect("png");
    writer.write_image_data(&rgba).expect("png");
    writer.finish().expect("png");
    std::fs::write(dir.join("sunset.png"), png_bytes).expect("write");

    // A green and blue checkerboard, a JPEG.
    let check = pixels(40, 40, |x, y| if (x / 8 + y / 8) % 2 == 0 { [30, 140, 70] } else { [40, 90, 200] });
    let mut jpeg = Vec::new();
    jpeg_encoder::Encoder::new(&mut jpeg, 85).encode(&check, 40, 40, jpeg_encoder::ColorType::Rgb).expect("jpeg");
    std::fs::write(dir.join("checks.jpg"), jpeg).expect("write");

    // Tall stripes, a lossless WebP.
    let stripes = pixels(24, 36, |x, _| if x % 6 < 3 { [200, 60, 120] } else { [250, 220, 90] });
    let mut webp = Vec::new();
    image_webp::WebPEncoder::new(&mut webp).encode(&stripes, 24, 36, image_webp::ColorType::Rgb8).expect("webp");
    std::fs::write(dir.join("stripes.webp"), webp).expect("write");

    // Not an image at all, though it starts like a JPEG.
    std::fs::write(dir.join("corrupt.jpg"), b"\xff\xd8\xff\xe0\x00\x10JFIF\x00 truncated").expect("write");
}

/// Three photo-sized JPEGs (smooth gradients with a soft disc, 320×240) for the thumbnail bench.
fn bench_photos(dir: &std::path::Path) {
    for (i, tint) in [[255u32, 170, 90], [90, 170, 255], [140, 220, 120]].iter().enumerate() {
        let photo = pixels(320, 240, |x, y| {
            let (dx, dy) = (x as i64 - 160, y as i64 - 110);
            let disc = if dx * dx + dy * dy < 60 * 60 { 60 } else { 0 };
            let mut px = [0u8; 3];
            for ch in 0..3 {
                px[ch] = ((tint[ch] * (40 + x / 4 + y / 3)) / 255 + disc).min(255) as u8;
            }
            px
        });
        let mut jpeg = Vec::new();
        jpeg_encoder::Encoder::new(&mut jpeg, 80).encode(&photo, 320, 240, jpeg_encoder::ColorType::Rgb).expect("jpeg");
        std::fs::write(dir.join(format!("photo{}.jpg", i + 1)), jpeg).expect("write");
    }
}
