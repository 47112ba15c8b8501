//! Writes a view of the seeded city to a PNG: `cargo run -p phoneworld-map --example dump -- SEED ZOOM OUT.png`.
#[path = "../tests/city.rs"]
#[allow(dead_code, unreachable_pub)]
mod city;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seed = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let zoom = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(15);
    let out = args.get(3).cloned().unwrap_or_else(|| "/tmp/map.png".into());
    let places = city::places();
    let c = phoneworld_map::City::generate(seed, &places, "500 Central Ave, Bayport, CA");
    let route = c.route(0, 21).map(|r| r.points);
    let px = city::view(&c, zoom, c.home.x, c.home.y, 1080, 1600, route.as_deref());
    let f = phoneworld_render::Frame { width: 1080, height: 1600, pixels: px };
    std::fs::write(out, f.to_png()).unwrap();
}
