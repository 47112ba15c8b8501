//! Swipes: the notification shade, launcher pages, and scrolling the container under the
//! finger (with its `on_scroll_end`).

use phoneworld_ui::compose::bar_heights;
use phoneworld_ui::shell::APPS_PER_PAGE;
use phoneworld_ui::store::Foreground;

use crate::device::Device;
use crate::outcome::Outcome;

impl Device {
    pub(crate) fn swipe(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, out: &mut Outcome) {
        if !self.in_bounds(x1, y1) {
            return out.noop(format!("swipe starts outside the screen at ({x1}, {y1})"));
        }
        let m = phoneworld_ui::compose::metrics(&self.store, self.config.px_per_dp());
        let (status_h, _) = bar_heights(&m);
        let (dx, dy) = (x2 - x1, y2 - y1);
        // Swiping a heads-up banner up puts it away (the notification stays in the shade).
        if dy < -50.0 && self.store.session.interruptions.heads_up.is_some() {
            let touched = self.view().placed.hit_test(x1 as f32, y1 as f32).and_then(|i| {
                let view = self.view.as_ref()?;
                view.placed.nodes[i].hit.and_then(|h| view.composed.hits[h as usize].tap.clone())
            });
            if matches!(
                touched,
                Some(phoneworld_ui::interaction::Interaction::System(phoneworld_ui::interaction::SystemAction::HeadsUp(_)))
            ) {
                return self.dismiss_heads_up();
            }
        }
        let modal = self.store.session.interruptions.shown.is_some();
        let session = &mut self.store.session;
        if !session.shade_open && y1 <= f64::from(status_h) && dy > 100.0 {
            session.open_shade();
            return;
        }
        if session.shade_open && dy < -100.0 {
            session.shade_open = false;
            return;
        }
        if !modal && session.foreground == Foreground::Home && dx.abs() > dy.abs() && dx.abs() > 100.0 {
            let pages = phoneworld_ui::shell::launcher_apps(&self.catalog).len().div_ceil(APPS_PER_PAGE).max(1);
            let page = session.launcher_page.min(pages - 1);
            let next = if dx < 0.0 { (page + 1).min(pages - 1) } else { page.saturating_sub(1) };
            if next == page {
                return out.noop("no other launcher page that way");
            }
            session.launcher_page = next;
            return;
        }
        if modal {
            return out.noop("a dialog covers the screen: answer it first");
        }
        self.scroll(x1, y1, (y1 - y2) as f32, out);
    }

    pub(crate) fn scroll(&mut self, x: f64, y: f64, delta: f32, out: &mut Outcome) {
        let view = self.view();
        let Some(i) = view.placed.scroll_at(x as f32, y as f32) else {
            return out.noop(format!("nothing to scroll at ({x}, {y})"));
        };
        let node = &view.placed.nodes[i];
        let info = node.hit.and_then(|h| view.composed.hits[h as usize].scroll.clone());
        let Some(info) = info else { return out.noop(format!("nothing to scroll at ({x}, {y})")) };
        let max = (node.content_height - node.h).max(0.0);
        let current = node.scroll_y;
        let next = (current + delta).clamp(0.0, max);
        if (next - current).abs() < 0.5 {
            return out.noop(if max <= 0.0 {
                "the list fits on screen; nothing to scroll".to_owned()
            } else {
                "already scrolled to the end".to_owned()
            });
        }
        if info.key == "recents" {
            self.store.session.recents_scroll = next;
            return;
        }
        if info.key == "sheet" {
            self.store.session.sheet_scroll = next;
            return;
        }
        if let Some(entry) = self.store.top_mut(&info.app) {
            entry.scroll.insert(info.key.clone(), next);
        }
        if next >= max - 0.5 {
            if let Some(handler) = info.on_end {
                let event = self.event_json(&info.app, &info.event);
                self.run_handler(&info.app, &handler, event, out);
            }
        }
    }
}
