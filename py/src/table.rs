//! The core's operation table (`leaseq::operations`) as Python data, for the parity test
//! (tests/test_parity.py) and for tools: nothing here decides anything, it only copies the table.

use leaseq::operations::{Arg, Operation, EVENTS, OPERATIONS, PARTITIONED};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

fn arg<'py>(py: Python<'py>, a: &Arg) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", a.name)?;
    d.set_item("kind", format!("{:?}", a.kind))?;
    d.set_item("required", a.required)?;
    d.set_item("default", (!a.required).then_some(a.default))?;
    d.set_item("only", a.only)?;
    Ok(d)
}

fn operation<'py>(py: Python<'py>, o: &Operation) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", o.name)?;
    let args = o
        .args
        .iter()
        .map(|a| arg(py, a))
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("args", PyList::new(py, args)?)?;
    d.set_item("reply", o.reply)?;
    d.set_item("round_trips", o.round_trips)?;
    d.set_item("summary", o.summary)?;
    Ok(d)
}

/// Every operation of a queue, in the core's order: dicts ``{name, args, reply, round_trips,
/// summary}``, each argument ``{name, kind, required, default, only}`` (``default`` is the
/// table's words for what applies when it is left out, ``None`` for a required one; ``only`` is
/// the one language that has it, or ``None``).
#[pyfunction]
pub fn operations(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    OPERATIONS.iter().map(|o| operation(py, o)).collect()
}

/// Every operation of a partitioned queue, in the core's order: dicts ``{name, route, rust,
/// queue}`` (``route`` says where it goes, ``rust`` lists the Rust methods that implement it,
/// ``queue`` is whether a queue operation of that name exists, whose arguments it takes).
#[pyfunction]
pub fn partitioned_operations(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    PARTITIONED
        .iter()
        .map(|o| {
            let d = PyDict::new(py);
            d.set_item("name", o.name)?;
            d.set_item("route", o.route)?;
            d.set_item("rust", o.rust_names().to_vec())?;
            d.set_item("queue", o.queue_operation().is_some())?;
            Ok(d)
        })
        .collect()
}

/// The runner's event names, in the core's order (``leaseq.Worker.on`` takes them).
#[pyfunction]
pub fn events() -> Vec<&'static str> {
    EVENTS.to_vec()
}
