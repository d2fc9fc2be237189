//! The C interface against the core's table of operations (`leaseq::operations`), read from the
//! committed include/leaseq.h (which a unit test keeps equal to what cbindgen generates): a
//! missing, extra or misnamed function or argument fails here, as a missing error does against
//! spec/errors.md.
//!
//! The C rules (the table's module doc):
//! - An operation is the function `Operation::c_name()`: `leaseq_queue_<name>`, or the name the
//!   table gives.
//! - An argument is a parameter named `Arg::c_name()`, its kind deciding the rest:
//!   - a duration is `<name>_ms` (`int64_t`, milliseconds);
//!   - bytes are `<name>` (`const uint8_t *`) and `<name>_len` (`size_t`);
//!   - a schedule is `<name>`, a `const leaseq_schedule *`;
//!   - a list (items, leases, completions, failures, ids, flows) is `<name>`, a pointer to its first
//!     element, and `<name>_len` (`size_t`), the count;
//!   - every other kind is one parameter, `<name>`, of the type below.
//! - A required argument is a parameter of the function itself (and, by name, of each variant).
//! - An optional argument is a parameter of the function, a parameter of one of its variants
//!   (`_with_options`, `_with_result`...), or a field of an options struct (`leaseq_*_options`)
//!   that one of them takes; it is "not given" through a sentinel or the struct's `set` bits.
//! - Every `leaseq_queue_*` function is an operation, one of its declared VARIANTS, or one of
//!   the few functions that are no operation (NOT_OPERATIONS).
//! - The runner's events, as `leaseq_worker_event.name` documents them, are the table's
//!   `EVENTS`, and ffi-c/src/worker.rs takes every event's parts from the core.

use std::collections::BTreeMap;
use std::path::Path;

use leaseq::operations::{
    Arg, Kind, Operation, PartitionedOperation, EVENTS, OPERATIONS, PARTITIONED,
};

/// Functions that offer an operation another way: `(function, operation)`. Each is named
/// `<the operation's function>_with_<what it adds>` or `<...>_bytes` (ids as bytes).
const VARIANTS: &[(&str, &str)] = &[
    ("leaseq_queue_add_with_options", "add"),
    ("leaseq_queue_add_unique_with_options", "add_unique"),
    ("leaseq_queue_add_batch_with_options", "add_batch"),
    ("leaseq_queue_add_with_timeout", "add"),
    ("leaseq_queue_add_batch_with_timeout", "add_batch"),
    ("leaseq_queue_lease_with_options", "lease"),
    ("leaseq_queue_complete_with_result", "complete"),
    ("leaseq_queue_fail_with_trace", "fail"),
    (
        "leaseq_queue_complete_and_lease_with_result",
        "complete_and_lease",
    ),
    ("leaseq_queue_cancel_bytes", "cancel"),
    ("leaseq_queue_dead_requeue_bytes", "dead_requeue"),
    ("leaseq_queue_result_bytes", "result"),
    ("leaseq_queue_wait_result_bytes", "wait_result"),
    ("leaseq_queue_get_bytes", "get"),
];

/// `leaseq_queue_*` functions that are no operation of a queue: the handle's own.
const NOT_OPERATIONS: &[&str] = &["leaseq_queue_prefix", "leaseq_queue_free"];

/// One parameter or struct field: its C type (spaces normalised) and name.
#[derive(Debug, Clone)]
struct Param {
    ty: String,
    name: String,
}

/// What the header declares.
struct Header {
    functions: BTreeMap<String, Vec<Param>>,
    structs: BTreeMap<String, Vec<Param>>,
    /// The raw text, comments included.
    text: String,
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The header without comments, preprocessor lines and the C++ `extern "C"` wrapper.
fn declarations(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("a closed comment") + start + 2;
        rest = &rest[end..];
    }
    out.push_str(rest);
    let mut kept = String::new();
    let mut continued = false;
    for line in out.lines() {
        let line = line.split("//").next().unwrap_or("");
        let trimmed = line.trim();
        let directive = continued || trimmed.starts_with('#');
        continued = directive && trimmed.ends_with('\\');
        if directive || trimmed.starts_with("extern \"C\"") {
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    // cpp_compat's closing brace of `extern "C" {`, left alone on its line.
    kept.lines()
        .filter(|l| l.trim() != "}")
        .collect::<Vec<_>>()
        .join("\n")
}

/// `type name` (or `ret (*name)(...)`) as a parameter.
fn param(decl: &str) -> Param {
    let decl = squash(decl);
    if let Some(open) = decl.find("(*") {
        let close = decl[open..].find(')').unwrap() + open;
        return Param {
            ty: decl.clone(),
            name: decl[open + 2..close].trim().to_owned(),
        };
    }
    let split = decl
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    Param {
        ty: decl[..split].trim().to_owned(),
        name: decl[split..].to_owned(),
    }
}

/// Splits at commas outside parentheses.
fn split_top(s: &str) -> Vec<String> {
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current);
    }
    parts
}

fn parse(text: String) -> Header {
    let decls = declarations(&text);
    let mut functions = BTreeMap::new();
    let mut structs = BTreeMap::new();
    // Top-level statements: up to a `;` outside braces.
    let (mut depth, mut statement) = (0, String::new());
    let mut statements = Vec::new();
    for c in decls.chars() {
        statement.push(c);
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ';' if depth == 0 => statements.push(squash(&std::mem::take(&mut statement))),
            _ => {}
        }
    }
    for s in statements {
        if let Some(body) = s.strip_prefix("typedef struct {") {
            let close = body.rfind('}').unwrap();
            let name = body[close + 1..].trim_end_matches(';').trim().to_owned();
            let fields = body[..close]
                .split(';')
                .filter(|f| !f.trim().is_empty())
                .map(param)
                .collect();
            structs.insert(name, fields);
        } else if !s.starts_with("typedef") && s.contains('(') {
            let open = s.find('(').unwrap();
            let close = s.rfind(')').unwrap();
            let name = param(&s[..open]).name;
            let inside = s[open + 1..close].trim();
            let params = if inside == "void" {
                Vec::new()
            } else {
                split_top(inside).iter().map(|p| param(p)).collect()
            };
            functions.insert(name, params);
        }
    }
    Header {
        functions,
        structs,
        text,
    }
}

fn header() -> Header {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/leaseq.h");
    parse(std::fs::read_to_string(&path).expect("read include/leaseq.h"))
}

/// The parameters an argument is in C: `(name, accepted types)`.
fn c_params(arg: &Arg) -> Vec<(String, &'static [&'static str])> {
    const INTEGER: &[&str] = &["size_t", "uint64_t", "int64_t", "uint32_t", "int32_t"];
    const SIZE: &[&str] = &["size_t"];
    let name = arg.c_name();
    let len = format!("{}_len", arg.name);
    let one = |types: &'static [&'static str]| vec![(name.clone(), types)];
    let list = |types: &'static [&'static str]| vec![(name.clone(), types), (len.clone(), SIZE)];
    match arg.kind {
        Kind::Duration => one(&["int64_t"]),
        Kind::Bytes => list(&["const uint8_t *"]),
        Kind::Items => list(&["const leaseq_item *const *"]),
        Kind::Leases => list(&["const leaseq_lease *const *"]),
        Kind::Completions => list(&["const leaseq_completion *"]),
        Kind::Failures => list(&["const leaseq_failure *"]),
        Kind::Ids => list(&["const char *const *"]),
        Kind::Item => one(&["const leaseq_item *"]),
        Kind::Lease => one(&["const leaseq_lease *"]),
        Kind::Id | Kind::Text => one(&["const char *"]),
        Kind::Count => one(INTEGER),
        Kind::Flag => one(&["bool"]),
        Kind::State => one(&["leaseq_state"]),
        Kind::Retry => one(&["leaseq_retry"]),
        Kind::Config => one(&["const leaseq_config *"]),
        Kind::Schedule => one(&["const leaseq_schedule *"]),
        Kind::Flows => list(&["const leaseq_flow_child *"]),
        other => panic!("the C rules above say nothing of the kind {other:?}: add its rule"),
    }
}

fn variants_of(op: &Operation) -> Vec<&'static str> {
    VARIANTS
        .iter()
        .filter(|(_, o)| *o == op.name)
        .map(|(f, _)| *f)
        .collect()
}

/// The fields of the options structs that `params` take.
fn option_fields<'h>(header: &'h Header, params: &[Param]) -> Vec<&'h Param> {
    params
        .iter()
        .filter_map(|p| {
            let ty = p.ty.trim_start_matches("const ");
            let ty = ty.split(' ').next().unwrap_or("");
            ty.ends_with("_options")
                .then(|| header.structs.get(ty))
                .flatten()
        })
        .flatten()
        .collect()
}

#[test]
fn every_operation_is_declared_with_its_arguments() {
    let header = header();
    let mut problems = Vec::new();
    for op in OPERATIONS {
        let function = op.c_name();
        check_arguments(&header, op, &function, &variants_of(op), &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `function` (with its `variant_names`) is declared and takes `op`'s arguments by the rules.
fn check_arguments(
    header: &Header,
    op: &Operation,
    function: &str,
    variant_names: &[&str],
    problems: &mut Vec<String>,
) {
    {
        let Some(params) = header.functions.get(function) else {
            problems.push(format!("{}: leaseq.h does not declare {function}", op.name));
            return;
        };
        let variants: Vec<(&str, &Vec<Param>)> = variant_names
            .iter()
            .filter_map(|v| header.functions.get(*v).map(|p| (*v, p)))
            .collect();
        for arg in op.args.iter().filter(|a| a.in_language("c")) {
            let expected = c_params(arg);
            if arg.required {
                for (name, types) in &expected {
                    match params.iter().find(|p| &p.name == name) {
                        None => problems.push(format!(
                            "{function}: no parameter `{name}` for the required argument `{}`",
                            arg.name
                        )),
                        Some(p) if !types.contains(&p.ty.as_str()) => problems.push(format!(
                            "{function}: `{name}` is `{}`, not one of {types:?} ({:?})",
                            p.ty, arg.kind
                        )),
                        Some(_) => {}
                    }
                }
                for (variant, vparams) in &variants {
                    if !vparams.iter().any(|p| p.name == expected[0].0) {
                        problems.push(format!(
                            "{variant}: no parameter `{}` for the required argument `{}`",
                            expected[0].0, arg.name
                        ));
                    }
                }
            } else {
                let mut places: Vec<&Param> = params.iter().collect();
                places.extend(option_fields(header, params));
                for (_, vparams) in &variants {
                    places.extend(vparams.iter());
                    places.extend(option_fields(header, vparams));
                }
                for (name, _) in &expected {
                    if !places.iter().any(|p| &p.name == name) {
                        problems.push(format!(
                            "{function}: the optional argument `{}` is `{name}` of neither the \
                             function, its variants {variant_names:?}, nor an options struct \
                             they take",
                            arg.name,
                        ));
                    }
                }
            }
        }
    }
}

#[test]
fn every_queue_function_is_an_operation_or_a_declared_variant() {
    let header = header();
    let mut problems = Vec::new();
    for (variant, op) in VARIANTS {
        let Some(op) = Operation::find(op) else {
            problems.push(format!("VARIANTS: `{op}` is no operation of the table"));
            continue;
        };
        let base = op.c_name();
        let named = variant
            .strip_prefix(base.as_str())
            .is_some_and(|rest| rest.starts_with("_with_") || rest == "_bytes");
        if !named {
            problems.push(format!(
                "VARIANTS: {variant} is not named {base}_with_<...> or {base}_bytes"
            ));
        }
        if !header.functions.contains_key(*variant) {
            problems.push(format!("VARIANTS: leaseq.h does not declare {variant}"));
        }
    }
    for name in NOT_OPERATIONS {
        if !header.functions.contains_key(*name) {
            problems.push(format!("NOT_OPERATIONS: leaseq.h does not declare {name}"));
        }
    }
    let operations: Vec<String> = OPERATIONS.iter().map(Operation::c_name).collect();
    for function in header.functions.keys() {
        if !function.starts_with("leaseq_queue_") {
            continue;
        }
        let known = operations.contains(function)
            || VARIANTS.iter().any(|(v, _)| v == function)
            || NOT_OPERATIONS.contains(&function.as_str());
        if !known {
            problems.push(format!(
                "{function} is neither an operation of leaseq::operations::OPERATIONS (whose C \
                 name it would be) nor in VARIANTS or NOT_OPERATIONS"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Functions that offer a partitioned queue's operation another way, as VARIANTS do a queue's.
const PARTITIONED_VARIANTS: &[(&str, &str)] = &[
    ("leaseq_partitioned_add_with_options", "add"),
    ("leaseq_partitioned_add_batch_with_options", "add_batch"),
    ("leaseq_partitioned_lease_with_options", "lease"),
    ("leaseq_partitioned_add_with_timeout", "add"),
    ("leaseq_partitioned_add_batch_with_timeout", "add_batch"),
    ("leaseq_partitioned_complete_with_result", "complete"),
    ("leaseq_partitioned_fail_with_trace", "fail"),
];

/// `leaseq_partitioned_*` functions that are no operation of a partitioned queue: opening and
/// creating it (the client's, in the other languages), and the handle's own.
const NOT_PARTITIONED: &[&str] = &[
    "leaseq_partitioned_create",
    "leaseq_partitioned_open",
    "leaseq_partitioned_free",
    "leaseq_partitioned_base",
    "leaseq_partitioned_prefix",
    "leaseq_partitioned_partitions",
];

/// The partitioned queue's functions against `leaseq::operations::PARTITIONED`: each operation
/// is `leaseq_partitioned_<name>`, taking the arguments of the queue operation of its name (the
/// handle in place of the queue), and every `leaseq_partitioned_*` function is an operation, a
/// declared variant, or the handle's own.
#[test]
fn every_partitioned_operation_is_declared_with_its_arguments() {
    let header = header();
    let mut problems = Vec::new();
    for op in PARTITIONED {
        let function = op.c_name();
        match op.queue_operation() {
            Some(queue_op) => {
                let variants: Vec<&str> = PARTITIONED_VARIANTS
                    .iter()
                    .filter(|(_, o)| *o == op.name)
                    .map(|(f, _)| *f)
                    .collect();
                check_arguments(&header, queue_op, &function, &variants, &mut problems);
            }
            None if !header.functions.contains_key(&function) => {
                problems.push(format!("{}: leaseq.h does not declare {function}", op.name));
            }
            None => {}
        }
        if let Some(params) = header.functions.get(&function) {
            if params.first().map(|p| p.ty.as_str()) != Some("const leaseq_partitioned *") {
                problems.push(format!(
                    "{function}: the first parameter is not `const leaseq_partitioned *`"
                ));
            }
        }
    }
    for (variant, _) in PARTITIONED_VARIANTS {
        if !header.functions.contains_key(*variant) {
            problems.push(format!(
                "PARTITIONED_VARIANTS: leaseq.h does not declare {variant}"
            ));
        }
    }
    for name in NOT_PARTITIONED {
        if !header.functions.contains_key(*name) {
            problems.push(format!("NOT_PARTITIONED: leaseq.h does not declare {name}"));
        }
    }
    let operations: Vec<String> = PARTITIONED
        .iter()
        .map(PartitionedOperation::c_name)
        .collect();
    for function in header.functions.keys() {
        if !function.starts_with("leaseq_partitioned_") {
            continue;
        }
        let known = operations.contains(function)
            || PARTITIONED_VARIANTS.iter().any(|(v, _)| v == function)
            || NOT_PARTITIONED.contains(&function.as_str());
        if !known {
            problems.push(format!(
                "{function} is neither an operation of leaseq::operations::PARTITIONED nor in \
                 PARTITIONED_VARIANTS or NOT_PARTITIONED"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_parser_reads_what_it_checks() {
    // A guard on the test itself: the declarations it reads are there, as written.
    let header = header();
    let lease = &header.functions["leaseq_queue_lease"];
    let names: Vec<&str> = lease.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["queue", "ttl_ms", "timeout_ms", "out_lease"]);
    assert_eq!(lease[0].ty, "const leaseq_queue *");
    let options = &header.structs["leaseq_worker_options"];
    assert_eq!(options[0].name, "struct_size");
    assert!(options.iter().any(|f| f.name == "on_event"));
    assert!(header.functions.contains_key("leaseq_version"));
    assert!(header.functions["leaseq_runtime_shutdown"].is_empty());
    assert!(header.functions.len() > 100, "{}", header.functions.len());
}

#[test]
fn the_runner_events_are_the_tables() {
    let header = header();
    // The doc comment of leaseq_worker_event's first field, `name`.
    let start = header
        .text
        .find("typedef struct {\n    /**\n     * \"completed\"")
        .and_then(|s| {
            let end = header.text[s..].find("} leaseq_worker_event;")? + s;
            Some(&header.text[s..end])
        })
        .expect("leaseq_worker_event, its `name` documented first");
    let doc = &start[..start.find("const char *name;").expect("the name field")];
    let documented: Vec<&str> = doc.split('"').skip(1).step_by(2).collect();
    assert_eq!(
        documented, EVENTS,
        "leaseq_worker_event.name's documented names"
    );

    // worker.rs takes names, ids, attempts and messages from the core (Event::name, id,
    // attempt, message) and spells no event name itself.
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/worker.rs"))
            .expect("read src/worker.rs");
    let code: String = source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    for event in EVENTS {
        assert!(
            !code.contains(&format!("\"{event}\"")),
            "src/worker.rs names the event \"{event}\" itself: take it from Event::name()"
        );
    }
    for part in ["e.name()", "e.id()", "e.attempt()", "e.message()"] {
        assert!(code.contains(part), "src/worker.rs does not use {part}");
    }
}
