//! The widgets a screen layout is written in. Every widget takes the same property set
//! ([`Props`]); which properties a widget reads is documented in `docs/app-format.md`, and
//! `phoneworld check` reports properties a widget ignores.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

use crate::expr::{BoolExpr, Path, Template};

macro_rules! node_kinds {
    ($($kind:ident),* $(,)?) => {
        /// What a node is; the variant name is the widget name in RON.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum NodeKind { $($kind),* }

        #[derive(Deserialize)]
        enum RawNode { $($kind(Box<Props>)),* }

        impl From<RawNode> for Node {
            fn from(raw: RawNode) -> Node {
                match raw { $(RawNode::$kind(props) => Node { kind: NodeKind::$kind, props }),* }
            }
        }

        impl NodeKind {
            pub const ALL: &'static [NodeKind] = &[$(NodeKind::$kind),*];
            pub fn name(self) -> &'static str {
                match self { $(NodeKind::$kind => stringify!($kind)),* }
            }
        }
    };
}

node_kinds!(
    Column, Row, Stack, Scroll, List, Grid, Card, Spacer, Divider, Text, Icon, Avatar, Image, Button, IconButton, Fab, Chip, TextField,
    Switch, Checkbox, Radio, Slider, Progress, Tabs, BottomNav, TopBar, TimePicker, DatePicker, Map, Use,
);

/// One widget with its properties and children.
#[derive(Debug, Clone)]
pub struct Node {
    pub kind: NodeKind,
    pub props: Box<Props>,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RawNode::deserialize(d).map(Node::from)
    }
}

impl Node {
    /// Visits this node and every node below it (list rows, empty states, children).
    pub fn walk<'n>(&'n self, f: &mut dyn FnMut(&'n Node)) {
        f(self);
        for child in &self.props.children {
            child.walk(f);
        }
        if let Some(row) = &self.props.row {
            row.walk(f);
        }
        if let Some(empty) = &self.props.empty {
            empty.walk(f);
        }
    }
}

impl Props {
    /// The names of the properties this widget sets, as the layout writes them, in the order
    /// of the struct (`check` reports those its widget does not read).
    pub fn set_names(&self) -> Vec<&'static str> {
        self.names_and_whether_set().into_iter().filter_map(|(name, set)| set.then_some(name)).collect()
    }

    /// Every property's name, as the layout writes it.
    pub fn names() -> Vec<&'static str> {
        Props::default().names_and_whether_set().into_iter().map(|(name, _)| name).collect()
    }

    fn names_and_whether_set(&self) -> Vec<(&'static str, bool)> {
        // Destructured whole, so a new property cannot be forgotten here.
        let Props {
            id,
            content_desc,
            visible,
            enabled,
            width,
            height,
            min_height,
            grow,
            padding,
            margin,
            gap,
            align,
            justify,
            background,
            border,
            corner,
            text,
            title,
            label,
            hint,
            error,
            icon,
            size,
            weight,
            color,
            max_lines,
            text_align,
            all_caps,
            variant,
            src,
            fit,
            circle,
            decorative,
            route,
            on_tap,
            on_long_press,
            on_change,
            on_submit,
            on_scroll_end,
            value,
            option,
            selected,
            min,
            max,
            step,
            progress,
            multiline,
            password,
            keyboard,
            back,
            items,
            row,
            empty,
            columns,
            tabs,
            children,
            module,
            args,
        } = self;
        [
            ("id", id.is_some()),
            ("content_desc", content_desc.is_some()),
            ("visible", visible.is_some()),
            ("enabled", enabled.is_some()),
            ("width", width.is_some()),
            ("height", height.is_some()),
            ("min_height", min_height.is_some()),
            ("grow", grow.is_some()),
            ("padding", padding.is_some()),
            ("margin", margin.is_some()),
            ("gap", gap.is_some()),
            ("align", align.is_some()),
            ("justify", justify.is_some()),
            ("background", background.is_some()),
            ("border", border.is_some()),
            ("corner", corner.is_some()),
            ("text", text.is_some()),
            ("title", title.is_some()),
            ("label", label.is_some()),
            ("hint", hint.is_some()),
            ("error", error.is_some()),
            ("icon", icon.is_some()),
            ("size", size.is_some()),
            ("weight", weight.is_some()),
            ("color", color.is_some()),
            ("max_lines", max_lines.is_some()),
            ("text_align", text_align.is_some()),
            ("all_caps", *all_caps),
            ("variant", variant.is_some()),
            ("src", src.is_some()),
            ("fit", fit.is_some()),
            ("circle", *circle),
            ("decorative", *decorative),
            ("route", route.is_some()),
            ("on_tap", on_tap.is_some()),
            ("on_long_press", on_long_press.is_some()),
            ("on_change", on_change.is_some()),
            ("on_submit", on_submit.is_some()),
            ("on_scroll_end", on_scroll_end.is_some()),
            ("value", value.is_some()),
            ("option", option.is_some()),
            ("selected", selected.is_some()),
            ("min", min.is_some()),
            ("max", max.is_some()),
            ("step", step.is_some()),
            ("progress", progress.is_some()),
            ("multiline", *multiline),
            ("password", *password),
            ("keyboard", keyboard.is_some()),
            ("back", *back),
            ("items", items.is_some()),
            ("row", row.is_some()),
            ("empty", empty.is_some()),
            ("columns", columns.is_some()),
            ("tabs", !tabs.is_empty()),
            ("children", !children.is_empty()),
            ("module", module.is_some()),
            ("args", !args.is_empty()),
        ]
        .into()
    }
}

/// Padding or margin in dp: one number for all sides, `(horizontal, vertical)`, or
/// `(left, top, right, bottom)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spacing {
    pub left: f32,
    pub top: f32,
    pub right: f32,
    pub bottom: f32,
}

impl<'de> Deserialize<'de> for Spacing {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            All(f32),
            Two((f32, f32)),
            Four((f32, f32, f32, f32)),
        }
        let spacing = match Raw::deserialize(d)? {
            Raw::All(a) => Spacing { left: a, top: a, right: a, bottom: a },
            Raw::Two((h, v)) => Spacing { left: h, top: v, right: h, bottom: v },
            Raw::Four((left, top, right, bottom)) => Spacing { left, top, right, bottom },
        };
        for side in [spacing.left, spacing.top, spacing.right, spacing.bottom] {
            bounded(side, MAX_DP, "a padding or margin").map_err(serde::de::Error::custom)?;
        }
        Ok(spacing)
    }
}

/// One tab of `Tabs` or one destination of `BottomNav`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TabItem {
    pub text: Template,
    #[serde(default)]
    pub icon: Option<String>,
}

/// Largest length in dp (widths, paddings, ...): far past any screen, and finite.
pub const MAX_DP: f32 = 100_000.0;
/// Largest `size` (text in sp, icons and avatars in dp): glyphs are rasterized at this size.
pub const MAX_SIZE: f32 = 256.0;

fn bounded(value: f32, max: f32, what: &str) -> Result<f32, String> {
    if value.is_nan() || value.abs() > max {
        return Err(format!("{what} must be a number between -{max} and {max}"));
    }
    Ok(value)
}

fn dp<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f32>, D::Error> {
    Option::<f32>::deserialize(d)?.map(|v| bounded(v, MAX_DP, "the value")).transpose().map_err(serde::de::Error::custom)
}

fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f32>, D::Error> {
    Option::<f32>::deserialize(d)?.map(|v| bounded(v, MAX_SIZE, "`size`")).transpose().map_err(serde::de::Error::custom)
}

/// Most columns a `Grid` may have: each row builds that many cells, filled or not.
pub const MAX_GRID_COLUMNS: usize = 24;

fn grid_columns<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    let columns = Option::<usize>::deserialize(d)?;
    if columns.is_some_and(|c| c > MAX_GRID_COLUMNS) {
        return Err(serde::de::Error::custom(format!("`columns` is at most {MAX_GRID_COLUMNS}")));
    }
    Ok(columns)
}

/// The properties every widget accepts (each reads the ones that concern it).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Props {
    // Identity and accessibility.
    /// A template, so a list row can have its own id (`"photo_{item.id}"`).
    pub id: Option<Template>,
    pub content_desc: Option<Template>,
    pub visible: Option<BoolExpr>,
    pub enabled: Option<BoolExpr>,

    // Box model (dp).
    #[serde(deserialize_with = "dp")]
    pub width: Option<f32>,
    #[serde(deserialize_with = "dp")]
    pub height: Option<f32>,
    #[serde(deserialize_with = "dp")]
    pub min_height: Option<f32>,
    #[serde(deserialize_with = "dp")]
    pub grow: Option<f32>,
    pub padding: Option<Spacing>,
    pub margin: Option<Spacing>,
    #[serde(deserialize_with = "dp")]
    pub gap: Option<f32>,
    pub align: Option<crate::options::Align>,
    pub justify: Option<crate::options::Justify>,
    pub background: Option<String>,
    pub border: Option<String>,
    /// Corner radius (dp); `radius` is the same property.
    #[serde(deserialize_with = "dp", alias = "radius")]
    pub corner: Option<f32>,

    // Text and icons.
    pub text: Option<Template>,
    pub title: Option<Template>,
    pub label: Option<Template>,
    pub hint: Option<Template>,
    pub error: Option<Template>,
    pub icon: Option<Template>,
    #[serde(deserialize_with = "size")]
    pub size: Option<f32>,
    pub weight: Option<crate::options::Weight>,
    pub color: Option<String>,
    pub max_lines: Option<usize>,
    pub text_align: Option<crate::options::TextAlign>,
    /// Drawn in capitals (Android's `textAllCaps`); the UI tree keeps the text as written.
    pub all_caps: bool,
    pub variant: Option<crate::options::Variant>,

    // Images: a file in the app bundle (`images/cat.jpg` or `{item.photo}`), how it fills its
    // box (`cover|contain|fill`), whether it is cut to a circle, and whether it is only drawn
    // (`decorative`: no element of the UI tree, as an icon inside a text view's box).
    pub src: Option<Template>,
    pub fit: Option<crate::options::Fit>,
    pub circle: bool,
    pub decorative: bool,

    // Maps: the route drawn on a `Map` (`{"from": id, "to": id}`, 0 = the user's location).
    pub route: Option<Template>,

    // Events: names of Lua handlers.
    pub on_tap: Option<String>,
    pub on_long_press: Option<String>,
    pub on_change: Option<String>,
    pub on_submit: Option<String>,
    pub on_scroll_end: Option<String>,

    // Inputs: the state path an input reads and writes.
    pub value: Option<Path>,
    pub option: Option<serde_json::Value>,
    pub selected: Option<BoolExpr>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub step: Option<f64>,
    pub progress: Option<Template>,
    pub multiline: bool,
    pub password: bool,
    pub keyboard: Option<crate::options::Keyboard>,
    pub back: bool,

    // Collections.
    pub items: Option<Template>,
    pub row: Option<Box<Node>>,
    pub empty: Option<Box<Node>>,
    #[serde(deserialize_with = "grid_columns")]
    pub columns: Option<usize>,
    pub tabs: Vec<TabItem>,
    pub children: Vec<Node>,

    // Layout modules.
    pub module: Option<String>,
    pub args: BTreeMap<String, Template>,
}
