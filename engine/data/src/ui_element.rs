//! The UI element of observations: exactly AndroidWorld's `UIElement` fields.

use serde::{Deserialize, Serialize};

/// A box with AndroidWorld's field names; pixels or normalized to 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BBox {
    pub x_min: f64,
    pub x_max: f64,
    pub y_min: f64,
    pub y_max: f64,
}

/// One element of the UI element list (leaves, nodes with a content description, and
/// scrollable nodes, in tree order, so an AndroidWorld `index` means the same element).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiElement {
    pub text: Option<String>,
    pub content_description: Option<String>,
    pub class_name: Option<String>,
    pub bbox: Option<BBox>,
    pub bbox_pixels: Option<BBox>,
    pub hint_text: Option<String>,
    pub is_checked: Option<bool>,
    pub is_checkable: Option<bool>,
    pub is_clickable: Option<bool>,
    pub is_editable: Option<bool>,
    pub is_enabled: Option<bool>,
    pub is_focused: Option<bool>,
    pub is_focusable: Option<bool>,
    pub is_long_clickable: Option<bool>,
    pub is_scrollable: Option<bool>,
    pub is_selected: Option<bool>,
    pub is_visible: Option<bool>,
    pub package_name: Option<String>,
    pub resource_name: Option<String>,
    pub tooltip: Option<String>,
    pub resource_id: Option<String>,
}
