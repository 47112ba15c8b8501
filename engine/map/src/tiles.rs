//! Map tiles: square bitmaps of the map at one zoom, cached process-wide by (city, zoom,
//! theme, density, tile, route) within a byte bound. A pan shows the same tiles at another
//! offset, so only tiles coming into view are drawn.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use phoneworld_render::Image;

use crate::city::City;
use crate::geom::P;
use crate::labels::{self, Label};
use crate::raster::{self, TileJob};
use crate::style::Theme;

/// Side of a tile, pixels.
pub const TILE_PX: u32 = 512;
pub const MIN_ZOOM: u8 = 12;
pub const MAX_ZOOM: u8 = 18;
/// Bytes of tiles kept; past it the oldest go first (and are drawn again, to the same pixels).
pub const MAX_TILE_CACHE_BYTES: usize = 96 << 20;
/// Label plans kept (one per city, zoom and density).
const MAX_PLANS: usize = 16;

/// Pixels per metre at a zoom: at zoom 16 a metre is a dp; each zoom step doubles it.
pub fn px_per_meter(zoom: u8, px_per_dp: f32) -> f64 {
    2f64.powi(i32::from(zoom.clamp(MIN_ZOOM, MAX_ZOOM)) - 16) * f64::from(px_per_dp)
}

/// Which tile: zoom, theme, density (px per dp × 1000) and its column and row in zoom pixels
/// divided by [`TILE_PX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TileKey {
    pub zoom: u8,
    pub theme: Theme,
    pub density_milli: u32,
    pub tx: i32,
    pub ty: i32,
}

type CacheKey = ([u8; 32], TileKey, [u8; 16]);
type PlanKey = ([u8; 32], u8, u32);

#[derive(Default)]
struct Cache {
    tiles: BTreeMap<CacheKey, Arc<Image>>,
    order: VecDeque<CacheKey>,
    bytes: usize,
    plans: VecDeque<(PlanKey, Arc<Vec<Label>>)>,
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn route_key(route: Option<&[P]>) -> [u8; 16] {
    let Some(route) = route else { return [0; 16] };
    let mut h = blake3::Hasher::new();
    for p in route {
        h.update(&p.x.to_le_bytes());
        h.update(&p.y.to_le_bytes());
    }
    let mut out = [0; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out[0] |= 1;
    out
}

fn plan(city: &City, zoom: u8, density_milli: u32) -> Arc<Vec<Label>> {
    let key = (city.key, zoom, density_milli);
    if let Some((_, p)) = cache().lock().unwrap_or_else(|e| e.into_inner()).plans.iter().find(|(k, _)| *k == key) {
        return Arc::clone(p);
    }
    let ppd = f64::from(density_milli) / 1000.0;
    let p = Arc::new(labels::plan(city, zoom, px_per_meter(zoom, ppd as f32), ppd));
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    if c.plans.len() >= MAX_PLANS {
        c.plans.pop_front();
    }
    c.plans.push_back((key, Arc::clone(&p)));
    p
}

/// The tile, drawn on first use; `route` is drawn over the streets.
pub fn tile(city: &City, key: TileKey, route: Option<&[P]>) -> Arc<Image> {
    let ck = (city.key, key, route_key(route));
    if let Some(t) = cache().lock().unwrap_or_else(|e| e.into_inner()).tiles.get(&ck) {
        return Arc::clone(t);
    }
    let labels = plan(city, key.zoom, key.density_milli);
    let ppd = f64::from(key.density_milli) / 1000.0;
    let job = TileJob {
        city,
        labels: &labels,
        theme: key.theme,
        zoom: key.zoom,
        s: px_per_meter(key.zoom, ppd as f32),
        px_per_dp: ppd,
        x0: f64::from(key.tx) * f64::from(TILE_PX),
        y0: f64::from(key.ty) * f64::from(TILE_PX),
        size: TILE_PX,
        route,
    };
    let pixels = raster::render(&job);
    // The size is fixed and the buffer matches it, so this cannot fail.
    let image = Arc::new(Image::from_premultiplied(TILE_PX, TILE_PX, pixels).expect("a tile is a valid image"));
    let size = image.byte_size();
    let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = c.tiles.get(&ck) {
        return Arc::clone(t);
    }
    while c.bytes + size > MAX_TILE_CACHE_BYTES {
        let Some(old) = c.order.pop_front() else { break };
        if let Some(gone) = c.tiles.remove(&old) {
            c.bytes -= gone.byte_size();
        }
    }
    c.bytes += size;
    c.order.push_back(ck);
    c.tiles.insert(ck, Arc::clone(&image));
    image
}
