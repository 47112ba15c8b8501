//! The apps' content images (`apps/<app>/images/`, made by `assets/gen_images.py`): entry
//! screens that look like a phone's (photo-like pixels, not flat placeholders), every image the
//! content names is in the bundle and decodes, the Gallery's grid does not describe its
//! pictures, and each phone picks its own variant of the photos that have several.

use std::collections::BTreeSet;

use phoneworld_data::Action;
use phoneworld_phone::{check_app, load_image, project_root};
use phoneworld_tests::{assert_screen, catalog, Harness};
use serde_json::Value;

const APPS: [(&str, &str); 4] = [
    ("com.phoneworld.gallery", "Gallery"),
    ("com.phoneworld.shop", "Shop"),
    ("com.phoneworld.food", "Food"),
    ("com.phoneworld.mini.movies", "Movies"),
];

fn distinct_colors(h: &mut Harness) -> usize {
    let frame = h.device.frame();
    assert_eq!((frame.width, frame.height), (1080, 2400));
    let mut colors: Vec<u32> =
        frame.pixels.chunks_exact(4).map(|p| u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2])).collect();
    colors.sort_unstable();
    colors.dedup();
    colors.len()
}

#[test]
fn entry_screens_have_photo_like_pixels() {
    for (package, label) in APPS {
        let mut h = Harness::new(0);
        let r = h.act(Action::OpenApp { app: package.to_owned() }).clone();
        assert!(r.ok, "{label}: {:?}", r.note);
        assert!(h.device.view_problems().is_empty(), "{label}: {:?}", h.device.view_problems());
        let n = distinct_colors(&mut h);
        assert!(n > 20_000, "{label}'s entry screen has {n} distinct colours: placeholders rather than pictures?");
    }
}

/// Every `images/...` string in a content value, with where it is.
fn image_refs(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) if s.starts_with("images/") => out.push((at.to_owned(), s.clone())),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| image_refs(x, &format!("{at}[{i}]"), out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| image_refs(x, &format!("{at}.{k}"), out)),
        _ => {}
    }
}

/// Every app with content images.
const WITH_IMAGES: [&str; 8] = [
    "com.phoneworld.gallery",
    "com.phoneworld.shop",
    "com.phoneworld.food",
    "com.phoneworld.mini.movies",
    "com.phoneworld.music",
    "com.phoneworld.chat",
    "com.phoneworld.contacts",
    "com.phoneworld.weather",
];

#[test]
fn every_image_the_content_names_is_in_the_bundle_and_check_is_clean() {
    let catalog = catalog();
    let (modules, _) = phoneworld_data::LayoutModules::load(&[project_root().join("layouts")]);
    let (library, _) = phoneworld_data::LuaLibrary::load(&[project_root().join("lib")]);
    for package in WITH_IMAGES {
        let app = catalog.get(package).unwrap();
        let mut refs = Vec::new();
        image_refs(&app.bundle.content, "content", &mut refs);
        image_refs(&app.bundle.initial_state(), "state", &mut refs);
        // Every file of images/ decodes (the weather's are named by condition in its script).
        let mut files: Vec<String> = std::fs::read_dir(app.bundle.dir.join("images"))
            .unwrap_or_else(|e| panic!("{package}: images/: {e}"))
            .map(|e| format!("images/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        files.sort();
        assert!(files.len() >= 5, "{package} has {} images", files.len());
        refs.extend(files.into_iter().map(|f| ("the images folder".to_owned(), f)));
        for (at, path) in &refs {
            let image = load_image(&app.bundle, &app.bundle.dir, path).unwrap_or_else(|e| panic!("{package} {at}: {e}"));
            assert!(image.width() >= 200 && image.height() >= 200, "{package} {at}: {path} is {}x{}", image.width(), image.height());
        }
        let problems = check_app(&app.bundle.dir, &modules, &library);
        assert!(problems.is_empty(), "{package}: {:#?}", problems.iter().map(ToString::to_string).collect::<Vec<_>>());
    }
}

#[test]
fn gallery_metadata_says_what_each_photo_shows() {
    let catalog = catalog();
    let app = catalog.get("com.phoneworld.gallery").unwrap();
    let photos = app.bundle.content["photos"].as_array().unwrap();
    for p in photos {
        let id = &p["id"];
        for key in ["shows", "colors"] {
            let list = p[key].as_array().unwrap_or_else(|| panic!("photo {id}: no `{key}`"));
            assert!(!list.is_empty(), "photo {id}: empty `{key}`");
        }
        assert!(p["scene"].as_str().is_some_and(|s| !s.is_empty()), "photo {id}: no `scene`");
        if let Some(variants) = p["variants"].as_array() {
            assert!(variants.len() >= 2, "photo {id}: one variant is no variant");
            assert_eq!(variants[0]["photo"], p["photo"], "photo {id}: the item's own look is its first variant");
        }
    }
    // The bicycle is one of the photos a task may ask about by colour.
    let bike = photos.iter().find(|p| p["caption"] == "New bike").unwrap();
    assert_eq!(bike["shows"], serde_json::json!(["bicycle"]));
}

/// The look each photo got on this phone, by photo id.
fn looks(h: &Harness) -> Vec<(i64, String, Value)> {
    let state = h.device.state_json();
    let looks = state["apps"]["com.phoneworld.gallery"]["state"]["looks"]
        .as_array()
        .or_else(|| find_looks(&state))
        .unwrap_or_else(|| panic!("no gallery looks in the state"))
        .clone();
    looks.iter().map(|l| (l["id"].as_i64().unwrap(), l["photo"].as_str().unwrap().to_owned(), l["colors"].clone())).collect()
}

/// `looks` wherever the store keeps the gallery's state.
fn find_looks(v: &Value) -> Option<&Vec<Value>> {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(a)) = o.get("looks") {
                return Some(a);
            }
            o.values().find_map(find_looks)
        }
        Value::Array(a) => a.iter().find_map(find_looks),
        _ => None,
    }
}

#[test]
fn each_phone_picks_a_variant_and_the_grid_shows_it_without_describing_it() {
    let catalog = catalog();
    let app = catalog.get("com.phoneworld.gallery").unwrap();
    let photos = app.bundle.content["photos"].as_array().unwrap();
    let mut seen = BTreeSet::new();
    for seed in 0..6 {
        let mut h = Harness::new(seed);
        let looks = looks(&h);
        assert_eq!(looks.len(), photos.len());
        for ((id, photo, colors), p) in looks.iter().zip(photos) {
            assert_eq!(Some(*id), p["id"].as_i64());
            let variants = p["variants"].as_array().cloned().unwrap_or_else(|| vec![p.clone()]);
            let chosen = variants
                .iter()
                .find(|v| v["photo"] == photo.as_str())
                .unwrap_or_else(|| panic!("photo {id}: {photo} is none of its variants"));
            assert_eq!(&chosen["colors"], colors, "photo {id}: the state keeps the chosen variant's metadata");
        }
        let bike = looks.iter().find(|l| l.0 == 26).unwrap();
        seen.insert(bike.1.clone());
        if seed == 0 {
            h.open("Gallery");
            let tile = h.expect("photo_26");
            assert_eq!(tile.content_description.as_deref(), Some("Photo, Oct 10"));
            assert!(h.find("New bike").is_none(), "the grid must not caption its pictures");
            h.tap("photo_26");
            assert_eq!(h.device.foreground().1, "photo");
            assert!(h.find("New bike").is_some(), "the photo's own screen shows its caption");
        }
    }
    assert!(seen.len() >= 2, "six phones all showed the same bicycle: {seen:?}");
}

/// The screens that show content images, beyond the entry screens `every_app` snapshots.
#[test]
fn screens_with_content_images() {
    let walks: [(&str, &str, &[&str]); 9] = [
        ("Gallery", "content_gallery_albums", &["Albums"]),
        ("Gallery", "content_gallery_photo", &["photo_26"]),
        ("Shop", "content_shop_product", &["Everyday Crew Tee"]),
        ("Food", "content_food_restaurant", &["Nonna Lucia, Italian, rated 4.7, 25–35 min, $1.99 delivery"]),
        ("Movies", "content_movies_movie", &["Starfall Station"]),
        ("Music", "content_music_albums", &["Albums"]),
        ("Chatly", "content_chatly_moments", &["Discover", "Moments"]),
        ("Contacts", "content_contacts_detail", &["Aisha Khan"]),
        ("Weather", "content_weather_home", &[]),
    ];
    for (app, name, taps) in walks {
        let mut h = Harness::new(0);
        h.open(app);
        for label in taps {
            h.tap(label);
        }
        assert!(h.device.view_problems().is_empty(), "{name}: {:?}", h.device.view_problems());
        assert_screen!(h, name);
    }
}

#[test]
fn a_moments_dish_photo_names_a_dish_food_sells() {
    let catalog = catalog();
    let feed = catalog.get("com.phoneworld.chat").unwrap().bundle.initial_state()["feed"].clone();
    let restaurants = catalog.get("com.phoneworld.food").unwrap().bundle.content["restaurants"].clone();
    let dishes: Vec<_> = feed
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["photos"].as_array().cloned().unwrap_or_default())
        .filter(|ph| ph.get("dish").is_some())
        .collect();
    assert!(!dishes.is_empty(), "no Moments photo shows a dish");
    for ph in dishes {
        let (r, d) = (&ph["dish"]["restaurant"], &ph["dish"]["name"]);
        let restaurant = restaurants.as_array().unwrap().iter().find(|x| &x["name"] == r).unwrap_or_else(|| panic!("no restaurant {r}"));
        let dish = restaurant["menu"].as_array().unwrap().iter().find(|x| &x["name"] == d).unwrap_or_else(|| panic!("{r} has no dish {d}"));
        assert_eq!(dish["shows"], ph["shows"], "the Moments photo shows what Food's picture of {d} shows");
    }
}
