//! Conversions between Python objects and the engine's JSON values, actions and UI elements.

use phoneworld_data::{Action, BBox, UiElement};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// A Python object made of dicts, lists, strings, numbers, bools and None, as JSON.
/// How deep a value from Python may nest (parameters, actions, task options): deeper is a
/// `TypeError`, not a stack overflow.
const MAX_JSON_DEPTH: usize = 64;

pub(crate) fn to_json(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_json_at(obj, 0)
}

fn to_json_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_JSON_DEPTH {
        return Err(PyTypeError::new_err(format!("the value nests more than {MAX_JSON_DEPTH} deep")));
    }
    let to_json = |v: &Bound<'_, PyAny>| to_json_at(v, depth + 1);
    if obj.is_none() {
        Ok(Value::Null)
    } else if let Ok(b) = obj.cast::<PyBool>() {
        Ok(Value::Bool(b.is_true()))
    } else if obj.is_instance_of::<PyInt>() {
        match obj.extract::<i64>() {
            Ok(i) => Ok(Value::from(i)),
            Err(_) => Ok(Value::from(obj.extract::<u64>()?)),
        }
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        Number::from_f64(f.value()).map(Value::Number).ok_or_else(|| PyTypeError::new_err("NaN and infinity are not JSON numbers"))
    } else if let Ok(s) = obj.cast::<PyString>() {
        Ok(Value::String(s.to_cow()?.into_owned()))
    } else if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key: String = k.extract().map_err(|_| PyTypeError::new_err(format!("dict keys must be str, not {}", k.get_type())))?;
            map.insert(key, to_json(&v)?);
        }
        Ok(Value::Object(map))
    } else if let Ok(l) = obj.cast::<PyList>() {
        l.iter().map(|v| to_json(&v)).collect::<PyResult<Vec<_>>>().map(Value::Array)
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        t.iter().map(|v| to_json(&v)).collect::<PyResult<Vec<_>>>().map(Value::Array)
    } else if obj.hasattr("item")? && obj.hasattr("dtype")? {
        // numpy scalars (np.int64(3), np.float32(0.5)) as their Python value
        to_json(&obj.call_method0("item")?)
    } else {
        Err(PyTypeError::new_err(format!("cannot convert {} to JSON", obj.get_type())))
    }
}

/// A JSON value as plain Python objects.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A canonical action from a dict or its JSON text; the error says what is wrong with it.
/// A canonical action from a dict or JSON text, within the action limits (a `wait` of 2^63 ms
/// is an error here, where the phone itself would make it a no-op with a note).
pub(crate) fn action_from_py(obj: &Bound<'_, PyAny>) -> Result<Action, String> {
    let action = if let Ok(text) = obj.cast::<PyString>() {
        let text = text.to_cow().map_err(|e| e.to_string())?;
        Action::from_json(&text).map_err(|e| e.to_string())?
    } else if obj.is_instance_of::<PyDict>() {
        let value = to_json(obj).map_err(|e| e.to_string())?;
        Action::from_value(&value).map_err(|e| e.to_string())?
    } else {
        return Err(format!("an action is a dict or a JSON string, not {}", obj.get_type()));
    };
    action.check_limits()?;
    Ok(action)
}

/// One step's actions: a canonical action, or a list of them applied as one step (a tap on a
/// field then the typing, as AndroidWorld's `input_text` does).
pub(crate) fn actions_from_py(obj: &Bound<'_, PyAny>) -> Result<Vec<Action>, String> {
    if let Ok(list) = obj.cast::<PyList>() {
        if list.is_empty() {
            return Err("an empty list of actions".into());
        }
        return list.iter().enumerate().map(|(i, a)| action_from_py(&a).map_err(|e| format!("action {i}: {e}"))).collect();
    }
    action_from_py(obj).map(|a| vec![a])
}

/// Where the flags `is_checked` .. `is_selected` sit in `ELEMENT_FIELDS`, in that order.
pub(crate) const FLAG_FIELDS: std::ops::Range<usize> = 6..16;

/// The field names of a UI element dict, in AndroidWorld's order.
pub(crate) const ELEMENT_FIELDS: [&str; 21] = [
    "text",
    "content_description",
    "class_name",
    "bbox",
    "bbox_pixels",
    "hint_text",
    "is_checked",
    "is_checkable",
    "is_clickable",
    "is_editable",
    "is_enabled",
    "is_focused",
    "is_focusable",
    "is_long_clickable",
    "is_scrollable",
    "is_selected",
    "is_visible",
    "package_name",
    "resource_name",
    "tooltip",
    "resource_id",
];

const BBOX_FIELDS: [&str; 4] = ["x_min", "x_max", "y_min", "y_max"];

/// A dict of `fields`, each None: copying it and setting the values present is cheaper than
/// building each dict key by key (the copy comes sized, no key is hashed twice).
fn blank<'py>(py: Python<'py>, cell: &'static PyOnceLock<Py<PyDict>>, fields: &[&str]) -> PyResult<Bound<'py, PyDict>> {
    let blank = cell.get_or_try_init(py, || -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        for field in fields {
            d.set_item(PyString::intern(py, field), py.None())?;
        }
        Ok(d.unbind())
    })?;
    blank.bind(py).copy()
}

fn bbox_to_py<'py>(py: Python<'py>, b: &BBox) -> PyResult<Bound<'py, PyDict>> {
    static BLANK: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let d = blank(py, &BLANK, &BBOX_FIELDS)?;
    d.set_item(intern!(py, "x_min"), b.x_min)?;
    d.set_item(intern!(py, "x_max"), b.x_max)?;
    d.set_item(intern!(py, "y_min"), b.y_min)?;
    d.set_item(intern!(py, "y_max"), b.y_max)?;
    Ok(d)
}

/// UI elements as dicts with AndroidWorld's field names, built directly (this runs under
/// the GIL for every env of a batch, so it avoids an intermediate JSON value): each is a copy
/// of a dict of None with the values present set.
pub(crate) fn ui_elements_to_py<'py>(py: Python<'py>, elements: &[UiElement]) -> PyResult<Bound<'py, PyList>> {
    static BLANK: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
    let mut dicts = Vec::with_capacity(elements.len());
    for e in elements {
        let d = blank(py, &BLANK, &ELEMENT_FIELDS)?;
        let texts = [
            (intern!(py, "text"), &e.text),
            (intern!(py, "content_description"), &e.content_description),
            (intern!(py, "class_name"), &e.class_name),
            (intern!(py, "hint_text"), &e.hint_text),
            (intern!(py, "package_name"), &e.package_name),
            (intern!(py, "resource_name"), &e.resource_name),
            (intern!(py, "tooltip"), &e.tooltip),
            (intern!(py, "resource_id"), &e.resource_id),
        ];
        for (key, value) in texts {
            if let Some(value) = value {
                d.set_item(key, value)?;
            }
        }
        for (key, b) in [(intern!(py, "bbox"), &e.bbox), (intern!(py, "bbox_pixels"), &e.bbox_pixels)] {
            if let Some(b) = b {
                d.set_item(key, bbox_to_py(py, b)?)?;
            }
        }
        let flags = [
            (intern!(py, "is_checked"), e.is_checked),
            (intern!(py, "is_checkable"), e.is_checkable),
            (intern!(py, "is_clickable"), e.is_clickable),
            (intern!(py, "is_editable"), e.is_editable),
            (intern!(py, "is_enabled"), e.is_enabled),
            (intern!(py, "is_focused"), e.is_focused),
            (intern!(py, "is_focusable"), e.is_focusable),
            (intern!(py, "is_long_clickable"), e.is_long_clickable),
            (intern!(py, "is_scrollable"), e.is_scrollable),
            (intern!(py, "is_selected"), e.is_selected),
            (intern!(py, "is_visible"), e.is_visible),
        ];
        for (key, value) in flags {
            if let Some(value) = value {
                d.set_item(key, value)?;
            }
        }
        dicts.push(d);
    }
    PyList::new(py, dicts)
}
