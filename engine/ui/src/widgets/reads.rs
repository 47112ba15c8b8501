//! Which widgets read which property: `check` reports a property set on a widget that does
//! nothing with it (`keyboard` on a Text, `fit` on a Button), which otherwise passes silently.
//! The test below holds every "ignores" of this table to the builders: setting the property
//! must change neither the pixels nor the UI tree.

use phoneworld_data::NodeKind::{self, *};

/// Read by every widget (box model, paint, identity, visibility, taps): see
/// `Builder::apply_common`.
const COMMON: &[&str] = &[
    "id",
    "content_desc",
    "visible",
    "enabled",
    "width",
    "height",
    "min_height",
    "grow",
    "padding",
    "margin",
    "gap",
    "align",
    "justify",
    "background",
    "border",
    "corner",
    "on_tap",
    "on_long_press",
];

/// The widgets that read each property that is not common to all.
const READERS: &[(&str, &[NodeKind])] = &[
    ("text", &[Text, Avatar, Button, Fab, Chip, Switch, Checkbox, Radio, Progress, TopBar]),
    ("title", &[TopBar]),
    ("label", &[TextField]),
    ("hint", &[TextField]),
    ("error", &[TextField]),
    ("icon", &[Icon, Image, Button, IconButton, Fab, Chip]),
    ("size", &[Text, Icon, Avatar, IconButton, Progress, Button]),
    ("weight", &[Text]),
    ("color", &[Text, Icon, Button, IconButton]),
    ("max_lines", &[Text]),
    ("text_align", &[Text]),
    ("all_caps", &[Text, Button]),
    ("variant", &[Button, Progress]),
    ("src", &[Avatar, Image]),
    ("fit", &[Image]),
    ("circle", &[Image]),
    ("decorative", &[Image]),
    ("route", &[Map]),
    ("on_change", &[TextField, Switch, Checkbox, Radio, Slider, Tabs, BottomNav, TimePicker, DatePicker, Map]),
    ("on_submit", &[TextField]),
    ("on_scroll_end", &[Scroll, List]),
    ("value", &[TextField, Switch, Checkbox, Radio, Slider, Tabs, BottomNav, TimePicker, DatePicker, Map]),
    ("option", &[Radio]),
    ("selected", &[Column, Row, Stack, Card, Chip]),
    ("min", &[Slider]),
    ("max", &[Slider]),
    ("step", &[Slider]),
    ("progress", &[Progress]),
    ("multiline", &[TextField]),
    ("password", &[TextField]),
    ("keyboard", &[TextField]),
    ("back", &[TopBar]),
    ("items", &[Scroll, List, Grid, Map]),
    ("row", &[Scroll, List, Grid]),
    ("empty", &[Scroll, List]),
    ("columns", &[Grid]),
    ("tabs", &[Tabs, BottomNav]),
    ("children", &[Column, Row, Stack, Card, Scroll, List, Grid, TopBar]),
    ("module", &[Use]),
    ("args", &[Use]),
];

/// Whether a widget of `kind` reads the property `name`.
pub fn reads(kind: NodeKind, name: &str) -> bool {
    COMMON.contains(&name) || READERS.iter().any(|(prop, kinds)| *prop == name && kinds.contains(&kind))
}

/// The widgets that read `name`, for the problem's message (`it is read by TextField`).
pub(crate) fn readers(name: &str) -> Vec<&'static str> {
    READERS.iter().filter(|(prop, _)| *prop == name).flat_map(|(_, kinds)| kinds.iter().map(|k| k.name())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every property the layout format has is in the table, common or with its readers.
    #[test]
    fn every_property_is_in_the_table() {
        for name in phoneworld_data::Props::names() {
            assert!(COMMON.contains(&name) || READERS.iter().any(|(p, _)| *p == name), "{name}");
        }
        let listed: Vec<&str> = COMMON.iter().copied().chain(READERS.iter().map(|(p, _)| *p)).collect();
        for name in &listed {
            assert_eq!(listed.iter().filter(|n| *n == name).count(), 1, "{name} listed twice");
        }
    }
}
