//! uiautomator dump XML → UI elements, with the engine's selection rule: a node is listed when
//! it is a leaf, has a content description, or is scrollable, in document order.

use phoneworld_data::{BBox, UiElement};

/// A malformed dump: what and where (line:column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UiXmlError {
    #[error("not XML: {0}")]
    Syntax(String),
    #[error("the root element is <{0}>, expected <hierarchy>")]
    Root(String),
    #[error("line {line}, column {col}: node attribute `bounds` is {value:?}, expected [x1,y1][x2,y2]")]
    Bounds { line: u32, col: u32, value: String },
}

/// `[x1,y1][x2,y2]` → the four numbers.
pub fn parse_bounds(text: &str) -> Option<[f64; 4]> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (a, b) = inner.split_once("][")?;
    let (x1, y1) = a.split_once(',')?;
    let (x2, y2) = b.split_once(',')?;
    Some([x1.trim().parse().ok()?, y1.trim().parse().ok()?, x2.trim().parse().ok()?, y2.trim().parse().ok()?])
}

fn non_empty(s: Option<&str>) -> Option<String> {
    s.filter(|s| !s.is_empty()).map(str::to_owned)
}

/// The UI elements of a uiautomator dump of a `width` x `height` screen. uiautomator does not
/// write hint texts or tooltips, so those are `None`; `is_editable` comes from the class name.
pub fn ui_elements_from_xml(xml: &str, width: u32, height: u32) -> Result<Vec<UiElement>, UiXmlError> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| UiXmlError::Syntax(e.to_string()))?;
    let root = doc.root_element();
    if root.tag_name().name() != "hierarchy" {
        return Err(UiXmlError::Root(root.tag_name().name().to_owned()));
    }
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let mut out = Vec::new();
    for node in root.descendants().filter(|n| n.is_element() && n.tag_name().name() == "node") {
        let attr = |name: &str| node.attribute(name);
        let flag = |name: &str| Some(attr(name) == Some("true"));
        let is_leaf = !node.children().any(|c| c.is_element() && c.tag_name().name() == "node");
        let desc = non_empty(attr("content-desc"));
        let scrollable = attr("scrollable") == Some("true");
        if !(is_leaf || desc.is_some() || scrollable) {
            continue;
        }
        let bounds_text = attr("bounds").unwrap_or("[0,0][0,0]");
        let Some([x1, y1, x2, y2]) = parse_bounds(bounds_text) else {
            let pos = doc.text_pos_at(node.range().start);
            return Err(UiXmlError::Bounds { line: pos.row, col: pos.col, value: bounds_text.to_owned() });
        };
        let class = attr("class").unwrap_or("").to_owned();
        out.push(UiElement {
            text: non_empty(attr("text")),
            content_description: desc,
            is_editable: Some(class.contains("EditText")),
            class_name: Some(class),
            bbox: Some(BBox { x_min: x1 / w, x_max: x2 / w, y_min: y1 / h, y_max: y2 / h }),
            bbox_pixels: Some(BBox { x_min: x1, x_max: x2, y_min: y1, y_max: y2 }),
            hint_text: None,
            is_checked: flag("checked"),
            is_checkable: flag("checkable"),
            is_clickable: flag("clickable"),
            is_enabled: flag("enabled"),
            is_focused: flag("focused"),
            is_focusable: flag("focusable"),
            is_long_clickable: flag("long-clickable"),
            is_scrollable: Some(scrollable),
            is_selected: flag("selected"),
            is_visible: Some(true),
            package_name: non_empty(attr("package")),
            resource_name: non_empty(attr("resource-id")),
            tooltip: None,
            resource_id: non_empty(attr("resource-id")),
        });
    }
    Ok(out)
}

/// The XML document inside a command's output (`uiautomator dump F && cat F` prints the
/// "dumped to" line first).
pub fn extract_xml(output: &str) -> Option<&str> {
    let start = output.find("<?xml").or_else(|| output.find("<hierarchy"))?;
    let end = output.rfind("</hierarchy>")? + "</hierarchy>".len();
    (end > start).then(|| &output[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_rule_and_fields() {
        let xml = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,0][100,200]"><node index="0" text="Hi &amp; bye" resource-id="p:id/t" class="android.widget.EditText" package="p" content-desc="" checkable="true" checked="true" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[10,20][50,60]" /></node><node index="1" text="" resource-id="" class="android.view.View" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1,1]"><node index="0" text="x" resource-id="" class="android.widget.TextView" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1,1]" /></node></hierarchy>"#;
        let els = ui_elements_from_xml(xml, 100, 200).unwrap();
        assert_eq!(els.len(), 3, "scrollable parent, leaf, leaf; the plain container is skipped");
        assert_eq!(els[1].text.as_deref(), Some("Hi & bye"));
        assert_eq!(els[1].is_editable, Some(true));
        assert_eq!(els[1].resource_id.as_deref(), Some("p:id/t"));
        assert_eq!(els[1].bbox.unwrap().x_max, 0.5);
        assert_eq!(els[1].bbox_pixels.unwrap().y_min, 20.0);
        assert_eq!(els[2].text.as_deref(), Some("x"));
    }

    #[test]
    fn bad_dumps_say_what_is_wrong() {
        assert!(matches!(ui_elements_from_xml("<hierarchy><node", 1, 1), Err(UiXmlError::Syntax(_))));
        assert!(matches!(ui_elements_from_xml("<root/>", 1, 1), Err(UiXmlError::Root(r)) if r == "root"));
        let err = ui_elements_from_xml("<hierarchy>\n<node bounds=\"[1,2]\"/></hierarchy>", 1, 1).unwrap_err();
        assert_eq!(err.to_string(), "line 2, column 1: node attribute `bounds` is \"[1,2]\", expected [x1,y1][x2,y2]");
        assert_eq!(
            extract_xml("UI hierchary dumped to: /sdcard/x.xml\n<?xml a?><hierarchy></hierarchy>\n"),
            Some("<?xml a?><hierarchy></hierarchy>")
        );
    }
}
