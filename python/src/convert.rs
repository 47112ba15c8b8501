//! Conversions between Python objects and the engine's JSON values, actions and UI elements.

use phoneworld_data::{Action, UiElement};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// A Python object made of dicts, lists, strings, numbers, bools and None, as JSON.
pub(crate) fn to_json(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
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
pub(crate) fn action_from_py(obj: &Bound<'_, PyAny>) -> Result<Action, String> {
    if let Ok(text) = obj.cast::<PyString>() {
        let text = text.to_cow().map_err(|e| e.to_string())?;
        return Action::from_json(&text).map_err(|e| e.to_string());
    }
    if obj.is_instance_of::<PyDict>() {
        let value = to_json(obj).map_err(|e| e.to_string())?;
        return Action::from_value(&value).map_err(|e| e.to_string());
    }
    Err(format!("an action is a dict or a JSON string, not {}", obj.get_type()))
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

pub(crate) fn ui_elements_to_py<'py>(py: Python<'py>, elements: &[UiElement]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for element in elements {
        let value = serde_json::to_value(element).unwrap_or(Value::Null);
        list.append(to_py(py, &value)?)?;
    }
    Ok(list)
}
