//! Image assets from an app bundle (`tests/fixtures/images/photos`): a grid of PNG, JPEG, WebP
//! and SVG images with one missing (a placeholder), fit modes, rounded and round images and an
//! avatar photo; what `phoneworld check` says about bad literal paths; determinism.

use std::path::PathBuf;
use std::sync::Arc;

use phoneworld_data::{AppBundle, LayoutModules, LuaLibrary};
use phoneworld_phone::{check_app, load_image, project_root, Catalog, Device, DeviceConfig};
use phoneworld_tests::{assert_screen, Harness};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/images/photos")
}

fn catalog() -> Arc<Catalog> {
    let root = project_root();
    let catalog = Catalog::load(&[root.join("apps/settings"), fixture()], &[root.join("layouts")]).unwrap();
    assert!(catalog.broken.is_empty(), "{:?}", catalog.broken);
    catalog
}

fn photos(catalog: Arc<Catalog>) -> Harness {
    let mut h = Harness { device: Device::new(catalog, DeviceConfig::default()).unwrap(), results: Vec::new() };
    h.open("Photos");
    h
}

#[test]
fn a_grid_of_bundle_images_with_a_placeholder_for_the_missing_one() {
    let mut h = photos(catalog());
    assert_screen!(h, "images_photos_light");
    let problems = h.device.view_problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("images/lost.png"), "{problems:?}");
    let sunset = h.expect("Sunset");
    assert_eq!(sunset.class_name.as_deref(), Some("android.widget.ImageView"));
    assert_eq!(h.expect("Lost").class_name.as_deref(), Some("android.widget.ImageView"));
    assert_eq!(h.expect("Ann Lee").class_name.as_deref(), Some("android.widget.ImageView"));
}

#[test]
fn images_are_decoded_once_per_catalog_and_render_the_same_everywhere() {
    let shared = catalog();
    let mut a = photos(Arc::clone(&shared));
    let mut b = photos(Arc::clone(&shared));
    let mut c = photos(catalog());
    let hash = a.device.frame_hash();
    assert_eq!(b.device.frame_hash(), hash, "two devices of one catalog");
    assert_eq!(c.device.frame_hash(), hash, "a device of another catalog");
    let app = shared.get("com.phoneworld.test.photos").unwrap();
    let first = shared.images.get(&app.bundle, "images/sunset.png").unwrap();
    assert!(Arc::ptr_eq(&first, &shared.images.get(&app.bundle, "images/sunset.png").unwrap()));
}

#[test]
fn check_reports_missing_undecodable_and_outside_literal_images_with_their_line() {
    let (modules, _) = LayoutModules::load(&[project_root().join("layouts")]);
    let problems = check_app(&fixture(), &modules, &LuaLibrary::default());
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let broken =
        |needle: &str| problems.iter().find(|p| p.file.ends_with("screens/broken.ron") && p.message.contains(needle)).map(|p| p.line);
    assert_eq!(broken("images/nope.png"), Some(Some(5)), "{shown:#?}");
    assert_eq!(broken("corrupt JPEG"), Some(Some(6)), "{shown:#?}");
    assert_eq!(broken("points outside"), Some(Some(7)), "{shown:#?}");
    assert_eq!(problems.len(), 3, "main.ron's literal images are fine: {shown:#?}");
}

#[test]
fn an_oversized_image_header_is_an_error_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("pw-images-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("screens")).unwrap();
    std::fs::create_dir_all(dir.join("images")).unwrap();
    std::fs::write(dir.join("app.ron"), r#"App(package: "t.big", label: "Big", icon: "photo", entry: "main")"#).unwrap();
    std::fs::write(dir.join("screens/main.ron"), r#"Screen(root: Image(src: "images/huge.png"))"#).unwrap();
    // A PNG header claiming 100000×100000 pixels (the decoder never gets to the pixels).
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&100_000u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(&13u32.to_be_bytes());
    png.extend_from_slice(&ihdr);
    png.extend_from_slice(&crc32(&ihdr).to_be_bytes());
    std::fs::write(dir.join("images/huge.png"), png).unwrap();
    let bundle = AppBundle::load(&dir).unwrap();
    let err = load_image(&bundle, &dir, "images/huge.png").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("images/huge.png") && text.contains("100000x100000"), "{text}");
    assert_eq!(err.path(), Some(dir.join("images/huge.png").as_path()));
    std::fs::remove_dir_all(&dir).unwrap();
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
