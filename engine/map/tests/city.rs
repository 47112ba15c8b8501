//! The seeded city: deterministic per seed, places on their named streets, routes along the
//! streets, tiles the same pixels every time.

use phoneworld_map::{px_per_meter, tile, City, PlaceInput, Theme, TileKey, TILE_PX};

pub fn places() -> Vec<PlaceInput> {
    let p = |id: i64, name: &str, category: &str, address: &str| PlaceInput {
        id,
        name: name.into(),
        category: category.into(),
        address: address.into(),
    };
    vec![
        p(1, "Koji Ramen Bar", "Restaurants", "14 Elm St, Bayport, CA"),
        p(2, "Casa Lúcia", "Restaurants", "220 Harbor Ave, Bayport, CA"),
        p(4, "Nonna's Table", "Restaurants", "301 Market St, Bayport, CA"),
        p(8, "Morning Ritual", "Coffee", "140 Oak St, Bayport, CA"),
        p(12, "Union Square Market", "Groceries", "Union Square, Bayport, CA"),
        p(15, "Riverside Park", "Parks", "Riverside Dr, Bayport, CA"),
        p(21, "Maritime History Museum", "Museums", "Pier 45, Bayport, CA"),
        p(32, "Post Office · Elm", "Services", "60 Elm St, Bayport, CA"),
    ]
}

const HOME: &str = "500 Central Ave, Bayport, CA";

/// The pixels of a `w`×`h` view centred on `c` at `zoom`, assembled from tiles.
pub fn view(city: &City, zoom: u8, cx: f64, cy: f64, w: u32, h: u32, route: Option<&[phoneworld_map::P]>) -> Vec<u8> {
    let s = px_per_meter(zoom, 2.625);
    let (left, top) = ((cx * s - f64::from(w) / 2.0).round() as i64, (cy * s - f64::from(h) / 2.0).round() as i64);
    let t = i64::from(TILE_PX);
    let mut out = vec![0u8; (w * h * 4) as usize];
    for ty in left.div_euclid(t).min(top.div_euclid(t))..=((top + i64::from(h)).div_euclid(t)).max((left + i64::from(w)).div_euclid(t)) {
        for tx in left.div_euclid(t)..=(left + i64::from(w)).div_euclid(t) {
            let key = TileKey { zoom, theme: Theme::Light, density_milli: 2625, tx: tx as i32, ty: ty as i32 };
            let img = tile(city, key, route);
            let px = img.raster_pixels().expect("tiles are raster");
            for row in 0..t {
                let y = ty * t + row - top;
                if y < 0 || y >= i64::from(h) {
                    continue;
                }
                for col in 0..t {
                    let x = tx * t + col - left;
                    if x < 0 || x >= i64::from(w) {
                        continue;
                    }
                    let (o, i) = (((y * i64::from(w) + x) * 4) as usize, ((row * t + col) * 4) as usize);
                    out[o..o + 4].copy_from_slice(&px[i..i + 4]);
                }
            }
        }
    }
    out
}

#[test]
fn same_seed_same_city_other_seed_other_city() {
    let a = City::generate(7, &places(), HOME);
    let b = City::generate(7, &places(), HOME);
    let c = City::generate(8, &places(), HOME);
    assert_eq!(a.key, b.key);
    assert_eq!(a.nodes, b.nodes);
    assert_ne!(a.nodes, c.nodes);
    let va = view(&a, 15, a.home.x, a.home.y, 300, 300, None);
    assert_eq!(va, view(&b, 15, b.home.x, b.home.y, 300, 300, None));
    assert_ne!(va, view(&c, 15, c.home.x, c.home.y, 300, 300, None));
}

#[test]
fn places_stand_on_their_named_streets() {
    let city = City::generate(3, &places(), HOME);
    for (id, street) in [(1, "Elm St"), (2, "Harbor Ave"), (4, "Market St"), (8, "Oak St"), (15, "Riverside Dr"), (32, "Elm St")] {
        let pin = city.pin(id).unwrap();
        let on = city.streets.iter().filter(|s| s.nodes.contains(&pin.node)).map(|s| s.name.as_str()).collect::<Vec<_>>();
        assert!(on.contains(&street), "place {id} is on {on:?}, not {street}");
        assert!(pin.pos.dist(city.nodes[pin.node]) < 20.0, "the pin stands beside its street");
    }
    // Harbor Ave runs along the bay.
    assert!(city.streets.iter().any(|s| s.name == "Harbor Ave" && s.kind == phoneworld_map::StreetKind::Shore));
    // Lower numbers come first along a street.
    let elm = city.streets.iter().find(|s| s.nodes.contains(&city.pin(1).unwrap().node)).unwrap();
    let at = |id| elm.nodes.iter().position(|&n| n == city.pin(id).unwrap().node).unwrap();
    assert!(at(1) < at(32), "14 Elm St comes before 60 Elm St");
}

#[test]
fn routes_follow_streets() {
    let city = City::generate(11, &places(), HOME);
    let r = city.route(0, 21).expect("the museum is reachable");
    // Every hop of the route is a street segment.
    for w in r.points.windows(2) {
        let on_street = city.streets.iter().any(|s| {
            s.nodes.windows(2).any(|e| {
                let (a, b) = (city.nodes[e[0]], city.nodes[e[1]]);
                (a == w[0] && b == w[1]) || (a == w[1] && b == w[0])
            })
        });
        assert!(on_street, "hop {:?} → {:?} is not a street", w[0], w[1]);
    }
    let straight = r.points[0].dist(*r.points.last().unwrap());
    assert!(r.meters >= straight - 1e-6, "a route is no shorter than the straight line");
    assert!((r.steps.iter().map(|s| s.meters).sum::<f64>() - r.meters).abs() < 1e-6);
    assert!(r.steps[0].street.ends_with("Ave"), "it starts on Central Ave: {:?}", r.steps[0]);
    assert_eq!(r.points[0], city.nodes[city.home_node]);
}
