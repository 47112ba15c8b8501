//! The UI element list as columns (`Phone.ui_element_columns`): one list per text field and
//! one numpy array per box and flag, instead of a dict per element. Gathered under the
//! device's lock into flat Rust buffers (one string buffer, no allocation per element), then
//! turned into Python objects with the GIL held.

use std::ops::Range;

use numpy::{PyArray1, PyArrayMethods};
use phoneworld_phone::Device;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::convert::{ELEMENT_FIELDS, FLAG_FIELDS};

/// The text fields, in the order of `Gathered::texts`' spans.
const TEXT_FIELDS: [&str; 5] = ["text", "content_description", "hint_text", "resource_id", "package_name"];

/// The element list as flat buffers, owned, so the device's lock can be let go.
#[derive(Default)]
pub(crate) struct Gathered {
    strings: String,
    /// Per element, each text field's span of `strings` (empty: the field is unset).
    texts: Vec<[Range<u32>; 5]>,
    classes: Vec<&'static str>,
    /// `[x1, y1, x2, y2]` per element, in pixels.
    bounds: Vec<f64>,
    /// Per flag (in `FLAG_FIELDS`' order), one value per element.
    flags: [Vec<bool>; 10],
    size: (f64, f64),
}

impl Gathered {
    /// The device's current element list.
    pub(crate) fn from_device(device: &mut Device) -> Gathered {
        let size = (f64::from(device.config().width), f64::from(device.config().height));
        let mut g = Gathered { size, ..Gathered::default() };
        device.visit_ui_elements(|a, bounds| {
            let mut span = |s: &str| {
                let start = g.strings.len() as u32;
                g.strings.push_str(s);
                start..g.strings.len() as u32
            };
            let texts = [span(&a.text), span(&a.content_desc), span(&a.hint), span(&a.resource_id), span(&a.package)];
            g.texts.push(texts);
            g.classes.push(a.class_name);
            g.bounds.extend(bounds);
            let flags = [
                a.checked,
                a.checkable,
                a.clickable,
                a.editable,
                a.enabled,
                a.focused,
                a.focusable,
                a.long_clickable,
                a.scrollable,
                a.selected,
            ];
            for (column, value) in g.flags.iter_mut().zip(flags) {
                column.push(value);
            }
        });
        g
    }

    /// The columns as a dict: a list of `str | None` per text field and `class_name`,
    /// `bbox_pixels` and `bbox` (normalized) as `(n, 4)` float64 arrays of `[x_min, y_min,
    /// x_max, y_max]`, and a bool array per flag.
    pub(crate) fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let n = self.classes.len();
        let out = PyDict::new(py);
        for (field, column) in TEXT_FIELDS.iter().enumerate() {
            // Runs of one value (the package on every element) share one string.
            let mut last: Option<(&str, Bound<'_, PyAny>)> = None;
            let mut values = Vec::with_capacity(n);
            for spans in &self.texts {
                let text = &self.strings[spans[field].start as usize..spans[field].end as usize];
                let value = match &last {
                    _ if text.is_empty() => py.None().into_bound(py),
                    Some((prev, v)) if *prev == text => v.clone(),
                    _ => {
                        let v = PyString::new(py, text).into_any();
                        last = Some((text, v.clone()));
                        v
                    }
                };
                values.push(value);
            }
            out.set_item(*column, PyList::new(py, values)?)?;
        }
        let mut classes: Vec<(&str, Bound<'_, PyString>)> = Vec::new();
        let mut class_names = Vec::with_capacity(n);
        for class in &self.classes {
            let name = match classes.iter().find(|(c, _)| c == class) {
                Some((_, name)) => name.clone(),
                None => {
                    let name = PyString::new(py, class);
                    classes.push((class, name.clone()));
                    name
                }
            };
            class_names.push(name);
        }
        out.set_item("class_name", PyList::new(py, class_names)?)?;
        let (w, h) = self.size;
        let normalized: Vec<f64> = self.bounds.chunks_exact(4).flat_map(|b| [b[0] / w, b[1] / h, b[2] / w, b[3] / h]).collect();
        out.set_item("bbox_pixels", PyArray1::from_vec(py, self.bounds).reshape([n, 4])?)?;
        out.set_item("bbox", PyArray1::from_vec(py, normalized).reshape([n, 4])?)?;
        for (name, column) in ELEMENT_FIELDS[FLAG_FIELDS].iter().zip(self.flags) {
            out.set_item(*name, PyArray1::from_vec(py, column))?;
        }
        Ok(out)
    }
}
