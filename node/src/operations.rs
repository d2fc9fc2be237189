//! The core's table of operations (`leaseq::operations`), its table of a partitioned queue's
//! operations, and the runner's events, as plain JavaScript objects: node/test/parity.test.js
//! checks `Queue`, `PartitionedQueue`, `Worker` and index.d.ts against them. Names come from the core (`Operation::node_name`, `Arg::node_name`); the one name made
//! here is an event's camelCase, which the core does not spell for Node.

use leaseq::operations::{Arg, Operation, PartitionedOperation, EVENTS, OPERATIONS, PARTITIONED};
use napi_derive::napi;

/// One argument of an operation.
#[napi(object, object_from_js = false)]
pub struct ArgInfo {
    /// Its name in snake_case (Python's parameter).
    pub name: String,
    /// Its Node name: the positional parameter, or the key of the options object.
    pub node_name: String,
    /// What it is (`Item`, `Lease`, `Duration`, ...: the core's `Kind`).
    pub kind: String,
    /// Whether the caller must give it.
    pub required: bool,
    /// What applies when an optional argument is left out (empty for a required one).
    pub default: String,
    /// The one language that has it (`python`), or null: every language.
    pub only: Option<String>,
    /// Whether Node has it (`only` is null or `node`).
    pub in_node: bool,
}

impl From<&Arg> for ArgInfo {
    fn from(a: &Arg) -> ArgInfo {
        ArgInfo {
            name: a.name.to_owned(),
            node_name: a.node_name(),
            kind: format!("{:?}", a.kind),
            required: a.required,
            default: a.default.to_owned(),
            only: a.only.map(str::to_owned),
            in_node: a.in_language("node"),
        }
    }
}

/// One operation of a queue.
#[napi(object, object_from_js = false)]
pub struct OperationInfo {
    /// Its name in snake_case (Python's method).
    pub name: String,
    /// The `Queue` method: the name in camelCase.
    pub node_name: String,
    /// Its arguments, in order: the required ones are positional, the optional ones keys of an
    /// options object.
    pub args: Vec<ArgInfo>,
    /// What it returns, in words.
    pub reply: String,
    /// Round trips to Redis: 1, or 0 for one that sends nothing.
    pub round_trips: u32,
    /// What it does, in one line.
    pub summary: String,
}

impl From<&Operation> for OperationInfo {
    fn from(o: &Operation) -> OperationInfo {
        OperationInfo {
            name: o.name.to_owned(),
            node_name: o.node_name(),
            args: o.args.iter().map(ArgInfo::from).collect(),
            reply: o.reply.to_owned(),
            round_trips: o.round_trips.into(),
            summary: o.summary.to_owned(),
        }
    }
}

/// One operation of a partitioned queue.
#[napi(object, object_from_js = false)]
pub struct PartitionedOperationInfo {
    /// Its name in snake_case (Python's method).
    pub name: String,
    /// The `PartitionedQueue` method: the name in camelCase.
    pub node_name: String,
    /// Where it goes, in one line.
    pub route: String,
    /// The Rust methods of `Partitioned` that implement it.
    pub rust: Vec<String>,
    /// Whether a queue operation of the same name exists, whose arguments it takes.
    pub queue: bool,
}

impl From<&'static PartitionedOperation> for PartitionedOperationInfo {
    fn from(o: &'static PartitionedOperation) -> PartitionedOperationInfo {
        PartitionedOperationInfo {
            name: o.name.to_owned(),
            node_name: o.node_name(),
            route: o.route.to_owned(),
            rust: o.rust_names().iter().map(|&n| n.to_owned()).collect(),
            queue: o.queue_operation().is_some(),
        }
    }
}

/// One event of a runner.
#[napi(object, object_from_js = false)]
pub struct EventInfo {
    /// Its name, the same in every language (`lease_lost`).
    pub name: String,
    /// Its Node name: the name in camelCase (`leaseLost`).
    pub node_name: String,
}

/// Every operation of a queue (`leaseq::operations::OPERATIONS`), in the documentation's order.
#[napi]
pub fn operations() -> Vec<OperationInfo> {
    OPERATIONS.iter().map(OperationInfo::from).collect()
}

/// Every operation of a partitioned queue (`leaseq::operations::PARTITIONED`), in the
/// documentation's order.
#[napi]
pub fn partitioned_operations() -> Vec<PartitionedOperationInfo> {
    PARTITIONED
        .iter()
        .map(PartitionedOperationInfo::from)
        .collect()
}

/// Every event of a runner (`leaseq::operations::EVENTS`), in the order of the core's enum.
#[napi]
pub fn events() -> Vec<EventInfo> {
    EVENTS
        .iter()
        .map(|name| EventInfo {
            name: (*name).to_owned(),
            node_name: event_node_name(name),
        })
        .collect()
}

/// An event's Node name: its name (`Event::name`) in camelCase, spelled by the core.
pub(crate) fn event_node_name(name: &str) -> String {
    leaseq::operations::camel(name)
}
