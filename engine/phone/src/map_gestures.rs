//! Gestures on a map: a drag pans it by the finger's travel, a double tap zooms in one level
//! keeping the touched point under the finger. Both write the camera where the `Map` widget
//! reads it, then run its `on_change`.

use phoneworld_ui::interaction::Interaction;
use serde_json::{json, Value};

use crate::device::Device;
use crate::outcome::Outcome;

/// The camera as the widget stores it: metres rounded to a decimetre.
fn camera(x: f64, y: f64, zoom: u8) -> Value {
    json!({ "x": (x * 10.0).round() / 10.0, "y": (y * 10.0).round() / 10.0, "zoom": zoom })
}

impl Device {
    pub(crate) fn map_pan(&mut self, map: Interaction, dx: f64, dy: f64, out: &mut Outcome) {
        let Interaction::Map { app, target, x, y, zoom, scale, handler, event } = map else { return };
        if dx.abs() < 1.0 && dy.abs() < 1.0 {
            return out.noop("the drag did not move the map");
        }
        let mut event = self.event_json(&app, &event);
        let value = camera(x - dx / scale, y - dy / scale, zoom);
        self.set_and_notify(&app, &target, value, handler, &mut event, out);
    }

    pub(crate) fn map_zoom_at(&mut self, map: Interaction, rect: (f32, f32, f32, f32), tx: f64, ty: f64, out: &mut Outcome) {
        let Interaction::Map { app, target, x, y, zoom, scale, handler, event } = map else { return };
        if zoom >= phoneworld_map::MAX_ZOOM {
            return out.noop("the map is zoomed in all the way");
        }
        let (rx, ry, rw, rh) = rect;
        // The touched point in metres; it stays under the finger as the scale doubles.
        let px = x + (tx - f64::from(rx + rw / 2.0)) / scale;
        let py = y + (ty - f64::from(ry + rh / 2.0)) / scale;
        let value = camera(px + (x - px) / 2.0, py + (y - py) / 2.0, zoom + 1);
        let mut event = self.event_json(&app, &event);
        self.set_and_notify(&app, &target, value, handler, &mut event, out);
    }
}
