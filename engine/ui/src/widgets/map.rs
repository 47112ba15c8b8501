//! `Map`: the app's city (manifest `map`) drawn from cached tiles around the camera stored at
//! `value` (`{x, y, zoom}`; the user's location at zoom 15 when unset), with a pin for each of
//! `items` (objects with the place's `id`; `on_tap` runs with the pin's item), the user's
//! location, the `route` (`{from, to}`), and zoom and re-centre buttons. A drag pans the map
//! and a double tap zooms in (see `map_gestures`).

use std::sync::Arc;

use phoneworld_data::Node;
use phoneworld_layout::{Align, Content, Direction, ImagePaint, Justify, ViewNode};
use phoneworld_map::{px_per_meter, City, Theme as MapTheme, TileKey, MAX_ZOOM, MIN_ZOOM, TILE_PX};
use phoneworld_render::{Color, Fit};
use phoneworld_text::Weight;
use serde_json::{json, Value};

use crate::builder::{container, At, Builder};
use crate::interaction::{EventSource, Hit, Interaction, ItemSource, Target};
use crate::kit::{one_line, silence};
use crate::theme::MIN_TOUCH_DP;

/// Zoom of a camera that does not say.
const DEFAULT_ZOOM: u8 = 15;
/// Height of a map that does not say, dp.
const DEFAULT_HEIGHT: f32 = 320.0;

struct Camera {
    x: f64,
    y: f64,
    zoom: u8,
}

fn camera(v: Option<&Value>, city: &City) -> Camera {
    let num = |k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_f64).filter(|n| n.is_finite());
    let zoom = num("zoom").map_or(DEFAULT_ZOOM, |z| z.round().clamp(f64::from(MIN_ZOOM), f64::from(MAX_ZOOM)) as u8);
    // A camera far outside the city comes back to its edge.
    let (lo, hi) = city.bounds;
    Camera { x: num("x").unwrap_or(city.home.x).clamp(lo.x, hi.x), y: num("y").unwrap_or(city.home.y).clamp(lo.y, hi.y), zoom }
}

fn absolute(v: &mut ViewNode, x: f32, y: f32, w: f32, h: f32) {
    v.style.absolute = Some([Some(x), Some(y), None, None]);
    v.style.width = Some(w);
    v.style.height = Some(h);
    v.style.shrink = false;
}

pub(super) fn map(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let mut v = container(Direction::Column);
    let height = b.m.dp(p.height.unwrap_or(DEFAULT_HEIGHT));
    v.style.height = Some(height);
    v.style.shrink = false;
    v.style.viewport = true;
    v.paint.clip = true;
    let mut a = b.a11y("android.view.View");
    a.content_desc = "Map".into();
    v.set_a11y(a);
    let Some(spec) = b.bundle.manifest.map.clone() else {
        b.problem("a Map needs the app's manifest to say where its city comes from (`map`)".to_owned());
        v.paint.background = Some(b.theme.surface_variant);
        return v;
    };
    phoneworld_data::note_read(phoneworld_data::PathRoot::State);
    phoneworld_data::note_read(phoneworld_data::PathRoot::Content);
    let city = b.maps.city(b.app, &spec, at.scope.state, at.scope.content);
    let margin = p.margin.map_or(0.0, |m| b.m.dp(m.left) + b.m.dp(m.right));
    let width = (b.screen_w - margin).max(1.0);
    let cam_value = p.value.as_ref().and_then(|path| at.scope.get(path));
    let cam = camera(cam_value.as_deref(), &city);
    let ppd = b.m.px_per_dp;
    let s = px_per_meter(cam.zoom, ppd);
    // The map's top-left in the zoom's pixel space: whole pixels, so tiles land on whole pixels.
    let left = (cam.x * s - f64::from(width) / 2.0).round();
    let top = (cam.y * s - f64::from(height) / 2.0).round();
    let to_px = |p: phoneworld_map::P| ((p.x * s - left) as f32, (p.y * s - top) as f32);
    let theme = if b.theme.dark { MapTheme::Dark } else { MapTheme::Light };

    let route = p.route.as_ref().map(|t| t.value(&at.scope).into_owned()).and_then(|r| {
        let id = |k: &str| r.get(k).and_then(Value::as_i64);
        city.route(id("from")?, id("to")?)
    });
    let t = f64::from(TILE_PX);
    let density_milli = (ppd * 1000.0).round() as u32;
    let (tx0, ty0) = ((left / t).floor() as i32, (top / t).floor() as i32);
    let (tx1, ty1) = (((left + f64::from(width) - 1.0) / t).floor() as i32, ((top + f64::from(height) - 1.0) / t).floor() as i32);
    for ty in ty0..=ty1 {
        for tx in tx0..=tx1 {
            let image = phoneworld_map::tile(
                &city,
                TileKey { zoom: cam.zoom, theme, density_milli, tx, ty },
                route.as_ref().map(|r| r.points.as_slice()),
            );
            let mut tile = ViewNode {
                content: Content::Image(ImagePaint { image, fit: Fit::Fill, radius: 0.0, circle: false }),
                ..ViewNode::default()
            };
            absolute(&mut tile, (f64::from(tx) * t - left) as f32, (f64::from(ty) * t - top) as f32, TILE_PX as f32, TILE_PX as f32);
            v.children.push(tile);
        }
    }

    let target = p.value.as_ref().and_then(|path| b.target(path, at));
    let handler = b.handler(p.on_change.as_ref(), at);
    let event = b.event(node, at, None);
    if let Some(target) = &target {
        let pan = Interaction::Map {
            app: b.app.to_owned(),
            target: target.clone(),
            x: cam.x,
            y: cam.y,
            zoom: cam.zoom,
            scale: s,
            handler: handler.clone(),
            event: event.clone(),
        };
        v.hit = Some(b.hit(Hit { tap: Some(pan), long_press: None, scroll: None }));
    }

    location_dot(b, &mut v, to_px(city.home));
    pins(b, node, at, &mut v, &city, &to_px, width, height);
    if let Some(target) = &target {
        v.children.push(buttons(b, target, &handler, &event, &cam, &city, width, height));
    }
    v
}

fn location_dot(b: &mut Builder<'_>, v: &mut ViewNode, (x, y): (f32, f32)) {
    let blue = Color::rgb(0x42, 0x85, 0xF4);
    for (d, color, border) in [(44.0, Color::rgba(0x42, 0x85, 0xF4, 48), None), (18.0, blue, Some((Color::WHITE, b.m.dp(3.0))))] {
        let size = b.m.dp(d);
        let mut dot = ViewNode::default();
        absolute(&mut dot, (x - size / 2.0).round(), (y - size / 2.0).round(), size, size);
        dot.paint.background = Some(color);
        dot.paint.border = border;
        dot.paint.circle = true;
        v.children.push(dot);
    }
}

#[allow(clippy::too_many_arguments, reason = "the map's geometry")]
fn pins(
    b: &mut Builder<'_>,
    node: &Node,
    at: &At<'_>,
    v: &mut ViewNode,
    city: &Arc<City>,
    to_px: &dyn Fn(phoneworld_map::P) -> (f32, f32),
    width: f32,
    height: f32,
) {
    let Some(items) = node.props.items.as_ref().map(|t| t.value(&at.scope).into_owned()) else { return };
    let Some(items) = items.as_array() else { return };
    let handler = b.handler(node.props.on_tap.as_ref(), at);
    let r = b.m.dp(14.0);
    let touch = b.m.dp(MIN_TOUCH_DP);
    let mut labels: Vec<[f32; 4]> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(pin) = item.get("id").and_then(Value::as_i64).and_then(|id| city.pin(id)) else { continue };
        let (x, y) = to_px(pin.pos);
        if x < 0.0 || y < 0.0 || x > width || y > height {
            continue;
        }
        // The pin is drawn 28 dp wide; its touch target is the 48 dp square around it.
        let mut marker = ViewNode::default();
        absolute(&mut marker, (x - touch / 2.0).round(), (y - touch / 2.0).round(), touch, touch);
        marker.style.align_items = Some(Align::Center);
        marker.style.justify = Justify::Center;
        let mut dot = ViewNode::default();
        dot.style.width = Some(2.0 * r);
        dot.style.height = Some(2.0 * r);
        dot.style.shrink = false;
        dot.paint.background = Some(Color::rgb(0xEA, 0x43, 0x35));
        dot.paint.border = Some((Color::WHITE, b.m.dp(2.0)));
        dot.paint.circle = true;
        dot.style.align_items = Some(Align::Center);
        dot.style.justify = Justify::Center;
        let mut inner = ViewNode::default();
        inner.style.width = Some(b.m.dp(8.0));
        inner.style.height = Some(b.m.dp(8.0));
        inner.paint.background = Some(Color::WHITE);
        inner.paint.circle = true;
        dot.children.push(inner);
        marker.children.push(dot);
        let mut a = b.a11y("android.view.View");
        a.content_desc = pin.name.clone();
        a.clickable = handler.is_some();
        a.focusable = handler.is_some();
        marker.set_a11y(a);
        if let Some(h) = &handler {
            let event = EventSource {
                item: ItemSource::Value(std::sync::Arc::new(item.clone())),
                index: Some(i + 1),
                id: node.props.id.as_ref().map(|t| t.render(&at.scope)),
                value: None,
            };
            let tap = Interaction::Handler { app: b.app.to_owned(), handler: h.clone(), event };
            marker.hit = Some(b.hit(Hit { tap: Some(tap), long_press: None, scroll: None }));
        }
        // The name beside the pin where it does not cover another name.
        let est_w = pin.name.chars().count() as f32 * b.m.sp(7.0) + b.m.dp(8.0);
        let (lx, ly, lh) = (x + r + b.m.dp(2.0), y - b.m.dp(10.0), b.m.dp(20.0));
        let bx = [lx, ly, lx + est_w, ly + lh];
        let free = !labels.iter().any(|o| bx[0] < o[2] && o[0] < bx[2] && bx[1] < o[3] && o[1] < bx[3]);
        if free && lx < width {
            labels.push(bx);
            let mut label = one_line(b.text(pin.name.clone(), 12.0, Weight::Medium, Color::rgb(0xB3, 0x26, 0x1E)));
            if b.theme.dark {
                label = one_line(b.text(pin.name.clone(), 12.0, Weight::Medium, Color::rgb(0xF2, 0xB8, 0xB5)));
            }
            label.style.absolute = Some([Some(lx.round()), Some(ly.round()), None, None]);
            label.style.padding = [b.m.dp(4.0), b.m.dp(1.0), b.m.dp(4.0), b.m.dp(1.0)];
            label.paint.background = Some(if b.theme.dark { Color::rgba(0x24, 0x2F, 0x3E, 220) } else { Color::rgba(255, 255, 255, 220) });
            label.paint.radius = b.m.dp(4.0);
            silence(&mut label);
            v.children.push(label);
        }
        v.children.push(marker);
    }
}

#[allow(clippy::too_many_arguments, reason = "the camera and where it is written")]
fn buttons(
    b: &mut Builder<'_>,
    target: &Target,
    handler: &Option<String>,
    event: &EventSource,
    cam: &Camera,
    city: &City,
    width: f32,
    height: f32,
) -> ViewNode {
    let size = b.m.dp(MIN_TOUCH_DP);
    let gap = b.m.dp(8.0);
    let mut col = container(Direction::Column);
    col.style.gap = gap;
    let n = 3.0;
    col.style.absolute = Some([Some(width - size - b.m.dp(12.0)), Some(height - n * size - 2.0 * gap - b.m.dp(12.0)), None, None]);
    let cam_json = |x: f64, y: f64, zoom: u8| json!({ "x": (x * 10.0).round() / 10.0, "y": (y * 10.0).round() / 10.0, "zoom": zoom });
    let buttons = [
        ("add", "Zoom in", (cam.zoom < MAX_ZOOM).then(|| cam_json(cam.x, cam.y, cam.zoom + 1))),
        ("remove", "Zoom out", (cam.zoom > MIN_ZOOM).then(|| cam_json(cam.x, cam.y, cam.zoom - 1))),
        ("my_location", "Re-center", Some(cam_json(city.home.x, city.home.y, cam.zoom.max(DEFAULT_ZOOM)))),
    ];
    for (icon, desc, value) in buttons {
        let mut btn = container(Direction::Column);
        btn.style.width = Some(size);
        btn.style.height = Some(size);
        btn.style.shrink = false;
        btn.style.align_items = Some(Align::Center);
        btn.style.justify = Justify::Center;
        btn.paint.background = Some(b.theme.surface);
        btn.paint.border = Some((b.theme.outline, b.m.dp(1.0)));
        btn.paint.circle = true;
        let enabled = value.is_some();
        let fg = if enabled { b.theme.on_surface } else { b.theme.on_surface_variant };
        btn.children.push(b.icon(icon, 22.0, fg));
        let mut a = b.a11y("android.widget.ImageButton");
        a.content_desc = desc.into();
        a.clickable = enabled;
        a.focusable = true;
        a.enabled = enabled;
        btn.set_a11y(a);
        if let Some(value) = value {
            let tap =
                Interaction::Set { app: b.app.to_owned(), target: target.clone(), value, handler: handler.clone(), event: event.clone() };
            btn.hit = Some(b.hit(Hit { tap: Some(tap), long_press: None, scroll: None }));
        }
        col.children.push(btn);
    }
    col
}
