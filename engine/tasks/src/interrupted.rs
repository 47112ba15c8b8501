//! How the oracle answers an interruption, reading only the screen as an agent would: the
//! negative choice of a dialog or sheet ("Don't allow", "Not now", "Dismiss"), and a heads-up
//! banner swiped away. None of the suite's tasks needs a permission granted.

use phoneworld_data::{Action, UiElement};

/// What shows a dialog is up (a resource id, and the text it must have if the id alone is
/// common), and the button that turns it down.
const DISMISS: [(&str, Option<&str>, &str); 4] = [
    ("com.android.permissioncontroller:id/permission_deny_button", None, "com.android.permissioncontroller:id/permission_deny_button"),
    ("com.android.vending:id/star_1", None, "com.android.vending:id/not_now_button"),
    ("com.android.vending:id/update_button", None, "com.android.vending:id/not_now_button"),
    ("android:id/button1", Some("Battery Saver"), "android:id/button2"),
];

const HEADS_UP: &str = "com.android.systemui:id/heads_up";

fn with_id<'e>(elements: &'e [UiElement], id: &str) -> Option<&'e UiElement> {
    elements.iter().find(|e| e.resource_id.as_deref() == Some(id))
}

/// The action that puts away the interruption on screen, if one is.
pub(crate) fn answer(elements: &[UiElement]) -> Option<Action> {
    for (marker, text, button) in DISMISS {
        if with_id(elements, marker).is_some_and(|e| text.is_none_or(|t| e.text.as_deref() == Some(t))) {
            let b = with_id(elements, button)?.bbox_pixels?;
            return Some(Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 });
        }
    }
    let b = with_id(elements, HEADS_UP)?.bbox_pixels?;
    let x = (b.x_min + b.x_max) / 2.0;
    let y = (b.y_min + b.y_max) / 2.0;
    Some(Action::Swipe { x1: x, y1: y, x2: x, y2: (y - (b.y_max - b.y_min)).max(0.0), ms: 200 })
}

/// What `episode.json` records of an interrupted episode: the setting as given and the plan
/// drawn from the seed, which together replay it.
pub(crate) fn record(instance: &crate::Instance) -> serde_json::Value {
    serde_json::json!({ "setting": instance.options.interruptions.to_string(), "plan": instance.interruption_plan() })
}
