//! Parsing of script replies, once: every shape the scripts return is read here.

use redis::Value;

use crate::error::{Cause, Error, Result};

/// An error for a reply of a shape the protocol does not allow.
pub(crate) fn unexpected(op: &str, value: &Value) -> Error {
    Error::Redis(Cause::redis(redis::RedisError::from((
        redis::ErrorKind::UnexpectedReturnType,
        "unexpected reply",
        format!("{op} script returned {value:?}"),
    ))))
}

/// The elements of an array reply.
pub(crate) fn array(op: &str, value: Value) -> Result<Vec<Value>> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(unexpected(op, &other)),
    }
}

/// An integer (also accepted as a decimal bulk string).
pub(crate) fn int(op: &str, value: &Value) -> Result<i64> {
    match value {
        Value::Int(n) => Ok(*n),
        Value::BulkString(b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| unexpected(op, value)),
        other => Err(unexpected(op, other)),
    }
}

/// Bytes; nil is `None`.
pub(crate) fn bytes(op: &str, value: Value) -> Result<Option<Vec<u8>>> {
    match value {
        Value::Nil => Ok(None),
        Value::BulkString(b) => Ok(Some(b)),
        Value::SimpleString(s) => Ok(Some(s.into_bytes())),
        Value::Boolean(false) => Ok(None),
        other => Err(unexpected(op, &other)),
    }
}

/// Text (lossy for bytes that are not UTF-8); nil is `None`.
pub(crate) fn text(op: &str, value: Value) -> Result<Option<String>> {
    Ok(bytes(op, value)?.map(|b| String::from_utf8_lossy(&b).into_owned()))
}

/// A timestamp or count that may be absent: negative or nil is `None`.
pub(crate) fn opt_u64(text: Option<&str>) -> Option<u64> {
    text.and_then(|t| t.parse::<f64>().ok())
        .filter(|n| *n >= 0.0)
        .map(|n| n as u64)
}
