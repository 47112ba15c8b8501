//! Text input: the focused field, typing and the keyboard's keys, submitting, the
//! Cut / Copy / Paste menu, and keeping the field in view above the keyboard.

use phoneworld_ui::interaction::{Interaction, SystemAction};
use phoneworld_ui::store::{Focus, Overlay};
use phoneworld_ui::widgets::value_text as widgets_value_text;
use serde_json::Value;

use crate::device::Device;
use crate::outcome::Outcome;

impl Device {
    /// Scrolls the focused field into view above the keyboard (Android's adjustResize plus
    /// requestRectangleOnScreen): the innermost scroll container around it moves just enough.
    pub(crate) fn reveal_focus(&mut self) {
        let Some(key) = self.store.session.focus.as_ref().map(|f| f.key.clone()) else { return };
        let margin = 8.0 * self.config.px_per_dp();
        let view = self.view();
        let placed = &view.placed;
        let hits = &view.composed.hits;
        let field = placed
            .nodes
            .iter()
            .position(|n| n.hit.is_some_and(|h| matches!(&hits[h as usize].tap, Some(Interaction::Focus { key: k, .. }) if *k == key)));
        let Some(field) = field else { return };
        let mut ancestor = placed.nodes[field].parent;
        while let Some(a) = ancestor {
            if placed.nodes[a].scrollable {
                break;
            }
            ancestor = placed.nodes[a].parent;
        }
        let Some(container) = ancestor else { return };
        let (f, c) = (&placed.nodes[field], &placed.nodes[container]);
        let delta = if f.y + f.h + margin > c.y + c.h {
            (f.y + f.h + margin) - (c.y + c.h)
        } else if f.y - margin < c.y {
            (f.y - margin) - c.y
        } else {
            return;
        };
        let max = (c.content_height - c.h).max(0.0);
        let next = (c.scroll_y + delta).clamp(0.0, max);
        let Some(info) = c.hit.and_then(|h| hits[h as usize].scroll.clone()) else { return };
        if (next - c.scroll_y).abs() < 0.5 {
            return;
        }
        if let Some(entry) = self.store.top_mut(&info.app) {
            entry.scroll.insert(info.key, next);
        }
        self.invalidate();
    }

    pub(crate) fn focused_text(&self, focus: &Focus) -> (Option<phoneworld_ui::interaction::Target>, String) {
        let target = phoneworld_ui::interaction::Target::parse(&focus.path);
        let text = target.as_ref().map(|t| widgets_value_text(&self.read_target(&focus.app, t))).unwrap_or_default();
        (target, text)
    }

    /// Points the focus at the value the focused field edits on the screen as it is now: a row
    /// inserted above a field in a list moves the field's item, and typing follows the field
    /// (found by its key), not the position it had when it was tapped.
    fn follow_focused_field(&mut self) {
        // Only a field in a list row can move to another item; any other field's value path
        // is fixed, and finding it would cost a compose on every keystroke.
        let in_row = self.store.session.focus.as_ref().is_some_and(|f| f.event.get("index").is_some());
        let Some(key) = self.store.session.focus.as_ref().filter(|_| in_row).map(|f| f.key.clone()) else { return };
        let found = self.view().composed.hits.iter().find_map(|h| match &h.tap {
            Some(Interaction::Focus { key: k, app, target, event, .. }) if *k == key => Some((app.clone(), target.clone(), event.clone())),
            _ => None,
        });
        let Some((app, target, event)) = found else { return };
        let path = target.to_path_string();
        if self.store.session.focus.as_ref().is_some_and(|f| f.path != path) {
            let event = self.event_json(&app, &event);
            if let Some(focus) = self.store.session.focus.as_mut() {
                focus.path = path;
                focus.event = event;
            }
        }
    }

    /// Sets the focused field's text and runs its `on_change`.
    pub(crate) fn edit_focused(&mut self, edit: impl FnOnce(&mut String), out: &mut Outcome) {
        self.follow_focused_field();
        let Some(focus) = self.store.session.focus.clone() else {
            return out.noop("no text field has focus");
        };
        let (Some(target), mut text) = self.focused_text(&focus) else { return out.noop("the focused field has no value path") };
        edit(&mut text);
        if text.chars().nth(crate::limits::MAX_FIELD_CHARS).is_some() {
            return out.noop(format!("a text field holds at most {} characters", crate::limits::MAX_FIELD_CHARS));
        }
        self.reveal_pending = true;
        let mut event = focus.event.clone();
        self.set_and_notify(&focus.app, &target, Value::String(text), focus.on_change.clone(), &mut event, out);
    }

    pub(crate) fn type_text(&mut self, text: &str, clear: bool, out: &mut Outcome) {
        if self.store.session.focus.is_none() {
            return out.noop("no text field has focus");
        }
        self.edit_focused(
            |t| {
                if clear {
                    t.clear();
                }
                t.push_str(text);
            },
            out,
        );
    }

    pub(crate) fn submit(&mut self, out: &mut Outcome) {
        self.follow_focused_field();
        let Some(focus) = self.store.session.focus.clone() else { return out.noop("no text field has focus") };
        if focus.multiline {
            return self.edit_focused(|t| t.push('\n'), out);
        }
        let (_, text) = self.focused_text(&focus);
        self.store.session.focus = None;
        if let Some(handler) = focus.on_submit {
            let mut event = focus.event;
            if let Value::Object(map) = &mut event {
                map.insert("value".into(), Value::String(text));
            }
            self.run_handler(&focus.app, &handler, event, out);
        }
    }

    pub(crate) fn text_menu(&mut self, action: SystemAction, out: &mut Outcome) {
        let Some(Overlay::TextMenu { app, path, on_change, mut event, .. }) = self.store.session.overlay.take() else {
            return out.noop("no text menu is open");
        };
        let Some(target) = phoneworld_ui::interaction::Target::parse(&path) else { return };
        let text = widgets_value_text(&self.read_target(&app, &target));
        let new_text = match action {
            SystemAction::Copy => {
                self.store.session.clipboard = text;
                return;
            }
            SystemAction::Cut => {
                self.store.session.clipboard = text;
                String::new()
            }
            _ => {
                let clip = self.store.session.clipboard.clone();
                if clip.is_empty() {
                    return out.noop("the clipboard is empty");
                }
                text + &clip
            }
        };
        // Cut and Paste change the field like typing does: its on_change hears it.
        self.set_and_notify(&app, &target, Value::String(new_text), on_change, &mut event, out);
    }
}
