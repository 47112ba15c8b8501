//! The Python exception hierarchy: every error the module raises is a `PhoneWorldError`.

use phoneworld_phone::PhoneError;
use phoneworld_tasks::TaskError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(phoneworld, PhoneWorldError, PyException, "Base class of every error PhoneWorld raises.");
create_exception!(phoneworld, ScriptError, PhoneWorldError, "An app's Lua script failed (file and line in the message).");
create_exception!(phoneworld, ConfigError, PhoneWorldError, "A bad configuration: app bundle, task, suite, size or option.");
create_exception!(phoneworld, ActionError, PhoneWorldError, "An action that cannot be parsed or applied.");
create_exception!(phoneworld, SnapshotError, PhoneWorldError, "Snapshot bytes that cannot be restored (the offset is in the message).");
create_exception!(
    phoneworld,
    NotSupportedOnRealDevice,
    PhoneWorldError,
    "A mock-only operation (state, snapshot, fork) asked of a real phone."
);
create_exception!(phoneworld, DeviceError, PhoneWorldError, "A real or served device failed: offline, unauthorized, timed out.");

pub(crate) fn phone_error(err: PhoneError) -> PyErr {
    let message = err.to_string();
    match err {
        PhoneError::Script(_) => ScriptError::new_err(message),
        PhoneError::Snapshot(_) => SnapshotError::new_err(message),
        _ => ConfigError::new_err(message),
    }
}

pub(crate) fn task_error(err: TaskError) -> PyErr {
    ConfigError::new_err(err.to_string())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PhoneWorldError", py.get_type::<PhoneWorldError>())?;
    m.add("ScriptError", py.get_type::<ScriptError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("ActionError", py.get_type::<ActionError>())?;
    m.add("SnapshotError", py.get_type::<SnapshotError>())?;
    m.add("NotSupportedOnRealDevice", py.get_type::<NotSupportedOnRealDevice>())?;
    m.add("DeviceError", py.get_type::<DeviceError>())?;
    Ok(())
}
