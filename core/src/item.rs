//! Items: an id and arbitrary bytes.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{de::DeserializeOwned, Serialize};

use crate::error::{Error, Result};
use crate::policy::{self, Backoff};

/// The longest id accepted, in bytes.
pub const MAX_ID_LEN: usize = 512;
/// The largest item data accepted, in bytes (Redis' own limit for a string).
pub const MAX_DATA_LEN: usize = 512 * 1024 * 1024;

/// A piece of work: an id, unique while the item exists, its data, and its options.
///
/// Data is arbitrary bytes (NUL and invalid UTF-8 are fine). Ids are UTF-8 text of 1 to
/// [`MAX_ID_LEN`] bytes without control characters; [`Item::new`] picks a random UUID.
///
/// Options left unset take the queue's stored configuration, else the protocol's defaults
/// ([`crate::policy`]). An item with no option set is stored exactly as redis-work-queue stores
/// one, with no other key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    id: String,
    data: Vec<u8>,
    options: ItemOptions,
}

/// The options of one item; see the builder methods of [`Item`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ItemOptions {
    pub delay: Option<Duration>,
    pub run_at: Option<SystemTime>,
    pub priority: Option<i32>,
    pub max_attempts: Option<u32>,
    pub backoff: Option<Backoff>,
    pub expires_after: Option<Duration>,
    pub keep_result_for: Option<Duration>,
    pub group: Option<String>,
    pub name: Option<String>,
    pub depends_on: Vec<String>,
    pub on_dependency_failure: Option<OnDependencyFailure>,
}

/// The most dependencies one item may have (spec/PROTOCOL.md 5.24).
pub const MAX_DEPENDENCIES: usize = 1000;

/// What happens to an item when one of its dependencies dies or is cancelled instead of
/// completing ([`Item::on_dependency_failure`]; spec/PROTOCOL.md 5.24).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum OnDependencyFailure {
    /// The item dies at once (dead, `reason` naming the dependency). The default.
    #[default]
    Fail,
    /// The item runs anyway once every dependency has finished, whichever way.
    Run,
}

impl OnDependencyFailure {
    /// The lower-case name used on the wire and by every binding (`fail`, `run`).
    pub fn as_str(self) -> &'static str {
        match self {
            OnDependencyFailure::Fail => "fail",
            OnDependencyFailure::Run => "run",
        }
    }

    /// The policy named `name` (argument `on_dependency_failure`).
    pub fn parse(name: &str) -> Result<OnDependencyFailure> {
        match name {
            "fail" => Ok(OnDependencyFailure::Fail),
            "run" => Ok(OnDependencyFailure::Run),
            _ => Err(Error::invalid(
                "on_dependency_failure",
                format!("`{name}` is not one of fail, run"),
            )),
        }
    }
}

impl Item {
    /// An item with a random UUID v4 id.
    pub fn new(data: impl Into<Vec<u8>>) -> Item {
        Item {
            id: uuid::Uuid::new_v4().to_string(),
            data: data.into(),
            options: ItemOptions::default(),
        }
    }

    /// An item with an id chosen by the caller; refuses an invalid id (argument `id`).
    pub fn with_id(id: impl Into<String>, data: impl Into<Vec<u8>>) -> Result<Item> {
        let id = id.into();
        validate_id(&id)?;
        Ok(Item {
            id,
            data: data.into(),
            options: ItemOptions::default(),
        })
    }

    /// An item with a random id whose data is `value` serialized as JSON.
    pub fn from_json<T: Serialize + ?Sized>(value: &T) -> Result<Item> {
        Ok(Item::new(serde_json::to_vec(value).map_err(Error::json)?))
    }

    /// The id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The group, when the item has one ([`Item::group`]).
    pub fn group_name(&self) -> Option<&str> {
        self.options.group.as_deref()
    }

    /// Whether `self` and `other` carry the same data and options, whatever their ids (a
    /// schedule's template item, whose id no tick uses).
    pub(crate) fn same_but_id(&self, other: &Item) -> bool {
        self.data == other.data && self.options == other.options
    }

    /// The data.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The data parsed as JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T> {
        serde_json::from_slice(&self.data).map_err(Error::json)
    }

    /// Takes the item apart into `(id, data)`.
    pub fn into_parts(self) -> (String, Vec<u8>) {
        (self.id, self.data)
    }

    /// Runs no earlier than `delay` from when Redis stores it (the server's clock). Until then
    /// the item is delayed: no lease takes it, and redis-work-queue clients do not see it.
    pub fn delay(mut self, delay: Duration) -> Item {
        self.options.delay = Some(delay);
        self
    }

    /// Runs no earlier than `at`, compared with the server's clock.
    pub fn run_at(mut self, at: SystemTime) -> Item {
        self.options.run_at = Some(at);
        self
    }

    /// Higher runs first (-1000 to 1000); FIFO within one priority. 0, the default, is the
    /// plain list that redis-work-queue clients share.
    pub fn priority(mut self, priority: i32) -> Item {
        self.options.priority = Some(priority);
        self
    }

    /// After this many attempts (leases) the item is dead instead of retried; 0: no limit.
    pub fn max_attempts(mut self, attempts: u32) -> Item {
        self.options.max_attempts = Some(attempts);
        self
    }

    /// How long a failed attempt waits before the next.
    pub fn backoff(mut self, backoff: Backoff) -> Item {
        self.options.backoff = Some(backoff);
        self
    }

    /// If no lease has taken the item this long after it was added, it is dead ("expired").
    pub fn expires_after(mut self, after: Duration) -> Item {
        self.options.expires_after = Some(after);
        self
    }

    /// How long a result given to `complete` is kept for this item.
    pub fn keep_result_for(mut self, keep: Duration) -> Item {
        self.options.keep_result_for = Some(keep);
        self
    }

    /// The item's group (a customer or tenant id, say): at most the group's concurrency limit
    /// of its items are leased at once (default 1: strict FIFO per group), and groups take
    /// turns, whatever their sizes (spec/PROTOCOL.md, 5.20). 1 to [`MAX_GROUP_LEN`] bytes, no
    /// control characters.
    pub fn group(mut self, group: impl Into<String>) -> Item {
        self.options.group = Some(group.into());
        self
    }

    /// The item's name: what kind of job it is (`"send_email"`, `"resize"`), so that one queue
    /// carries several kinds and a runner with handlers by name
    /// ([`crate::worker::Handlers`]) runs each with its own (spec/PROTOCOL.md, 3.2 and 13.1).
    /// Shown by `get`, `list`, the CLI and the dashboard, and counted by name while the queue's
    /// counters are on. 1 to [`MAX_NAME_LEN`] bytes, no control characters.
    pub fn name(mut self, name: impl Into<String>) -> Item {
        self.options.name = Some(name.into());
        self
    }

    /// The ids of items of the same queue that must complete before this one is leased (at
    /// most [`MAX_DEPENDENCIES`]; spec/PROTOCOL.md 5.24). Until then the item is
    /// [`State::Blocked`](crate::State::Blocked). An id that no item has when the item is added
    /// counts as complete (it completed already, or never existed); a dead or cancelled one
    /// applies [`Item::on_dependency_failure`] at once. A queue's keys share one Redis Cluster
    /// slot, so dependencies never cross slots.
    pub fn depends_on<I, S>(mut self, ids: I) -> Item
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.options.depends_on = ids.into_iter().map(Into::into).collect();
        self
    }

    /// What happens when a dependency dies or is cancelled: the item dies too (the default),
    /// or it runs anyway once every dependency has finished.
    pub fn on_dependency_failure(mut self, policy: OnDependencyFailure) -> Item {
        self.options.on_dependency_failure = Some(policy);
        self
    }

    /// The ids this item depends on ([`Item::depends_on`]).
    pub fn dependencies(&self) -> &[String] {
        &self.options.depends_on
    }

    /// Whether no option is set, so that its add takes the compact `plain` modes (id and data
    /// only, spec/PROTOCOL.md 5.1).
    pub(crate) fn is_plain(&self) -> bool {
        self.options == ItemOptions::default()
    }

    /// The two values the add script's `plain` modes take for this item: its id and data,
    /// the data validated. Only for an item with no option set ([`Item::is_plain`]).
    pub(crate) fn wire_plain(&self) -> Result<[&[u8]; 2]> {
        validate_data(&self.data)?;
        Ok([self.id.as_bytes(), &self.data])
    }

    /// Whether the item has dependencies, so that its add carries them (the `_deps` modes).
    pub(crate) fn has_dependencies(&self) -> bool {
        !self.options.depends_on.is_empty() || self.options.on_dependency_failure.is_some()
    }

    /// The two values the add script's `_deps` modes take after the eleven (spec/scripts/add.lua):
    /// the dependencies joined by a newline (no valid id holds one), and the policy (`run`, or
    /// `''` for the default). Checks them (argument `depends_on`): valid ids, at most
    /// [`MAX_DEPENDENCIES`], not the item's own; a repeated id counts once.
    pub(crate) fn wire_dependencies(&self) -> Result<[Vec<u8>; 2]> {
        let o = &self.options;
        if o.depends_on.len() > MAX_DEPENDENCIES {
            return Err(Error::invalid(
                "depends_on",
                format!(
                    "has {} ids, at most {MAX_DEPENDENCIES} are allowed",
                    o.depends_on.len()
                ),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        let mut joined = Vec::new();
        for dep in &o.depends_on {
            validate_id(dep).map_err(|e| match e {
                Error::InvalidArgument { reason, .. } => {
                    Error::invalid("depends_on", format!("id `{dep}` {reason}"))
                }
                other => other,
            })?;
            if *dep == self.id {
                return Err(Error::invalid(
                    "depends_on",
                    format!("item `{dep}` cannot depend on itself"),
                ));
            }
            if seen.insert(dep.as_str()) {
                if !joined.is_empty() {
                    joined.push(b'\n');
                }
                joined.extend_from_slice(dep.as_bytes());
            }
        }
        let policy = match o.on_dependency_failure {
            Some(OnDependencyFailure::Run) => b"run".to_vec(),
            _ => Vec::new(),
        };
        Ok([joined, policy])
    }

    /// Whether this item's options are `other`'s, its group aside: then a call's items go with
    /// their options once (add.lua's `shared` modes, spec/PROTOCOL.md 5.1).
    pub(crate) fn shares_options_with(&self, other: &Item) -> bool {
        // Every field named, so that a new option cannot be left out of the comparison.
        let ItemOptions {
            delay,
            run_at,
            priority,
            max_attempts,
            backoff,
            expires_after,
            keep_result_for,
            group: _,
            name,
            depends_on,
            on_dependency_failure,
        } = &self.options;
        let o = &other.options;
        *delay == o.delay
            && *run_at == o.run_at
            && *priority == o.priority
            && *max_attempts == o.max_attempts
            && *backoff == o.backoff
            && *expires_after == o.expires_after
            && *keep_result_for == o.keep_result_for
            && *name == o.name
            && *depends_on == o.depends_on
            && *on_dependency_failure == o.on_dependency_failure
    }

    /// Checks what add.lua's `shared` modes take of this item besides its id: its group and
    /// data (its other options are the call's, checked once with the first item's
    /// [`Item::wire`]). In `wire_times`' order: an item refused for both names the group.
    pub(crate) fn validate_shared(&self) -> Result<()> {
        if let Some(g) = &self.options.group {
            validate_group(g)?;
        }
        validate_data(&self.data)
    }

    /// Checks the item's data and options as `add` will, naming the refused argument
    /// (`delay`, `run_at`, `priority`, `backoff`, `expires_after`, `keep_result_for`, `group`,
    /// `name`, `data`, `depends_on`).
    /// Bindings call it where they build an item, so that a bad option is refused there; `add`
    /// checks again and sends nothing for a refused item.
    pub fn validate(&self) -> Result<()> {
        self.wire_times()?;
        self.wire_dependencies().map(drop)
    }

    /// The validated `delay_ms`, `run_at_ms` and `expires_after_ms` values (`''` when unset),
    /// after checking every option and the data.
    fn wire_times(&self) -> Result<[Vec<u8>; 3]> {
        let o = &self.options;
        let ms = |argument, d: Option<Duration>| -> Result<Vec<u8>> {
            Ok(match d {
                Some(d) => policy::duration_ms(argument, d)?.to_string().into_bytes(),
                None => Vec::new(),
            })
        };
        if o.delay.is_some() && o.run_at.is_some() {
            return Err(Error::invalid(
                "run_at",
                "give either a delay or a run_at time, not both",
            ));
        }
        let delay = ms("delay", o.delay)?;
        let run_at = match o.run_at {
            Some(at) => {
                let since = at
                    .duration_since(UNIX_EPOCH)
                    .map_err(|_| Error::invalid("run_at", "is before 1970"))?;
                policy::millis_up(since).to_string().into_bytes()
            }
            None => Vec::new(),
        };
        if let Some(p) = o.priority {
            policy::validate_priority(p)?;
        }
        if let Some(b) = &o.backoff {
            b.validate()?;
        }
        if o.expires_after.is_some_and(|d| d.is_zero()) {
            // Not started within no time at all: dead at its first lease, whatever it was.
            return Err(Error::invalid("expires_after", "must be greater than zero"));
        }
        let expires = ms("expires_after", o.expires_after)?;
        if o.keep_result_for.is_some_and(|d| d.is_zero()) {
            return Err(Error::invalid(
                "keep_result_for",
                "must be greater than zero",
            ));
        }
        ms("keep_result_for", o.keep_result_for)?;
        if let Some(g) = &o.group {
            validate_group(g)?;
        }
        if let Some(n) = &o.name {
            validate_name(n)?;
        }
        validate_data(&self.data)?;
        Ok([delay, run_at, expires])
    }

    /// The eleven values the add script takes for this item (spec/scripts/add.lua), options
    /// validated; `''` for an option that is not set.
    pub(crate) fn wire(&self) -> Result<[Vec<u8>; 11]> {
        let o = &self.options;
        let [delay, run_at, expires] = self.wire_times()?;
        let opt = |v: Option<String>| v.map(String::into_bytes).unwrap_or_default();
        Ok([
            self.id.clone().into_bytes(),
            self.data.clone(),
            delay,
            run_at,
            opt(o.priority.map(|p| p.to_string())),
            opt(o.max_attempts.map(|m| m.to_string())),
            opt(o.backoff.map(|b| b.to_wire())),
            expires,
            o.keep_result_for
                .map(|d| policy::millis_up(d).to_string().into_bytes())
                .unwrap_or_default(),
            opt(o.group.clone()),
            opt(o.name.clone()),
        ])
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

/// The longest group name accepted, in bytes.
pub const MAX_GROUP_LEN: usize = 256;

/// The longest item name accepted, in bytes.
pub const MAX_NAME_LEN: usize = 256;

/// Checks a group name (argument `group`): 1 to [`MAX_GROUP_LEN`] bytes of UTF-8 without
/// control characters. It becomes part of a key (`P:group:<group>`); any other character is
/// allowed, since the queue's hash tag comes first in every key.
pub fn validate_group(group: &str) -> Result<()> {
    validate_label("group", group, MAX_GROUP_LEN)
}

/// Checks an item's name (argument `name`): 1 to [`MAX_NAME_LEN`] bytes of UTF-8 without
/// control characters.
pub fn validate_name(name: &str) -> Result<()> {
    validate_label("name", name, MAX_NAME_LEN)
}

/// A short label (a group, a name): not empty, at most `max` bytes, no control character.
fn validate_label(argument: &'static str, label: &str, max: usize) -> Result<()> {
    if label.is_empty() {
        return Err(Error::invalid(argument, "must not be empty"));
    }
    if label.len() > max {
        return Err(Error::invalid(
            argument,
            format!("is {} bytes, at most {max} are allowed", label.len()),
        ));
    }
    if label.chars().any(char::is_control) {
        return Err(Error::invalid(
            argument,
            "must not contain control characters",
        ));
    }
    Ok(())
}

/// Checks an id that names an item which may exist (`get`, `result`, `wait_result`, `cancel`,
/// `dead_requeue`; argument `id`): 1 to [`MAX_ID_LEN`] bytes, any bytes, since another kind of
/// client may have added it (spec/PROTOCOL.md, 3.1). Ids that leaseq adds follow
/// [`validate_id`].
pub(crate) fn validate_id_bytes(id: &[u8]) -> Result<()> {
    if id.is_empty() {
        return Err(Error::invalid("id", "must not be empty"));
    }
    if id.len() > MAX_ID_LEN {
        return Err(Error::invalid(
            "id",
            format!("is {} bytes, at most {MAX_ID_LEN} are allowed", id.len()),
        ));
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
    fn options_are_validated_before_sending() {
        let item = Item::new(b"x".to_vec());
        assert!(item.clone().priority(1001).wire().is_err());
        assert!(item
            .clone()
            .delay(Duration::from_secs(1))
            .run_at(SystemTime::now())
            .wire()
            .is_err());
        assert!(item.clone().keep_result_for(Duration::ZERO).wire().is_err());
        let wire = item.clone().priority(-3).max_attempts(2).wire().unwrap();
        assert_eq!(wire[4], b"-3");
        assert_eq!(wire[5], b"2");
        assert!(wire[2].is_empty() && wire[3].is_empty());
        assert_eq!(
            item.delay(Duration::from_micros(1500)).wire().unwrap()[2],
            b"2"
        );
    }

    #[test]
    fn validate_names_the_refused_option() {
        let item = Item::new(b"x".to_vec());
        assert!(item.validate().is_ok());
        let refused = |item: Item| match item.validate() {
            Err(Error::InvalidArgument { argument, .. }) => argument,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert_eq!(refused(item.clone().priority(-1001)), "priority");
        assert_eq!(
            refused(item.clone().delay(policy::MAX_DURATION * 2)),
            "delay"
        );
        assert_eq!(
            refused(item.clone().expires_after(policy::MAX_DURATION * 2)),
            "expires_after"
        );
        assert_eq!(
            refused(item.clone().expires_after(Duration::ZERO)),
            "expires_after"
        );
        assert_eq!(
            refused(item.clone().keep_result_for(Duration::ZERO)),
            "keep_result_for"
        );
        assert_eq!(
            refused(
                item.clone()
                    .backoff(Backoff::exponential(Duration::ZERO, Duration::from_secs(1)))
            ),
            "backoff"
        );
        assert_eq!(
            refused(
                item.clone()
                    .delay(Duration::from_secs(1))
                    .run_at(SystemTime::now())
            ),
            "run_at"
        );
        assert_eq!(
            refused(item.run_at(UNIX_EPOCH - Duration::from_secs(1))),
            "run_at"
        );
    }

    #[test]
    fn ids_naming_items_may_be_any_bytes() {
        assert!(validate_id_bytes(b"\xff\x00id").is_ok());
        assert!(validate_id_bytes(b"").is_err());
        assert!(validate_id_bytes(&[b'x'; MAX_ID_LEN + 1]).is_err());
    }

    #[test]
    fn json_round_trips() {
        let item = Item::from_json(&serde_json::json!({"n": 1})).unwrap();
        let back: serde_json::Value = item.json().unwrap();
        assert_eq!(back["n"], 1);
    }
}
