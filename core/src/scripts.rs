//! The protocol's Lua code (spec/scripts), sent as one Redis function library
//! (spec/PROTOCOL.md, 4.1): every helper of spec/scripts/lib/ once, then each operation's file
//! as the body of one function. Loading the helpers once, instead of with every call, is what
//! keeps a plain lease+complete as cheap as protocol v1's.
//!
//! Each file's first line, `--! include: a b(v) ...`, names the helpers it uses, and so the
//! helpers' order in the library: each helper comes after those its own line names
//! ([`library_order`]: among the helpers whose includes are placed, the first by name; a cycle or
//! an unknown name is an error). The rule the includes follow (checked by the tests of
//! `scripts/check.rs`, which read the Lua's names without Redis):
//! - a file names a helper's functions and UPPER_CASE names (constants, the call's key names)
//!   only when that helper is among its includes, or theirs (transitively), and names something
//!   of every helper its line lists;
//! - UPPER_CASE names are assigned only in their own helper;
//! - a helper's lower-case library-wide variables (state kept between or within calls) are its
//!   own: another file names one only when its include line declares it beside the helper, as
//!   `config(config_cache)`, so that all shared state is listed where it is shared;
//! - no local (parameter, block local, an operation's own) hides a library-wide name, a helper
//!   defines its names before using them, and no two helpers define the same name.
//!
//! The includes decide the order only: every helper is in the library once, whatever each
//! operation includes, so that there is one library (one name) for every client.

use std::sync::LazyLock;

use redis::ToRedisArgs;

#[cfg(test)]
mod check;

macro_rules! helpers {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../spec/scripts/lib/", $name, ".lua")))),*]
    };
}

/// The helpers in spec/scripts/lib/ (name, code), by name; [`library_order`] places them.
const HELPERS: [(&str, &str); 21] = helpers![
    "adds", "call", "config", "deps", "events", "fail", "finish", "flows", "groups", "guard",
    "holds", "jobs", "keys", "lease", "outcome", "rate", "renew", "schedule", "time", "waiting",
    "window",
];

/// What a file's include line names: one helper, and the library-wide variables of it that the
/// file reads or writes itself (`config(config_cache)`).
#[derive(Debug, PartialEq)]
struct Include<'a> {
    /// The helper's name: its file is `spec/scripts/lib/<helper>.lua`.
    helper: &'a str,
    /// Its lower-case variables the file names (declared as `helper(a,b)`).
    variables: Vec<&'a str>,
}

/// The includes of a file, from its first line (`--! include: keys config(config_cache) ...`,
/// several variables separated by commas without spaces). An error when the line is missing or
/// an entry is malformed.
fn includes(code: &str) -> Result<Vec<Include<'_>>, String> {
    let line = code.lines().next().unwrap_or_default();
    let names = line
        .strip_prefix("--! include:")
        .ok_or_else(|| format!("the first line is not `--! include: ...`: {line:?}"))?;
    names
        .split_whitespace()
        .map(|word| {
            let (helper, variables) = match word.split_once('(') {
                None => (word, Vec::new()),
                Some((helper, rest)) => {
                    let list = rest
                        .strip_suffix(')')
                        .ok_or_else(|| format!("`{word}`: no closing parenthesis"))?;
                    (helper, list.split(',').collect())
                }
            };
            let ident = |s: &str| {
                !s.is_empty()
                    && !s.starts_with(|c: char| c.is_ascii_digit())
                    && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            };
            if !ident(helper) || !variables.iter().all(|v| ident(v)) {
                return Err(format!(
                    "`{word}` is not `helper` or `helper(variable,...)`"
                ));
            }
            Ok(Include { helper, variables })
        })
        .collect()
}

/// `helpers` (name, code) in library order: each after every helper its include line names;
/// among the helpers whose includes are all placed, the first by name (byte order), so that the
/// order, and the library's name, follow from the files alone (spec/PROTOCOL.md, 4.1). An error
/// names a helper that includes an unknown one, or the helpers of a cycle.
fn library_order<'a>(helpers: &[(&'a str, &'a str)]) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut needs = Vec::with_capacity(helpers.len());
    for (i, (name, code)) in helpers.iter().enumerate() {
        if helpers[..i].iter().any(|(other, _)| other == name) {
            return Err(format!("two helpers are named {name}"));
        }
        let mut wanted = Vec::new();
        for include in includes(code).map_err(|e| format!("lib/{name}.lua: {e}"))? {
            if !helpers.iter().any(|(n, _)| *n == include.helper) {
                return Err(format!(
                    "lib/{name}.lua includes {}, which is no helper",
                    include.helper
                ));
            }
            wanted.push(include.helper);
        }
        needs.push(wanted);
    }
    let mut placed: Vec<(&str, &str)> = Vec::with_capacity(helpers.len());
    while placed.len() < helpers.len() {
        let ready = helpers
            .iter()
            .zip(&needs)
            .filter(|((name, _), wanted)| {
                !placed.iter().any(|(p, _)| p == name)
                    && wanted.iter().all(|w| placed.iter().any(|(p, _)| p == w))
            })
            .map(|(helper, _)| *helper)
            .min_by_key(|(name, _)| *name);
        match ready {
            Some(helper) => placed.push(helper),
            None => {
                // Every helper left waits on another left: follow the first such include from
                // the first of them until a helper repeats; from its first visit on is a cycle.
                let waiting = |name: &str| {
                    let i = helpers.iter().position(|(n, _)| *n == name)?;
                    needs[i]
                        .iter()
                        .copied()
                        .find(|w| !placed.iter().any(|(p, _)| p == w))
                };
                let mut path: Vec<&str> = Vec::new();
                let mut at = helpers
                    .iter()
                    .map(|(name, _)| *name)
                    .find(|name| !placed.iter().any(|(p, _)| p == name));
                while let Some(name) = at {
                    if let Some(first) = path.iter().position(|p| *p == name) {
                        path.drain(..first);
                        path.push(name);
                        break;
                    }
                    path.push(name);
                    at = waiting(name);
                }
                return Err(format!(
                    "the helpers' includes form a cycle: {}",
                    path.join(" -> ")
                ));
            }
        }
    }
    Ok(placed)
}

/// The helpers in library order (spec/PROTOCOL.md, 4.1).
fn helpers_in_order() -> Vec<(&'static str, &'static str)> {
    library_order(&HELPERS).unwrap_or_else(|e| panic!("spec/scripts/lib: {e}"))
}

/// The registration helper, after the helpers: each function binds its call first (`begin_call`,
/// lib/call.lua). The tests check it as a file whose include line is `call`.
const REGISTER: &str = "local function register(name, flags, body)\n\
     \x20 redis.register_function{function_name = LIBRARY .. '_' .. name, flags = flags,\n\
     \x20   callback = function(keys, args) begin_call(keys) return body(keys, args) end}\n\
     end\n";

/// One operation's function: its file (`spec/scripts/<file>.lua`) and its header lines.
pub(crate) struct Function {
    /// The file's stem, e.g. `lease`: the function is `<library>_<stem>`.
    stem: &'static str,
    body: &'static str,
}

impl Function {
    /// `--! flags: a b` (Redis function flags), or none.
    fn flags(&self) -> Vec<&'static str> {
        self.header("--! flags:")
            .map(|f| f.split_whitespace().collect())
            .unwrap_or_default()
    }

    /// `--! keep-variant`: also registered as `<stem>_keep` without flags, used when a result is
    /// kept, so that Redis refuses it over `maxmemory` before anything is written.
    fn keep_variant(&self) -> bool {
        self.header("--! keep-variant").is_some()
    }

    fn header(&self, tag: &str) -> Option<&'static str> {
        self.body
            .lines()
            .take_while(|l| l.starts_with("--!"))
            .find_map(|l| l.strip_prefix(tag))
    }

    /// The full name to `FCALL`.
    pub(crate) fn name(&self) -> String {
        format!("{}_{}", LIBRARY.name, self.stem)
    }

    /// The name of the `_keep` variant (spec/PROTOCOL.md, 4.1).
    pub(crate) fn keep_name(&self) -> String {
        debug_assert!(self.keep_variant(), "{} has no keep variant", self.stem);
        format!("{}_{}_keep", LIBRARY.name, self.stem)
    }
}

/// The library: its name (`leaseq_` and the first 12 hex digits of the SHA1 of its code, so that
/// clients of different versions share a server) and its full text for `FUNCTION LOAD`.
pub(crate) struct Library {
    pub(crate) name: String,
    pub(crate) text: String,
}

/// The code of the library, without its `#!lua name=` line.
fn code() -> String {
    let mut code = String::new();
    for (_, helper) in helpers_in_order() {
        code.push_str(helper);
        code.push('\n');
    }
    code.push_str(REGISTER);
    for f in all() {
        let flags: Vec<String> = f.flags().iter().map(|f| format!("'{f}'")).collect();
        let flags = format!("{{{}}}", flags.join(", "));
        code.push_str(&format!(
            "register('{}', {flags}, function(KEYS, ARGV)\n{}end)\n",
            f.stem, f.body
        ));
        if f.keep_variant() {
            code.push_str(&format!(
                "register('{}_keep', {{}}, function(KEYS, ARGV)\n{}end)\n",
                f.stem, f.body
            ));
        }
    }
    code
}

/// The library of `code`, named from its SHA1.
fn named(code: String) -> Library {
    let hash = sha1_smol::Sha1::from(code.as_bytes()).digest().to_string();
    let name = format!("leaseq_{}", &hash[..12]);
    let text = format!("#!lua name={name}\nlocal LIBRARY = '{name}'\n{code}");
    Library { name, text }
}

/// The library every call uses.
pub(crate) static LIBRARY: LazyLock<Library> = LazyLock::new(|| named(code()));

/// For tests only (integration-tests/model replays the model's traces through it): the
/// library's code as `edit` changes it (e.g. a `now_ms` that reads a clock the test sets), named
/// from its own SHA1 as any library is, so it loads beside the real one. Returns the name (call
/// `FCALL <name>_<operation>`) and the text for `FUNCTION LOAD`.
#[doc(hidden)]
pub fn edited_library(edit: impl FnOnce(String) -> String) -> (String, String) {
    let lib = named(edit(code()));
    (lib.name, lib.text)
}

macro_rules! functions {
    ($($name:ident => $stem:literal),* $(,)?) => {
        $(
            pub(crate) static $name: Function = Function {
                stem: $stem,
                body: include_str!(concat!("../../spec/scripts/", $stem, ".lua")),
            };
        )*
        /// Every function, in registration order.
        pub(crate) fn all() -> [&'static Function; [$($stem),*].len()] {
            [$(&$name),*]
        }
    };
}

functions! {
    ADD => "add",
    LEASE => "lease",
    COMPLETE => "complete",
    COMPLETE_AND_LEASE => "complete_and_lease",
    RENEW => "renew",
    FAIL => "fail",
    RELEASE => "release",
    PROGRESS => "progress",
    CANCEL => "cancel",
    GET => "get",
    OUTCOME => "outcome",
    LIST => "list",
    COUNT => "count",
    STATS => "stats",
    DEAD => "dead",
    CLEAN => "clean",
    SNAPSHOT => "snapshot",
    DEEP_CHECK => "deep_check",
    DEEP_UNMARK => "deep_unmark",
    DEEP_REQUEUE => "deep_requeue",
    COMPLETE_BATCH => "complete_batch",
    COMPLETE_AND_LEASE_BATCH => "complete_and_lease_batch",
    RENEW_BATCH => "renew_batch",
    FAIL_BATCH => "fail_batch",
    RUNNER_BEAT => "runner_beat",
    RUNNER_LEAVE => "runner_leave",
    RUNNER_LIST => "runner_list",
    PAUSE => "pause",
    SET_CONFIG => "set_config",
    HOLD => "hold",
    GROUP => "group",
    NAMES => "names",
    PROMOTE => "promote",
    SCHEDULE_UPSERT => "schedule_upsert",
    SCHEDULE_FIRE => "schedule_fire",
    SCHEDULE_REMOVE => "schedule_remove",
    SCHEDULES => "schedules",
    DEPENDENCIES => "dependencies",
    READ_EVENTS => "read_events",
    CREATE_LAYOUT => "create_layout",
}

/// One call of a function: `FCALL <name> <numkeys> <keys...> <args...>`.
pub(crate) struct Invocation {
    function: &'static Function,
    keep: bool,
    keys: Vec<Vec<u8>>,
    /// The arguments, written one after the other into one buffer (a `Cmd` is that): a batch
    /// call's thousands of arguments cost no allocation each.
    args: redis::Cmd,
}

impl Invocation {
    pub(crate) fn new(function: &'static Function) -> Invocation {
        Invocation {
            function,
            keep: false,
            keys: Vec::with_capacity(5),
            args: redis::Cmd::new(),
        }
    }

    /// Appends a key.
    pub(crate) fn key<T: ToRedisArgs>(&mut self, key: T) -> &mut Self {
        self.keys.extend(key.to_redis_args());
        self
    }

    /// Appends an argument (a sequence appends each element).
    pub(crate) fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        self.args.arg(arg);
        self
    }

    /// Calls the `_keep` variant: the call keeps a result (its function must have one).
    pub(crate) fn keeping_result(&mut self) -> &mut Self {
        self.keep = true;
        self
    }

    /// The command to send.
    pub(crate) fn cmd(&self) -> redis::Cmd {
        let name = if self.keep {
            self.function.keep_name()
        } else {
            self.function.name()
        };
        let args = self.args.args_iter();
        let size = self.keys.iter().map(Vec::len).sum::<usize>()
            + args.clone().map(|a| arg_bytes(&a).len()).sum::<usize>();
        let mut cmd = redis::Cmd::with_capacity(3 + self.keys.len() + args.len(), 40 + size);
        cmd.arg("FCALL").arg(name).arg(self.keys.len());
        for key in &self.keys {
            cmd.arg(key.as_slice());
        }
        for arg in args {
            cmd.arg(arg_bytes(&arg));
        }
        cmd
    }
}

/// An argument's bytes. `Invocation::arg` writes plain arguments only (`Cmd::arg`), never a
/// cursor (`Cmd::cursor_arg`), the one other kind there is.
fn arg_bytes<'a>(arg: &redis::Arg<&'a [u8]>) -> &'a [u8] {
    match *arg {
        redis::Arg::Simple(bytes) => bytes,
        _ => &[],
    }
}

/// `FUNCTION LOAD REPLACE <library>`: sent when a call was refused because the server does not
/// have the library (a restart without persistence, `FUNCTION FLUSH`, a new Cluster node). In a
/// Cluster it goes to every primary. REPLACE makes it idempotent: the name is the code's hash.
pub(crate) fn load_cmd() -> redis::Cmd {
    let mut cmd = redis::cmd("FUNCTION");
    cmd.arg("LOAD").arg("REPLACE").arg(LIBRARY.text.as_str());
    cmd
}

/// Whether a server error means "the library is not loaded here": nothing ran.
pub(crate) fn is_missing_function(code: Option<&str>, detail: Option<&str>) -> bool {
    code == Some("ERR") && detail.is_some_and(|d| d.starts_with("Function not found"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invocation_sends_its_keys_then_its_arguments_in_order() {
        let mut inv = Invocation::new(&COMPLETE);
        inv.key("{q}:lease:").key("{q}:item:");
        inv.arg(2).arg(&b"id-1"[..]).arg("").arg(&["a", "b"]);
        let cmd = inv.cmd();
        let args: Vec<Vec<u8>> = cmd.args_iter().map(|a| arg_bytes(&a).to_vec()).collect();
        let name = COMPLETE.name();
        let want: Vec<&[u8]> = vec![
            b"FCALL",
            name.as_bytes(),
            b"2",
            b"{q}:lease:",
            b"{q}:item:",
            b"2",
            b"id-1",
            b"",
            b"a",
            b"b",
        ];
        assert_eq!(args, want);
        inv.keeping_result();
        let keep = inv.cmd();
        let name = keep.args_iter().nth(1).map(|a| arg_bytes(&a).to_vec());
        assert_eq!(name.as_deref(), Some(COMPLETE.keep_name().as_bytes()));
    }

    #[test]
    fn library_names_each_function_once_and_carries_flags() {
        let text = &LIBRARY.text;
        assert!(text.starts_with("#!lua name=leaseq_"));
        assert_eq!(LIBRARY.name.len(), "leaseq_".len() + 12);
        for f in all() {
            let needle = format!("register('{}', ", f.stem);
            assert_eq!(text.matches(&needle).count(), 1, "{}", f.stem);
        }
        assert!(text.contains("register('lease', {'allow-oom'}, "));
        assert!(text.contains("register('add', {}, "));
        assert!(text.contains("register('get', {'no-writes'}, "));
        assert!(text.contains("register('complete_keep', {}, "));
        assert_eq!(text.matches("local function lease_items").count(), 1);
    }

    #[test]
    fn helpers_load_once_each_after_what_they_include() {
        let order = helpers_in_order();
        assert_eq!(order.len(), HELPERS.len());
        for (at, (name, code)) in order.iter().enumerate() {
            assert_eq!(order.iter().filter(|(n, _)| n == name).count(), 1, "{name}");
            for include in includes(code).expect("an include line") {
                let before = order[..at].iter().any(|(n, _)| *n == include.helper);
                assert!(
                    before,
                    "{name} comes before {}, which it includes",
                    include.helper
                );
            }
        }
        // The library carries them in that order, each once.
        let text = &LIBRARY.text;
        let mut from = 0;
        for (name, code) in &order {
            let found = text[from..]
                .find(code)
                .unwrap_or_else(|| panic!("{name} out of order"));
            from += found + code.len();
            assert_eq!(text.matches(code).count(), 1, "{name}");
        }
        assert!(text[from..].starts_with("\nlocal function register("));
    }

    #[test]
    fn the_order_is_the_first_ready_helper_by_name() {
        let helpers = [
            ("d", "--! include: b\n"),
            ("c", "--! include:\n"),
            ("b", "--! include: c\n"),
            ("a", "--! include: d c\n"),
        ];
        let order: Vec<&str> = library_order(&helpers)
            .expect("no cycle")
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(order, ["c", "b", "d", "a"]);
    }

    #[test]
    fn a_cycle_an_unknown_helper_or_a_missing_line_is_an_error() {
        let cycle = [
            ("a", "--! include: b\n"),
            ("b", "--! include: c\n"),
            ("c", "--! include: b\n"),
            ("d", "--! include:\n"),
        ];
        assert_eq!(
            library_order(&cycle).unwrap_err(),
            "the helpers' includes form a cycle: b -> c -> b"
        );
        let own = [("a", "--! include: a\n")];
        assert_eq!(
            library_order(&own).unwrap_err(),
            "the helpers' includes form a cycle: a -> a"
        );
        let unknown = [("a", "--! include: b\n")];
        assert_eq!(
            library_order(&unknown).unwrap_err(),
            "lib/a.lua includes b, which is no helper"
        );
        let no_line = [("a", "-- a helper\n")];
        assert!(library_order(&no_line)
            .unwrap_err()
            .starts_with("lib/a.lua: the first line is not `--! include: ...`"));
        let twice = [("a", "--! include:\n"), ("a", "--! include:\n")];
        assert_eq!(
            library_order(&twice).unwrap_err(),
            "two helpers are named a"
        );
    }

    #[test]
    fn include_lines_name_helpers_and_their_variables() {
        assert_eq!(
            includes("--! include: keys config(config_cache) rate(a,b)\n-- more").unwrap(),
            [
                Include {
                    helper: "keys",
                    variables: vec![]
                },
                Include {
                    helper: "config",
                    variables: vec!["config_cache"]
                },
                Include {
                    helper: "rate",
                    variables: vec!["a", "b"]
                },
            ]
        );
        assert_eq!(includes("--! include:\n").unwrap(), []);
        for bad in [
            "--! include: a(b",
            "--! include: a(b c)",
            "--! include: a()",
            "--! include: 1a",
        ] {
            assert!(includes(bad).is_err(), "{bad}");
        }
    }
}
