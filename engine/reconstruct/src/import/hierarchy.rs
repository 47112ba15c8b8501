//! The three hierarchy formats real traces use, each read into a [`UiNode`] tree:
//! uiautomator dump XML, DroidBot's flat JSON node list (also LlamaTouch `.vh`), and Rico's
//! nested JSON nodes.

use std::path::Path;

use serde_json::Value;

use super::scan::{check_xml_shape, coord, line_at, out_of_range, too_deep, too_many_nodes};
use crate::error::ReconError;
use crate::limits::{MAX_COORD, MAX_SCREEN_NODES, MAX_TREE_DEPTH};
use crate::trace::UiNode;

/// Parses `[x1,y1][x2,y2]` (uiautomator) bounds, each within `MAX_COORD`.
pub(crate) fn parse_bracket_bounds(text: &str) -> Option<[i32; 4]> {
    let nums: Vec<i32> = text
        .split(['[', ']', ','])
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse::<i64>().ok().and_then(coord))
        .collect::<Option<Vec<_>>>()?;
    match nums[..] {
        [x1, y1, x2, y2] if x2 >= x1 && y2 >= y1 => Some([x1, y1, x2, y2]),
        _ => None,
    }
}

fn attr_bool(node: &roxmltree::Node<'_, '_>, name: &str) -> bool {
    node.attribute(name) == Some("true")
}

/// Reads a `uiautomator dump` XML file. The root of the tree is a synthetic frame holding
/// every top-level `node` (a dump may hold several windows).
pub(crate) fn read_uiautomator_xml(path: &Path, text: &str) -> Result<UiNode, ReconError> {
    check_xml_shape(path, text)?;
    // No DTD (so no entity expansion), and a node count the shape check already bounds.
    let options = roxmltree::ParsingOptions { allow_dtd: false, nodes_limit: 4 * (MAX_SCREEN_NODES as u32 + 16) };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        ReconError::line(path, pos.row as usize, format!("column {}: malformed XML: {e}", pos.col))
    })?;
    let hierarchy = doc.root_element();
    if hierarchy.tag_name().name() != "hierarchy" {
        return Err(ReconError::format(path, format!("root element is <{}>, expected <hierarchy>", hierarchy.tag_name().name())));
    }
    let mut tops = Vec::new();
    for child in hierarchy.children().filter(|n| n.is_element()) {
        tops.push(xml_node(path, text, &child, 0)?);
    }
    Ok(wrap_tops(tops))
}

/// One top-level window is the root itself; several are grouped under a frame spanning them.
pub(crate) fn wrap_tops(mut tops: Vec<UiNode>) -> UiNode {
    if tops.len() == 1 {
        return tops.pop().unwrap_or_default();
    }
    let mut bounds = [i32::MAX, i32::MAX, i32::MIN, i32::MIN];
    for t in &tops {
        bounds = [bounds[0].min(t.bounds[0]), bounds[1].min(t.bounds[1]), bounds[2].max(t.bounds[2]), bounds[3].max(t.bounds[3])];
    }
    if tops.is_empty() {
        bounds = [0; 4];
    }
    let mut root = UiNode::new("android.widget.FrameLayout", bounds);
    // The frame belongs to the app, not to the status bar that usually comes first.
    root.package =
        tops.iter().find(|t| !crate::abstraction::is_system_chrome(t)).or(tops.first()).map(|t| t.package.clone()).unwrap_or_default();
    root.children = tops;
    root
}

/// One `<node>` and, `depth` levels below the top, its children.
fn xml_node(path: &Path, text: &str, node: &roxmltree::Node<'_, '_>, depth: usize) -> Result<UiNode, ReconError> {
    // Only on error: counting lines for every node would take time quadratic in the file.
    let line = || line_at(text, node.range().start);
    if depth > MAX_TREE_DEPTH {
        return Err(too_deep(path, line()));
    }
    if node.tag_name().name() != "node" {
        return Err(ReconError::line(path, line(), format!("unexpected element <{}>, expected <node>", node.tag_name().name())));
    }
    let raw_bounds = node.attribute("bounds").ok_or_else(|| ReconError::line(path, line(), "<node> without `bounds`"))?;
    let bounds = parse_bracket_bounds(raw_bounds).ok_or_else(|| {
        ReconError::line(path, line(), format!("field `bounds`: `{raw_bounds}` is not [x1,y1][x2,y2] within ±{MAX_COORD}"))
    })?;
    let get = |name: &str| node.attribute(name).unwrap_or("").to_owned();
    let mut out = UiNode {
        class: get("class"),
        resource_id: get("resource-id"),
        text: get("text"),
        content_desc: get("content-desc"),
        bounds,
        clickable: attr_bool(node, "clickable"),
        long_clickable: attr_bool(node, "long-clickable"),
        checkable: attr_bool(node, "checkable"),
        checked: attr_bool(node, "checked"),
        editable: get("class").ends_with("EditText"),
        scrollable: attr_bool(node, "scrollable"),
        selected: attr_bool(node, "selected"),
        password: attr_bool(node, "password"),
        focused: attr_bool(node, "focused"),
        enabled: node.attribute("enabled") != Some("false"),
        visible: node.attribute("visible-to-user") != Some("false"),
        package: get("package"),
        children: Vec::new(),
    };
    for child in node.children().filter(|n| n.is_element()) {
        out.children.push(xml_node(path, text, &child, depth + 1)?);
    }
    Ok(out)
}

fn str_field(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

fn bool_field(v: &Value, key: &str, default: bool) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(default)
}

/// DroidBot bounds `[[x1, y1], [x2, y2]]`.
pub(crate) fn droidbot_bounds(path: &Path, field: &str, v: Option<&Value>) -> Result<[i32; 4], ReconError> {
    let bad = || {
        ReconError::field(
            path,
            field,
            format!("`{}` is not [[x1, y1], [x2, y2]]", v.map(Value::to_string).unwrap_or_else(|| "missing".into())),
        )
    };
    let pairs = v.and_then(Value::as_array).ok_or_else(bad)?;
    let coords: Vec<i64> = pairs.iter().filter_map(Value::as_array).flatten().filter_map(Value::as_i64).collect();
    match (pairs.len(), &coords[..]) {
        (2, &[x1, y1, x2, y2]) => in_range(path, field, [x1, y1, x2, y2]),
        _ => Err(bad()),
    }
}

/// Bounds whose every coordinate is within `MAX_COORD`.
fn in_range(path: &Path, field: &str, b: [i64; 4]) -> Result<[i32; 4], ReconError> {
    // Android's bounds of a view never laid out (gone, or off in a list's recycler): an empty
    // box, not a coordinate out of range.
    let (max, min) = (i64::from(i32::MAX), i64::from(i32::MIN));
    if b == [max, max, min, min] {
        return Ok([0, 0, 0, 0]);
    }
    match (coord(b[0]), coord(b[1]), coord(b[2]), coord(b[3])) {
        (Some(x1), Some(y1), Some(x2), Some(y2)) => Ok([x1, y1, x2, y2]),
        _ => Err(ReconError::field(path, field, format!("`{b:?}`: {}", out_of_range("a coordinate")))),
    }
}

/// One DroidBot node (state `views[i]`, event `view`, LlamaTouch `.vh` entry), without children.
pub(crate) fn droidbot_node(path: &Path, field: &str, v: &Value) -> Result<UiNode, ReconError> {
    if !v.is_object() {
        return Err(ReconError::field(path, field, "a node must be a JSON object"));
    }
    let bounds = droidbot_bounds(path, &format!("{field}.bounds"), v.get("bounds"))?;
    let class = str_field(v, "class");
    Ok(UiNode {
        editable: bool_field(v, "editable", class.ends_with("EditText")),
        class,
        resource_id: str_field(v, "resource_id"),
        text: str_field(v, "text"),
        content_desc: str_field(v, "content_description"),
        bounds,
        clickable: bool_field(v, "clickable", false),
        long_clickable: bool_field(v, "long_clickable", false),
        checkable: bool_field(v, "checkable", false),
        checked: bool_field(v, "checked", false),
        scrollable: bool_field(v, "scrollable", false),
        selected: bool_field(v, "selected", false),
        password: bool_field(v, "is_password", false),
        focused: bool_field(v, "focused", false),
        enabled: bool_field(v, "enabled", true),
        visible: bool_field(v, "visible", true),
        package: str_field(v, "package"),
        children: Vec::new(),
    })
}

/// A flat DroidBot node list (linked by `temp_id`, `parent` and `children`) as a tree.
/// Children must come after their parent, so the links cannot form a cycle; how deep the
/// tree is is known before it is built, so a long chain of parents is refused, not recursed.
pub(crate) fn read_flat_nodes(path: &Path, field: &str, list: &Value) -> Result<Option<UiNode>, ReconError> {
    let items = list.as_array().ok_or_else(|| ReconError::field(path, field, "expected a list of nodes"))?;
    if items.is_empty() {
        return Ok(None);
    }
    if items.len() > MAX_SCREEN_NODES {
        return Err(ReconError::field(path, field, too_many_nodes()));
    }
    let mut nodes = Vec::with_capacity(items.len());
    let mut kids: Vec<Vec<usize>> = Vec::with_capacity(items.len());
    let mut roots = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let f = format!("{field}[{i}]");
        nodes.push(Some(droidbot_node(path, &f, item)?));
        let temp_id = item.get("temp_id").and_then(Value::as_i64).unwrap_or(i as i64);
        if temp_id != i as i64 {
            return Err(ReconError::field(path, format!("{f}.temp_id"), format!("{temp_id}: nodes must be listed in temp_id order")));
        }
        let children: Vec<usize> = match item.get("children") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(c)) => c
                .iter()
                .map(|c| c.as_u64().filter(|&c| c < items.len() as u64 && c > i as u64).map(|c| c as usize))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| ReconError::field(path, format!("{f}.children"), "child indices must be later nodes of this list"))?,
            Some(_) => return Err(ReconError::field(path, format!("{f}.children"), "expected a list of indices")),
        };
        kids.push(children);
        let parent = item.get("parent").and_then(Value::as_i64).unwrap_or(-1);
        if parent < 0 {
            roots.push(i);
        }
    }
    check_flat_depth(path, field, &kids)?;
    // Children always come after their parent, so building bottom-up takes each node once.
    let mut built: Vec<Option<UiNode>> = vec![None; items.len()];
    for i in (0..items.len()).rev() {
        let mut node = nodes[i].take().unwrap_or_default();
        for &c in &kids[i] {
            if let Some(child) = built[c].take() {
                node.children.push(child);
            }
        }
        built[i] = Some(node);
    }
    let tops: Vec<UiNode> = roots.iter().filter_map(|&r| built[r].take()).collect();
    Ok(Some(wrap_tops(tops)))
}

/// Refuses a flat node list whose tree would be deeper than `MAX_TREE_DEPTH`. A node listed
/// by several parents goes to the last of them, as the bottom-up build does.
fn check_flat_depth(path: &Path, field: &str, kids: &[Vec<usize>]) -> Result<(), ReconError> {
    let mut parent: Vec<Option<usize>> = vec![None; kids.len()];
    for i in (0..kids.len()).rev() {
        for &c in &kids[i] {
            parent[c].get_or_insert(i);
        }
    }
    // Parents come first, so one pass in order gives every depth.
    let mut depth = vec![0usize; kids.len()];
    for i in 0..kids.len() {
        if let Some(p) = parent[i] {
            depth[i] = depth[p] + 1;
            if depth[i] > MAX_TREE_DEPTH {
                return Err(ReconError::field(
                    path,
                    format!("{field}[{i}]"),
                    format!("nodes nested more than {MAX_TREE_DEPTH} levels deep (the limit)"),
                ));
            }
        }
    }
    Ok(())
}

/// One Rico node (nested `children`, `bounds` [x1,y1,x2,y2], `content-desc` a list);
/// `nodes` counts the nodes read so far.
pub(crate) fn rico_node(path: &Path, field: &str, v: &Value, depth: usize, nodes: &mut usize) -> Result<Option<UiNode>, ReconError> {
    if v.is_null() {
        return Ok(None);
    }
    if depth > MAX_TREE_DEPTH {
        return Err(ReconError::field(path, field, format!("nodes nested more than {MAX_TREE_DEPTH} levels deep (the limit)")));
    }
    *nodes += 1;
    if *nodes > MAX_SCREEN_NODES {
        return Err(ReconError::field(path, field, too_many_nodes()));
    }
    if !v.is_object() {
        return Err(ReconError::field(path, field, "a node must be a JSON object"));
    }
    let b = v.get("bounds").and_then(Value::as_array);
    let bounds = match b.map(|b| b.iter().map(Value::as_i64).collect::<Option<Vec<_>>>()) {
        Some(Some(n)) if n.len() == 4 => in_range(path, &format!("{field}.bounds"), [n[0], n[1], n[2], n[3]])?,
        _ => {
            return Err(ReconError::field(
                path,
                format!("{field}.bounds"),
                format!("`{}` is not [x1, y1, x2, y2]", v.get("bounds").map(Value::to_string).unwrap_or_else(|| "missing".into())),
            ))
        }
    };
    let content_desc = match v.get("content-desc") {
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let class = str_field(v, "class");
    let mut node = UiNode {
        editable: class.ends_with("EditText"),
        resource_id: str_field(v, "resource-id"),
        text: str_field(v, "text"),
        content_desc,
        bounds,
        clickable: bool_field(v, "clickable", false),
        long_clickable: bool_field(v, "long-clickable", false),
        checkable: bool_field(v, "checkable", false),
        checked: bool_field(v, "checked", false),
        scrollable: bool_field(v, "scrollable-vertical", false) || bool_field(v, "scrollable-horizontal", false),
        selected: bool_field(v, "selected", false),
        password: false,
        focused: bool_field(v, "focused", false),
        enabled: bool_field(v, "enabled", true),
        visible: v.get("visibility").and_then(Value::as_str).is_none_or(|s| s == "visible") && bool_field(v, "visible-to-user", true),
        package: str_field(v, "package"),
        class,
        children: Vec::new(),
    };
    match v.get("children") {
        None | Some(Value::Null) => {}
        Some(Value::Array(children)) => {
            for (i, c) in children.iter().enumerate() {
                if let Some(child) = rico_node(path, &format!("{field}.children[{i}]"), c, depth + 1, nodes)? {
                    node.children.push(child);
                }
            }
        }
        Some(_) => return Err(ReconError::field(path, format!("{field}.children"), "expected a list of nodes")),
    }
    Ok(Some(node))
}

/// The screen size a hierarchy implies: its root's far corner.
pub(crate) fn root_extent(root: &UiNode) -> (u32, u32) {
    // Bounds are within `MAX_COORD`, so the extent is a valid screen size.
    (root.bounds[2].max(1) as u32, root.bounds[3].max(1) as u32)
}
