//! `leaseq_item`: an id and data, ready to add.

use std::ffi::{c_char, CString};

use leaseq::Item;

use crate::guard::{arg, bytes, call, call_quiet, text, Out};
use crate::status::leaseq_status;

/// A piece of work to add: an id and arbitrary bytes (opaque).
///
/// Thread safety: immutable once made; may be read (added, queried) from several threads at
/// once. Made by `leaseq_item_new` or `leaseq_item_with_id`, released by `leaseq_item_free`.
#[allow(non_camel_case_types)]
pub struct leaseq_item {
    pub(crate) inner: Item,
    id: CString,
}

impl leaseq_item {
    fn new(inner: Item) -> *mut leaseq_item {
        let id = crate::guard::c_string(inner.id());
        Box::into_raw(Box::new(leaseq_item { inner, id }))
    }
}

/// Makes an item with a random id (a UUID v4) holding a copy of the `data_len` bytes at `data`
/// (any bytes, NUL included; `data` may be NULL when `data_len` is 0). Redis holds at most 512
/// MiB in a string: a larger item is refused when it is added (LEASEQ_INVALID_ARGUMENT naming
/// `data`, nothing written).
///
/// On success `*out_item` is a new item owned by the caller: free it with `leaseq_item_free`
/// (adding it does not take it). On failure it is set to NULL.
///
/// # Safety
/// `data` is NULL or points to `data_len` readable bytes; `out_item` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_item_new(
    data: *const u8,
    data_len: usize,
    out_item: *mut *mut leaseq_item,
) -> leaseq_status {
    call("leaseq_item_new", || {
        let out_item = unsafe { Out::new(out_item, "out_item", std::ptr::null_mut()) };
        let data = unsafe { bytes(data, data_len, "data") }?;
        out_item.required()?;
        out_item.set(leaseq_item::new(Item::new(data)));
        Ok(())
    })
}

/// Makes an item with the id `id` (UTF-8, NUL-terminated, 1 to 512 bytes, no control
/// characters) holding a copy of the `data_len` bytes at `data` (any bytes, at most 512 MiB as
/// for `leaseq_item_new`; `data` may be NULL when `data_len` is 0).
///
/// On success `*out_item` is a new item owned by the caller: free it with `leaseq_item_free`.
/// On failure it is set to NULL; an invalid id gives `LEASEQ_INVALID_ARGUMENT`.
///
/// # Safety
/// `id` is NULL or a NUL-terminated string; `data` is NULL or points to `data_len` readable
/// bytes; `out_item` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_item_with_id(
    id: *const c_char,
    data: *const u8,
    data_len: usize,
    out_item: *mut *mut leaseq_item,
) -> leaseq_status {
    call("leaseq_item_with_id", || {
        let out_item = unsafe { Out::new(out_item, "out_item", std::ptr::null_mut()) };
        let id = unsafe { text(id, "id") }?;
        let data = unsafe { bytes(data, data_len, "data") }?;
        out_item.required()?;
        out_item.set(leaseq_item::new(Item::with_id(id, data)?));
        Ok(())
    })
}

/// Sets `*out_id` to the item's id (NUL-terminated UTF-8).
///
/// The string belongs to the item: valid until `leaseq_item_free`; do not free it.
///
/// # Safety
/// `item` is NULL or a live item; `out_id` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn leaseq_item_id(
    item: *const leaseq_item,
    out_id: *mut *const c_char,
) -> leaseq_status {
    call("leaseq_item_id", || {
        let out_id = unsafe { Out::new(out_id, "out_id", std::ptr::null()) };
        let item = unsafe { arg(item, "item") }?;
        out_id.required()?;
        out_id.set(item.id.as_ptr());
        Ok(())
    })
}

/// Frees an item. NULL is accepted and ignored. Strings obtained from the item become invalid.
///
/// # Safety
/// `item` is NULL or a live item that no other call is using, freed only once.
#[no_mangle]
pub unsafe extern "C" fn leaseq_item_free(item: *mut leaseq_item) {
    call_quiet((), || {
        if !item.is_null() {
            // SAFETY: made by Box::into_raw in this crate and freed once, by contract.
            drop(unsafe { Box::from_raw(item) });
        }
    })
}
