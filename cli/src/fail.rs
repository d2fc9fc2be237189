//! What the command ends with: an exit code and a message that says what to do.

use std::fmt;

/// Why a command failed, with the exit code documented in `leaseq --help`.
#[derive(Debug)]
pub enum Fail {
    /// 1: the thing asked for is not there, or `check` found problems (already printed).
    NotFound(String),
    /// 2: bad usage or an argument refused; nothing was written.
    Usage(String),
    /// 3: Redis unreachable or too slow.
    Unreachable(String),
    /// 4: Redis refused the command.
    Refused(String),
    /// 5: the queue is bounded and full (`FULL`); nothing was added.
    Full(String),
    /// 6: no queue of that name: none of its keys exists (a mistyped `--queue`, or a queue never
    /// used), told apart from an empty queue.
    NoQueue(String),
}

/// A command's result.
pub type Outcome<T = ()> = Result<T, Fail>;

/// What a refused argument's message ends with: the core refuses before it writes anything.
const NOTHING_WRITTEN: &str = "; nothing was written";

impl Fail {
    /// This failure as a command that only reads says it: without [`NOTHING_WRITTEN`], which
    /// tells a writing command's user that nothing changed, and only puzzles a reader.
    pub fn of_a_read(self) -> Fail {
        match self {
            Fail::Usage(m) => match m.strip_suffix(NOTHING_WRITTEN) {
                Some(m) => Fail::Usage(m.to_owned()),
                None => Fail::Usage(m),
            },
            other => other,
        }
    }

    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            Fail::NotFound(_) => 1,
            Fail::Usage(_) => 2,
            Fail::Unreachable(_) => 3,
            Fail::Refused(_) => 4,
            Fail::Full(_) => 5,
            Fail::NoQueue(_) => 6,
        }
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::NotFound(m)
            | Fail::Usage(m)
            | Fail::Unreachable(m)
            | Fail::Refused(m)
            | Fail::Full(m)
            | Fail::NoQueue(m) => f.write_str(m),
        }
    }
}

/// Fails with [`Fail::NoQueue`] when queue `name` has none of its keys (spec/PROTOCOL.md, 5.12):
/// asked only where an answer came back empty, to tell a mistyped name from an empty queue.
pub async fn queue_must_exist(queue: &leaseq::Queue, name: &str) -> Outcome {
    if queue.exists().await? {
        return Ok(());
    }
    Err(Fail::NoQueue(format!(
        "no queue `{name}` on this server: none of its keys exists (a typo? `leaseq queues` lists \
         the queues found; a queue drained over an hour ago leaves none either)"
    )))
}

impl From<leaseq::Error> for Fail {
    fn from(err: leaseq::Error) -> Fail {
        use leaseq::ErrorCode as C;
        match err.code() {
            // Some of the core's messages say so already (a batch refused whole).
            C::InvalidArgument | C::Json if err.to_string().contains("nothing was written") => {
                Fail::Usage(err.to_string())
            }
            C::InvalidArgument | C::Json => Fail::Usage(format!("{err}{NOTHING_WRITTEN}")),
            C::Connection | C::Timeout => Fail::Unreachable(format!(
                "{err}; check that Redis runs and that --url (or LEASEQ_URL, REDIS_URL) points \
                 at it"
            )),
            C::Unavailable => Fail::Unreachable(format!(
                "{err}; Redis is up but cannot serve now (loading, busy, failing over): try again"
            )),
            C::OutOfMemory => Fail::Refused(format!(
                "{err}; Redis is over maxmemory: drain or clean the queue, or raise maxmemory"
            )),
            C::Full => Fail::Full(format!(
                "{err}; the queue holds as many items (waiting and delayed) as its capacity: add \
                 later, wait for room (`leaseq add --wait-for-room 30s`), or raise it (`leaseq \
                 config set --capacity N`)"
            )),
            C::WrongType => Fail::Refused(format!(
                "{err}; another program uses keys under this prefix: choose another --queue"
            )),
            _ => {
                let text = err.to_string();
                let hint = if text.contains("NOPERM") {
                    "; the Redis user lacks a right: run `leaseq check` to see which"
                } else {
                    ""
                };
                Fail::Refused(format!("{text}{hint}"))
            }
        }
    }
}
