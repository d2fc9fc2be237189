//! Items: an id and arbitrary bytes.

use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, Result};

/// The longest id accepted, in bytes.
pub const MAX_ID_LEN: usize = 512;
/// The largest item data accepted, in bytes (Redis' own limit for a string).
pub const MAX_DATA_LEN: usize = 512 * 1024 * 1024;

/// A piece of work: an id, unique while the item exists, and its data.
///
/// Data is arbitrary bytes (NUL and invalid UTF-8 are fine). Ids are UTF-8 text of 1 to
/// [`MAX_ID_LEN`] bytes without control characters; [`Item::new`] picks a random UUID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    id: String,
    data: Vec<u8>,
}

impl Item {
    /// An item with a random UUID v4 id.
    pub fn new(data: impl Into<Vec<u8>>) -> Item {
        Item {
            id: uuid::Uuid::new_v4().to_string(),
            data: data.into(),
        }
    }

    /// An item with an id chosen by the caller; refuses an invalid id (argument `id`).
    pub fn with_id(id: impl Into<String>, data: impl Into<Vec<u8>>) -> Result<Item> {
        let id = id.into();
        validate_id(&id)?;
        Ok(Item {
            id,
            data: data.into(),
        })
    }

    /// An item with a random id whose data is `value` serialized as JSON.
    pub fn from_json<T: Serialize + ?Sized>(value: &T) -> Result<Item> {
        Ok(Item::new(serde_json::to_vec(value)?))
    }

    /// The id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The data.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The data parsed as JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T> {
        Ok(serde_json::from_slice(&self.data)?)
    }

    /// Takes the item apart into `(id, data)`.
    pub fn into_parts(self) -> (String, Vec<u8>) {
        (self.id, self.data)
    }
}

/// Checks an id against the protocol's rules (argument name `id`).
pub fn validate_id(id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::invalid("id", "must not be empty"));
    }
    if id.len() > MAX_ID_LEN {
        return Err(Error::invalid(
            "id",
            format!("is {} bytes, at most {MAX_ID_LEN} are allowed", id.len()),
        ));
    }
    if id.chars().any(char::is_control) {
        return Err(Error::invalid("id", "must not contain control characters"));
    }
    Ok(())
}

pub(crate) fn validate_data(data: &[u8]) -> Result<()> {
    if data.len() > MAX_DATA_LEN {
        return Err(Error::invalid(
            "data",
            format!(
                "is {} bytes, at most {MAX_DATA_LEN} are allowed",
                data.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_ids_are_uuids_and_distinct() {
        let a = Item::new(b"x".to_vec());
        let b = Item::new(b"x".to_vec());
        assert_eq!(a.id().len(), 36);
        assert_ne!(a.id(), b.id());
    }

    #[test]
    fn ids_are_validated() {
        assert!(Item::with_id("", b"x".to_vec()).is_err());
        assert!(Item::with_id("a\0b", b"x".to_vec()).is_err());
        assert!(Item::with_id("x".repeat(MAX_ID_LEN + 1), b"x".to_vec()).is_err());
        assert!(Item::with_id("x".repeat(MAX_ID_LEN), b"x".to_vec()).is_ok());
        assert!(Item::with_id("ünïcode-id", b"x".to_vec()).is_ok());
    }

    #[test]
    fn json_round_trips() {
        let item = Item::from_json(&serde_json::json!({"n": 1})).unwrap();
        let back: serde_json::Value = item.json().unwrap();
        assert_eq!(back["n"], 1);
    }
}
