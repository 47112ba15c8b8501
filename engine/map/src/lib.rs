//! phoneworld-map: the city the Maps app shows. A street network, blocks, parks, a bay, transit
//! lines and the app's places are generated from the episode seed ([`City::generate`]); routes
//! follow the street graph ([`City::route`]); the map is drawn into cached tiles per (city,
//! zoom, theme, overlay) ([`tile`]) so that a pan only copies pixels.

mod city;
mod geom;
mod labels;
mod names;
mod raster;
mod route;
mod streets;
mod style;
mod tiles;

pub use city::{Area, City, Pin, PlaceInput, TransitLine};
pub use geom::P;
pub use route::{Route, RouteStep};
pub use streets::{Street, StreetKind};
pub use style::Theme;
pub use tiles::{px_per_meter, tile, TileKey, MAX_TILE_CACHE_BYTES, MAX_ZOOM, MIN_ZOOM, TILE_PX};
