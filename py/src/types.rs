//! The value classes shared by the sync and asyncio faces: `Item`, `Lease`, `CleanReport`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::{convert, errors};

/// A piece of work: an id, unique while the item exists, and its data (bytes).
///
/// ``Item(data)`` picks a random UUID id; ``Item(data, id="custom")`` uses yours (1 to 512
/// bytes of UTF-8 without control characters). ``data`` is bytes, bytearray or str (stored as
/// UTF-8).
#[pyclass(module = "leaseq", frozen)]
pub struct Item {
    pub inner: leaseq::Item,
}

fn make_item(py: Python<'_>, data: Vec<u8>, id: Option<&Bound<'_, PyAny>>) -> PyResult<Item> {
    let inner = match id {
        None => leaseq::Item::new(data),
        Some(id) if id.is_none() => leaseq::Item::new(data),
        Some(id) => leaseq::Item::with_id(convert::string(id, "id")?, data)
            .map_err(|e| errors::to_py(py, e))?,
    };
    Ok(Item { inner })
}

/// Python's `json.dumps`, compact, refusing NaN and infinities (they are not JSON).
fn json_dumps(value: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let py = value.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("separators", (",", ":"))?;
    kwargs.set_item("ensure_ascii", false)?;
    kwargs.set_item("allow_nan", false)?;
    let text = py
        .import("json")?
        .call_method("dumps", (value,), Some(&kwargs))
        .map_err(|e| errors::json(py, e))?;
    convert::string(&text, "value").map(String::into_bytes)
}

/// Python's `json.loads` of item data.
fn json_loads<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (PyBytes::new(py, data),))
        .map_err(|e| errors::json(py, e))
}

#[pymethods]
impl Item {
    #[new]
    #[pyo3(signature = (data, id = None))]
    fn new(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        make_item(py, convert::data(data, "data")?, id)
    }

    /// An item whose data is ``value`` encoded as compact JSON (UTF-8). Raises ``JsonError`` when
    /// ``value`` cannot be encoded (NaN included).
    #[staticmethod]
    #[pyo3(signature = (value, id = None))]
    fn from_json(
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        make_item(py, json_dumps(value)?, id)
    }

    /// The id.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id()
    }

    /// The data.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.data())
    }

    /// The data parsed as JSON; raises ``JsonError`` when it is not JSON.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, self.inner.data())
    }

    fn __repr__(&self) -> String {
        format!(
            "Item(id={:?}, {} bytes)",
            self.inner.id(),
            self.inner.data().len()
        )
    }
}

/// A leased item. Pass it back to ``complete``, ``complete_and_lease`` or ``renew``.
#[pyclass(module = "leaseq", frozen)]
pub struct Lease {
    /// The core's lease, its data moved into `data`.
    pub inner: leaseq::Lease,
    data: Py<PyBytes>,
}

/// A lease fresh from the core, turned into a Python `Lease` when the GIL is held.
pub struct NewLease(pub leaseq::Lease);

impl<'py> IntoPyObject<'py> for NewLease {
    type Target = Lease;
    type Output = Bound<'py, Lease>;
    type Error = PyErr;

    fn into_pyobject(mut self, py: Python<'py>) -> PyResult<Bound<'py, Lease>> {
        let data = PyBytes::new(py, &self.0.take_data()).unbind();
        Bound::new(
            py,
            Lease {
                inner: self.0,
                data,
            },
        )
    }
}

#[pymethods]
impl Lease {
    /// The item's id.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id()
    }

    /// The item's data.
    #[getter]
    fn data(&self, py: Python<'_>) -> Py<PyBytes> {
        self.data.clone_ref(py)
    }

    /// The item's data parsed as JSON; raises ``JsonError`` when it is not JSON.
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, self.data.as_bytes(py))
    }

    /// This lease's token: random and unique to this lease; ``renew`` checks it (fencing).
    #[getter]
    fn token(&self) -> &str {
        self.inner.token()
    }

    /// How many times the item has been leased, this lease included (1 the first time). Above 1,
    /// an earlier holder let its lease expire or crashed.
    #[getter]
    fn count(&self) -> u64 {
        self.inner.count()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Lease(id={:?}, count={}, {} bytes)",
            self.inner.id(),
            self.inner.count(),
            self.data.as_bytes(py).len()
        )
    }
}

/// What a clean did: ``requeued`` items put back in the queue, ``removed`` stale entries dropped.
#[pyclass(module = "leaseq", frozen, eq)]
#[derive(PartialEq, Eq)]
pub struct CleanReport {
    /// Items put back in the queue (their lease expired, or their holder crashed).
    #[pyo3(get)]
    pub requeued: u64,
    /// Stale entries removed: ids of complete items, duplicates, orphaned lease counts.
    #[pyo3(get)]
    pub removed: u64,
}

impl From<leaseq::CleanReport> for CleanReport {
    fn from(r: leaseq::CleanReport) -> Self {
        CleanReport {
            requeued: r.requeued,
            removed: r.removed,
        }
    }
}

#[pymethods]
impl CleanReport {
    fn __repr__(&self) -> String {
        format!(
            "CleanReport(requeued={}, removed={})",
            self.requeued, self.removed
        )
    }
}
