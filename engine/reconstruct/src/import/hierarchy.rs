//! The three hierarchy formats real traces use, each read into a [`UiNode`] tree:
//! uiautomator dump XML, DroidBot's flat JSON node list (also LlamaTouch `.vh`), and Rico's
//! nested JSON nodes.

use std::path::Path;

use serde_json::Value;

use crate::error::ReconError;
use crate::trace::UiNode;

/// Parses `[x1,y1][x2,y2]` (uiautomator) bounds.
pub(crate) fn parse_bracket_bounds(text: &str) -> Option<[i32; 4]> {
    let nums: Vec<i32> =
        text.split(['[', ']', ',']).filter(|s| !s.trim().is_empty()).map(|s| s.trim().parse().ok()).collect::<Option<Vec<_>>>()?;
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
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        ReconError::line(path, pos.row as usize, format!("column {}: malformed XML: {e}", pos.col))
    })?;
    let hierarchy = doc.root_element();
    if hierarchy.tag_name().name() != "hierarchy" {
        return Err(ReconError::format(path, format!("root element is <{}>, expected <hierarchy>", hierarchy.tag_name().name())));
    }
    let mut tops = Vec::new();
    for child in hierarchy.children().filter(|n| n.is_element()) {
        tops.push(xml_node(path, text, &child)?);
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

fn xml_node(path: &Path, text: &str, node: &roxmltree::Node<'_, '_>) -> Result<UiNode, ReconError> {
    let line = text[..node.range().start.min(text.len())].matches('\n').count() + 1;
    if node.tag_name().name() != "node" {
        return Err(ReconError::line(path, line, format!("unexpected element <{}>, expected <node>", node.tag_name().name())));
    }
    let raw_bounds = node.attribute("bounds").ok_or_else(|| ReconError::line(path, line, "<node> without `bounds`"))?;
    let bounds = parse_bracket_bounds(raw_bounds)
        .ok_or_else(|| ReconError::line(path, line, format!("field `bounds`: `{raw_bounds}` is not [x1,y1][x2,y2]")))?;
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
        out.children.push(xml_node(path, text, &child)?);
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
        (2, [x1, y1, x2, y2]) => Ok([*x1 as i32, *y1 as i32, *x2 as i32, *y2 as i32]),
        _ => Err(bad()),
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
pub(crate) fn read_flat_nodes(path: &Path, field: &str, list: &Value) -> Result<Option<UiNode>, ReconError> {
    let items = list.as_array().ok_or_else(|| ReconError::field(path, field, "expected a list of nodes"))?;
    if items.is_empty() {
        return Ok(None);
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
                .map(|c| c.as_u64().map(|c| c as usize).filter(|&c| c < items.len() && c > i))
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

/// One Rico node (nested `children`, `bounds` [x1,y1,x2,y2], `content-desc` a list).
pub(crate) fn rico_node(path: &Path, field: &str, v: &Value, depth: usize) -> Result<Option<UiNode>, ReconError> {
    if v.is_null() {
        return Ok(None);
    }
    if depth > 200 {
        return Err(ReconError::field(path, field, "hierarchy nested deeper than 200 levels"));
    }
    if !v.is_object() {
        return Err(ReconError::field(path, field, "a node must be a JSON object"));
    }
    let b = v.get("bounds").and_then(Value::as_array);
    let bounds = match b.map(|b| b.iter().map(Value::as_i64).collect::<Option<Vec<_>>>()) {
        Some(Some(n)) if n.len() == 4 => [n[0] as i32, n[1] as i32, n[2] as i32, n[3] as i32],
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
                if let Some(child) = rico_node(path, &format!("{field}.children[{i}]"), c, depth + 1)? {
                    node.children.push(child);
                }
            }
        }
        Some(_) => return Err(ReconError::field(path, format!("{field}.children"), "expected a list of nodes")),
    }
    Ok(Some(node))
}

/// The pixel size of a PNG or JPEG file, read from its header.
pub(crate) fn image_size(path: &Path) -> Option<(u32, u32)> {
    // Sniff the bytes: some traces save JPEG data under a .png name.
    let bytes = std::fs::read(path).ok()?;
    if bytes.starts_with(b"\x89PNG") {
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        let reader = decoder.read_info().ok()?;
        let info = reader.info();
        return Some((info.width, info.height));
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        let mut decoder = jpeg_decoder::Decoder::new(std::io::Cursor::new(&bytes));
        decoder.read_info().ok()?;
        return decoder.info().map(|i| (u32::from(i.width), u32::from(i.height)));
    }
    None
}

/// The screen size a hierarchy implies: its root's far corner.
pub(crate) fn root_extent(root: &UiNode) -> (u32, u32) {
    (root.bounds[2].max(1) as u32, root.bounds[3].max(1) as u32)
}
