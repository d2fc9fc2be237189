//! The one error type of leaseq, and its stable codes (spec/errors.md).

use std::fmt;

/// A result whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in leaseq. Match on [`Error::code`] for a stable answer: the
/// variants may grow.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Redis could not be reached, or the connection broke during the call.
    #[error("connection error: {0}")]
    Connection(#[source] Cause),
    /// Redis answered with an error that leaseq has no better name for.
    #[error("redis error: {0}")]
    Redis(#[source] Cause),
    /// An argument was refused, and nothing was written to Redis: before anything was sent,
    /// or, for a `prefix` that is a partitioned queue's base (spec/PROTOCOL.md 5.25), by the
    /// script that found its layout.
    #[error("invalid argument `{argument}`: {reason}")]
    InvalidArgument {
        /// The name of the argument, as the API documents it.
        argument: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// A key of the queue holds a value of another type than the protocol expects.
    #[error("wrong key type under queue prefix `{prefix}`: {source}")]
    WrongType {
        /// The queue prefix whose keys were touched.
        prefix: String,
        /// The error Redis returned.
        source: Cause,
    },
    /// Redis did not answer in time.
    #[error("timed out: {0}")]
    Timeout(#[source] Cause),
    /// The client was closed; pending and later calls fail with this.
    #[error("the client is closed")]
    Closed,
    /// Item data could not be encoded or decoded as JSON.
    #[error("json error: {0}")]
    Json(#[source] JsonCause),
    /// The server is temporarily unable to serve (loading its dataset, busy with another
    /// client's script, failing over, or a replica): the call did not run. Retry after a pause.
    #[error("redis is temporarily unavailable, retry after a pause: {0}")]
    Unavailable(#[source] Cause),
    /// Redis refused a call that would add memory: it is over `maxmemory` with `noeviction`.
    /// Nothing was written. Drain or clean the queue, or raise `maxmemory`.
    #[error(
        "redis is out of memory (over maxmemory); nothing was written: drain or clean the \
         queue, or raise maxmemory: {0}"
    )]
    OutOfMemory(#[source] Cause),
    /// The queue is bounded (`QueueConfig::capacity`) and the items did not fit: nothing was
    /// added. Wait for room with `Queue::add_wait` (or `add_batch_wait`), or add later.
    #[error("the queue is full; nothing was added: {0}")]
    Full(#[source] Cause),
    /// The item a wait for its result ([`crate::Queue::wait_result`]) waited for is dead (a
    /// dead letter): no result will come unless it is requeued.
    #[error("item `{id}` is dead, so no result will come (requeue it to run it again): {reason}")]
    Dead {
        /// The item's id (shown lossily when it is not UTF-8).
        id: String,
        /// Why it died, and its last error when it failed with one.
        reason: String,
    },
}

/// What Redis, or the connection to it, reported. The Redis library's own error type stays
/// inside: its major versions are not leaseq's.
#[derive(Debug)]
pub struct Cause(Box<redis::RedisError>, Option<Box<str>>);

/// Why JSON could not be encoded or decoded: shown by its `Display`, reachable as a
/// `std::error::Error` source, and not a serde_json type, so that serde_json is no part of
/// leaseq's public API.
#[derive(Debug)]
pub struct JsonCause(Box<serde_json::Error>);

impl std::fmt::Display for JsonCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for JsonCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

impl Error {
    /// A serde_json error as [`Error::Json`]: crate-private, so that no `From` impl makes
    /// serde_json part of the public API.
    pub(crate) fn json(err: serde_json::Error) -> Error {
        Error::Json(JsonCause(Box::new(err)))
    }
}

impl Cause {
    /// A redis-rs error, boxed: the conversion stays inside the crate, so that redis-rs is no
    /// part of leaseq's public API.
    pub(crate) fn redis(err: redis::RedisError) -> Cause {
        let shown = from_a_function(&err);
        Cause(Box::new(err), shown)
    }

    /// An I/O failure leaseq notices itself (no answer in time, a reply that is not RESP),
    /// described by `what` and, when given, `detail`.
    /// Shown as `what` (`: detail`), without the redis-rs error's kind (" - Io").
    pub(crate) fn io(what: &'static str, detail: Option<String>) -> Cause {
        let shown = match &detail {
            Some(detail) => format!("{what}: {detail}"),
            None => what.to_owned(),
        };
        let err = match detail {
            Some(detail) => redis::RedisError::from((redis::ErrorKind::Io, what, detail)),
            None => redis::RedisError::from((redis::ErrorKind::Io, what)),
        };
        Cause(Box::new(err), Some(shown.into()))
    }

    /// The code of a Redis error reply (its first word, e.g. `OOM`, `NOPERM`, `WRONGTYPE`), when
    /// the cause is one.
    pub fn code(&self) -> Option<&str> {
        self.0.code()
    }
}

/// An error reply raised inside one of leaseq's functions, with the note Redis adds of where
/// it was raised (`script: leaseq_<hash>_<name>, on @user_function:<line>.`, the last such
/// note) reworded and without redis-rs's quotes around the code: `WRONGTYPE Operation against
/// a key holding the wrong kind of value (in leaseq's function `stats`, line 3448 of its
/// library)`. `None` for any other error, and for another library's function.
///
/// An error reply a leaseq function returns (`leaseq: ...`, with no note of a place) is shown
/// without redis-rs's quotes too, and a `FULL` one as its text alone, since
/// [`Error::Full`] says what it is: `the queue {p} holds 2 of its capacity 2; 1 more do not fit`.
fn from_a_function(err: &redis::RedisError) -> Option<Box<str>> {
    let code = err.code()?;
    let detail = err.detail()?;
    let Some((message, place)) = detail.rsplit_once(" script: ") else {
        let text = detail.strip_prefix("leaseq: ")?;
        return Some(match code {
            "FULL" => text.into(),
            _ => format!("{code} {text}").into(),
        });
    };
    let (function, line) = place.split_once(", on @user_function:")?;
    let (_version, name) = function.trim().strip_prefix("leaseq_")?.split_once('_')?;
    let line = line.trim().trim_end_matches('.');
    let message = message.trim_end().trim_end_matches('.');
    Some(
        format!("{code} {message} (in leaseq's function `{name}`, line {line} of its library)")
            .into(),
    )
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.1 {
            Some(shown) => f.write_str(shown),
            None => fmt::Display::fmt(&self.0, f),
        }
    }
}

impl std::error::Error for Cause {}

/// The stable identity of an [`Error`], shared by every binding (spec/errors.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// See [`Error::Connection`].
    Connection,
    /// See [`Error::Redis`].
    Redis,
    /// See [`Error::InvalidArgument`].
    InvalidArgument,
    /// See [`Error::WrongType`].
    WrongType,
    /// See [`Error::Timeout`].
    Timeout,
    /// See [`Error::Closed`].
    Closed,
    /// See [`Error::Json`].
    Json,
    /// See [`Error::Unavailable`].
    Unavailable,
    /// See [`Error::OutOfMemory`].
    OutOfMemory,
    /// See [`Error::Full`].
    Full,
    /// See [`Error::Dead`].
    Dead,
}

impl ErrorCode {
    /// Every code, in registry order.
    pub const ALL: [ErrorCode; 11] = [
        ErrorCode::Connection,
        ErrorCode::Redis,
        ErrorCode::InvalidArgument,
        ErrorCode::WrongType,
        ErrorCode::Timeout,
        ErrorCode::Closed,
        ErrorCode::Json,
        ErrorCode::Unavailable,
        ErrorCode::OutOfMemory,
        ErrorCode::Full,
        ErrorCode::Dead,
    ];

    /// The registry name, e.g. `"INVALID_ARGUMENT"` (Node's `err.code`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Connection => "CONNECTION",
            ErrorCode::Redis => "REDIS",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::WrongType => "WRONG_TYPE",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Closed => "CLOSED",
            ErrorCode::Json => "JSON",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::OutOfMemory => "OUT_OF_MEMORY",
            ErrorCode::Full => "FULL",
            ErrorCode::Dead => "DEAD",
        }
    }

    /// The registry number (the C `leaseq_status` value); 0 is success and never an error.
    pub fn number(self) -> i32 {
        match self {
            ErrorCode::Connection => 1,
            ErrorCode::Redis => 2,
            ErrorCode::InvalidArgument => 3,
            ErrorCode::WrongType => 4,
            ErrorCode::Timeout => 5,
            ErrorCode::Closed => 6,
            ErrorCode::Json => 7,
            ErrorCode::Unavailable => 8,
            ErrorCode::OutOfMemory => 9,
            ErrorCode::Full => 10,
            ErrorCode::Dead => 11,
        }
    }

    /// Whether the same call may succeed when tried again unchanged.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::Connection | ErrorCode::Timeout | ErrorCode::Unavailable
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Error {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Connection(_) => ErrorCode::Connection,
            Error::Redis(_) => ErrorCode::Redis,
            Error::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            Error::WrongType { .. } => ErrorCode::WrongType,
            Error::Timeout(_) => ErrorCode::Timeout,
            Error::Closed => ErrorCode::Closed,
            Error::Json(_) => ErrorCode::Json,
            Error::Unavailable(_) => ErrorCode::Unavailable,
            Error::OutOfMemory(_) => ErrorCode::OutOfMemory,
            Error::Full(_) => ErrorCode::Full,
            Error::Dead { .. } => ErrorCode::Dead,
        }
    }

    /// Whether the same call may succeed when tried again unchanged.
    pub fn is_retryable(&self) -> bool {
        self.code().retryable()
    }

    pub(crate) fn invalid(argument: &'static str, reason: impl Into<String>) -> Error {
        Error::InvalidArgument {
            argument,
            reason: reason.into(),
        }
    }

    /// The refusal of a call at `prefix`, a partitioned queue's base (spec/PROTOCOL.md 5.25).
    pub(crate) fn partitioned_base(prefix: &str) -> Error {
        Error::invalid(
            "prefix",
            format!(
                "`{prefix}` is the base of a partitioned queue ({prefix}:partitions holds its \
                 layout), not a queue: open it as a partitioned queue, or one of its \
                 partitions; nothing was written"
            ),
        )
    }

    /// Classifies a redis-rs error of a client of a Redis Cluster (`cluster`) or of one server,
    /// as [`Error::from_redis`] does, but for a cluster redirect (`MOVED`, `ASK`) that a client
    /// of one server got: no retry will follow it, since that client never goes to another
    /// node, so it is final ([`Error::Redis`]), and says how to connect instead.
    pub(crate) fn from_redis_on(err: redis::RedisError, prefix: &str, cluster: bool) -> Error {
        if !cluster && matches!(err.code(), Some("MOVED" | "ASK")) {
            let detail = format!(
                "{err}; this server is a Redis Cluster node and another node serves the queue's \
                 slot: connect as a Cluster client ({})",
                crate::client::HOW_TO_CONNECT
            );
            return Error::Redis(Cause::redis(redis::RedisError::from((
                redis::ErrorKind::Client,
                "a cluster redirect to a client of one server",
                detail,
            ))));
        }
        Error::from_redis(err, prefix)
    }

    /// Classifies a redis-rs error; `prefix` names the queue for a WRONGTYPE answer.
    pub(crate) fn from_redis(err: redis::RedisError, prefix: &str) -> Error {
        if err.is_timeout() {
            Error::Timeout(Cause::redis(err))
        } else if err.is_io_error()
            || err.is_connection_dropped()
            || err.is_connection_refusal()
            || err.kind() == redis::ErrorKind::ClusterConnectionNotFound
        {
            Error::Connection(Cause::redis(err))
        } else if err.code() == Some("WRONGTYPE")
            // Redis 6.2 wraps errors raised inside scripts in ERR; 7.x keeps the code.
            || (err.code() == Some("ERR") && err.detail().is_some_and(|d| d.contains("WRONGTYPE")))
        {
            Error::WrongType {
                prefix: prefix.to_owned(),
                source: Cause::redis(err),
            }
        } else if err.code().is_some_and(|c| UNAVAILABLE_CODES.contains(&c)) {
            Error::Unavailable(Cause::redis(err))
        } else if err.code() == Some("OOM") {
            Error::OutOfMemory(Cause::redis(err))
        } else if err.code() == Some("FULL") {
            Error::Full(Cause::redis(err))
        } else if err.code() == Some("PARTITIONED") {
            Error::partitioned_base(prefix)
        } else {
            Error::Redis(Cause::redis(err))
        }
    }
}

/// The first words of Redis error replies that mean "not now": the call was refused before it
/// ran, and the server may serve it after a pause (spec/PROTOCOL.md, 11).
const UNAVAILABLE_CODES: [&str; 8] = [
    "LOADING",
    "BUSY",
    "TRYAGAIN",
    "CLUSTERDOWN",
    "MASTERDOWN",
    "READONLY",
    // Cluster redirects: the node does not serve the slot (now); the command did not run.
    "MOVED",
    "ASK",
];
