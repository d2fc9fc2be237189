//! Dependencies and flows (spec/PROTOCOL.md 5.24): `leaseq_queue_add_flow` (a parent and its
//! children, as a flat array with each child's parent index), and what an item waits for
//! (`leaseq_queue_dependencies`) and its dependencies' results
//! (`leaseq_queue_dependency_results`), as out-structs freed by their `_free` function. The
//! item options `depends_on` and `on_dependency_failure` are in `leaseq_add_options`.

use std::ffi::{c_char, CString};

use leaseq::{Dependencies, Flow};

use crate::guard::{arg, array, c_string, call, call_quiet, text, Failure, Out};
use crate::item::leaseq_item;
use crate::options::{leaseq_add_options, leaseq_on_dependency_failure};
use crate::queue::leaseq_queue;
use crate::status::leaseq_status;

/// `leaseq_flow_child.parent` of a child of the flow's parent itself (the `parent` argument of
/// `leaseq_queue_add_flow`): `SIZE_MAX` (the header defines it, from cbindgen.toml).
pub(crate) const LEASEQ_FLOW_ROOT: usize = usize::MAX;

/// One child of a flow (`leaseq_queue_add_flow`): an item, its options, and which item it is a
/// child of (a plain struct of fixed layout, read only during the call).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_flow_child {
    /// The item (required).
    pub item: *const leaseq_item,
    /// Its options, as `leaseq_queue_add_with_options` takes them; NULL: none. Its own
    /// `depends_on`, if any, come before its children's ids.
    pub options: *const leaseq_add_options,
    /// Whose child it is: `LEASEQ_FLOW_ROOT` for a child of the flow's parent, else the index
    /// in the array of another child, which comes before it: that child waits for it too.
    pub parent: usize,
}

/// Adds `parent` and its children in one call (BullMQ's FlowProducer): the children first, then
/// the parent, blocked (`LEASEQ_STATE_BLOCKED`) until every child of its own completed; a child
/// with children of its own waits for them likewise. A parent reads its children's results with
/// `leaseq_queue_dependency_results`. `children` is a flat array of `children_len` children,
/// each naming its parent (`LEASEQ_FLOW_ROOT` or an earlier index); children of one parent keep
/// their order. `parent_options` (NULL: none) and each child's `options` are checked as
/// `leaseq_queue_add_with_options` checks them, every one before anything is sent (a refused
/// child's field is named with its index: `children[2].options.priority`).
///
/// On success `*out_added` is how many items were added (an id that exists is not added
/// again, and its item counts as the dependency). At most 1000 items in all, with distinct ids
/// (else `LEASEQ_INVALID_ARGUMENT` naming `children`). One round trip.
///
/// # Safety
/// `queue` and `parent` are NULL or live handles; `parent_options` is NULL or a
/// `leaseq_add_options` of `struct_size` readable bytes; `children` is NULL (with
/// `children_len` 0) or points to `children_len` readable `leaseq_flow_child`, each `item` NULL
/// or live and each `options` NULL or readable; `out_added` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_add_flow(
    queue: *const leaseq_queue,
    parent: *const leaseq_item,
    parent_options: *const leaseq_add_options,
    children: *const leaseq_flow_child,
    children_len: usize,
    out_added: *mut usize,
) -> leaseq_status {
    call("leaseq_queue_add_flow", || {
        let out_added = unsafe { Out::new(out_added, "out_added", 0) };
        let queue = unsafe { arg(queue, "queue") }?;
        let parent = unsafe { arg(parent, "parent") }?;
        let children = unsafe { array(children, children_len, "children") }?;
        out_added.required()?;
        let (parent, top) = unsafe { flow(parent, parent_options, children) }?;
        out_added.set(queue.inner.add_flow(&parent, &top)?);
        Ok(())
    })
}

/// The parent (its options applied) and the flows of `leaseq_queue_add_flow`'s arguments (also
/// `leaseq_partitioned_add_flow`'s), every option checked, a refused one named as there.
///
/// # Safety
/// As for `leaseq_queue_add_flow`'s `parent_options` and `children`.
pub(crate) unsafe fn flow(
    parent: &leaseq_item,
    parent_options: *const leaseq_add_options,
    children: &[leaseq_flow_child],
) -> Result<(leaseq::Item, Vec<Flow>), Failure> {
    let parent = unsafe { with_options(parent, parent_options, "parent_options") }?;
    // Each child's own children, in order; the flow's are under `roots`.
    let mut roots = Vec::new();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); children.len()];
    let mut flows: Vec<Option<Flow>> = Vec::with_capacity(children.len());
    for (i, child) in children.iter().enumerate() {
        let item = unsafe { child.item.as_ref() }
            .ok_or_else(|| Failure::Null(format!("children[{i}].item").into()))?;
        let item = unsafe { with_options(item, child.options, &format!("children[{i}].options")) }?;
        flows.push(Some(Flow::new(item)));
        match child.parent {
            LEASEQ_FLOW_ROOT => roots.push(i),
            p if p < i => kids[p].push(i),
            p => {
                return Err(Failure::invalid(
                    format!("children[{i}].parent"),
                    format!(
                        "is {p}: not LEASEQ_FLOW_ROOT nor the index of an earlier child \
                         (a child comes after its parent in the array)"
                    ),
                ))
            }
        }
    }
    // Every child's children come after it: build from the last one back, so that each
    // flow is whole when its parent takes it.
    for i in (0..flows.len()).rev() {
        let mut flow = flows[i].take().expect("each flow is taken once");
        for &k in &kids[i] {
            flow = flow.child(flows[k].take().expect("a child is built before its parent"));
        }
        flows[i] = Some(flow);
    }
    let top: Vec<Flow> = roots
        .iter()
        .map(|&i| flows[i].take().expect("a root is built once"))
        .collect();
    Ok((parent, top))
}

/// `item` with `options` applied (NULL: none), a refused field named under `name`.
///
/// # Safety
/// `options` is NULL or a `leaseq_add_options` of `struct_size` readable bytes, its pointers
/// as `leaseq_add_options::apply` needs them.
unsafe fn with_options(
    item: &leaseq_item,
    options: *const leaseq_add_options,
    name: &str,
) -> Result<leaseq::Item, Failure> {
    match unsafe { crate::options::read(options, name) }? {
        Some(o) => unsafe { o.apply(item.inner.clone(), name) },
        None => Ok(item.inner.clone()),
    }
}

/// Keeps C strings alive and gives their pointers.
#[derive(Default)]
struct Strings(Vec<CString>);

impl Strings {
    fn list(&mut self, items: &[String]) -> Vec<*const c_char> {
        items
            .iter()
            .map(|s| {
                let c = c_string(s);
                let ptr = c.as_ptr();
                self.0.push(c);
                ptr
            })
            .collect()
    }
}

/// A list for C: NULL when empty.
fn list_ptr<T>(list: &[T]) -> *const T {
    if list.is_empty() {
        std::ptr::null()
    } else {
        list.as_ptr()
    }
}

/// What one item waits for and what waits for it (`leaseq_queue_dependencies`), owned by the
/// caller: free it with `leaseq_dependencies_free`. Every list holds NUL-terminated UTF-8 ids
/// (NULL when empty), valid until then.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_dependencies {
    /// The ids it was added to wait for, in order.
    pub depends_on: *const *const c_char,
    /// How many ids `depends_on` holds.
    pub depends_on_len: usize,
    /// Its policy when a dependency dies or is cancelled; `LEASEQ_ON_DEPENDENCY_FAILURE_NONE`
    /// without dependencies.
    pub on_dependency_failure: leaseq_on_dependency_failure,
    /// Those it still waits for (while it is blocked).
    pub pending: *const *const c_char,
    /// How many ids `pending` holds.
    pub pending_len: usize,
    /// How many blocked items wait for it.
    pub dependants_count: u64,
    /// Up to 100 of them.
    pub dependants: *const *const c_char,
    /// How many ids `dependants` holds.
    pub dependants_len: usize,
}

/// `leaseq_dependencies` with what it points to; `c` first.
#[repr(C)]
struct OwnedDependencies {
    c: leaseq_dependencies,
    _strings: Strings,
    _lists: [Vec<*const c_char>; 3],
}

/// What item `id` (NUL-terminated UTF-8) waits for (its dependencies, those still pending) and
/// how many blocked items wait for it. An id with neither gives empty lists. One round trip.
///
/// On success `*out_dependencies` is new, owned by the caller: free it with
/// `leaseq_dependencies_free`. On failure it is set to NULL.
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string;
/// `out_dependencies` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_dependencies(
    queue: *const leaseq_queue,
    id: *const c_char,
    out_dependencies: *mut *mut leaseq_dependencies,
) -> leaseq_status {
    call("leaseq_queue_dependencies", || {
        let out = unsafe { Out::new(out_dependencies, "out_dependencies", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        out.set(dependencies_to_c(queue.inner.dependencies(id)?));
        Ok(())
    })
}

/// The core's answer as a new `leaseq_dependencies` for the caller (freed by
/// `leaseq_dependencies_free`).
pub(crate) fn dependencies_to_c(deps: Dependencies) -> *mut leaseq_dependencies {
    let mut strings = Strings::default();
    let lists = [
        strings.list(&deps.depends_on),
        strings.list(&deps.pending),
        strings.list(&deps.dependants),
    ];
    let c = leaseq_dependencies {
        depends_on: list_ptr(&lists[0]),
        depends_on_len: lists[0].len(),
        on_dependency_failure: crate::options::on_dependency_failure_to_c(
            deps.on_dependency_failure,
        ),
        pending: list_ptr(&lists[1]),
        pending_len: lists[1].len(),
        dependants_count: deps.dependants_count,
        dependants: list_ptr(&lists[2]),
        dependants_len: lists[2].len(),
    };
    let boxed = Box::new(OwnedDependencies {
        c,
        _strings: strings,
        _lists: lists,
    });
    Box::into_raw(boxed).cast::<leaseq_dependencies>()
}

/// Frees what `leaseq_queue_dependencies` (or `leaseq_partitioned_dependencies`) gave. NULL is
/// accepted and ignored.
///
/// # Safety
/// `dependencies` is NULL or from `leaseq_queue_dependencies` or
/// `leaseq_partitioned_dependencies`, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_dependencies_free(dependencies: *mut leaseq_dependencies) {
    call_quiet((), || {
        if !dependencies.is_null() {
            // SAFETY: made by Box::into_raw of an OwnedDependencies (whose first field it
            // points to) in this crate, and freed once, by contract.
            drop(unsafe { Box::from_raw(dependencies.cast::<OwnedDependencies>()) });
        }
    })
}

/// The kept result of one dependency (`leaseq_dependency_results`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_dependency_result {
    /// The dependency's id (NUL-terminated UTF-8).
    pub id: *const c_char,
    /// Whether a result is kept (false: completed without one, expired, or not completed).
    pub has_result: bool,
    /// The result's bytes (`result_len` of them, followed by a NUL that is not part of them);
    /// NULL without a result.
    pub result: *const u8,
    /// The result's length in bytes.
    pub result_len: usize,
}

/// The kept results of an item's dependencies, in order (`leaseq_queue_dependency_results`),
/// owned by the caller: free it with `leaseq_dependency_results_free`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct leaseq_dependency_results {
    /// One per dependency, in the order the item was added to wait for them (NULL when none).
    pub results: *const leaseq_dependency_result,
    /// How many `results` holds.
    pub results_len: usize,
}

/// `leaseq_dependency_results` with what it points to; `c` first.
#[repr(C)]
struct OwnedResults {
    c: leaseq_dependency_results,
    _strings: Strings,
    _data: Vec<Vec<u8>>,
    _results: Vec<leaseq_dependency_result>,
}

/// The kept results of the items `id` (NUL-terminated UTF-8) was added to wait for, in order: a
/// flow's parent reads its children's results so, once they completed. One round trip.
///
/// On success `*out_results` is new, owned by the caller: free it with
/// `leaseq_dependency_results_free`. On failure it is set to NULL.
///
/// # Safety
/// `queue` is NULL or a live queue; `id` is NULL or a NUL-terminated string; `out_results` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_queue_dependency_results(
    queue: *const leaseq_queue,
    id: *const c_char,
    out_results: *mut *mut leaseq_dependency_results,
) -> leaseq_status {
    call("leaseq_queue_dependency_results", || {
        let out = unsafe { Out::new(out_results, "out_results", std::ptr::null_mut()) };
        let queue = unsafe { arg(queue, "queue") }?;
        let id = unsafe { text(id, "id") }?;
        out.required()?;
        out.set(dependency_results_to_c(queue.inner.dependency_results(id)?));
        Ok(())
    })
}

/// The core's answer as a new `leaseq_dependency_results` for the caller (freed by
/// `leaseq_dependency_results_free`).
pub(crate) fn dependency_results_to_c(
    pairs: Vec<(String, Option<Vec<u8>>)>,
) -> *mut leaseq_dependency_results {
    let mut strings = Strings::default();
    let mut data = Vec::with_capacity(pairs.len());
    let mut results = Vec::with_capacity(pairs.len());
    for (dep, result) in pairs {
        let id = strings.list(std::slice::from_ref(&dep))[0];
        let entry = match result {
            Some(mut bytes) => {
                let len = bytes.len();
                bytes.push(0);
                // The Vec's buffer stays where it is when the Vec moves into `data`.
                let ptr = bytes.as_ptr();
                data.push(bytes);
                leaseq_dependency_result {
                    id,
                    has_result: true,
                    result: ptr,
                    result_len: len,
                }
            }
            None => leaseq_dependency_result {
                id,
                has_result: false,
                result: std::ptr::null(),
                result_len: 0,
            },
        };
        results.push(entry);
    }
    let c = leaseq_dependency_results {
        results: list_ptr(&results),
        results_len: results.len(),
    };
    let boxed = Box::new(OwnedResults {
        c,
        _strings: strings,
        _data: data,
        _results: results,
    });
    Box::into_raw(boxed).cast::<leaseq_dependency_results>()
}

/// Frees what `leaseq_queue_dependency_results` (or `leaseq_partitioned_dependency_results`)
/// gave. NULL is accepted and ignored.
///
/// # Safety
/// `results` is NULL or from `leaseq_queue_dependency_results` or
/// `leaseq_partitioned_dependency_results`, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_dependency_results_free(results: *mut leaseq_dependency_results) {
    call_quiet((), || {
        if !results.is_null() {
            // SAFETY: made by Box::into_raw of an OwnedResults (whose first field it points
            // to) in this crate, and freed once, by contract.
            drop(unsafe { Box::from_raw(results.cast::<OwnedResults>()) });
        }
    })
}
