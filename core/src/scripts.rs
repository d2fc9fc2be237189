//! The protocol's Lua code (spec/scripts), sent as one Redis function library
//! (spec/PROTOCOL.md, 4.1): every helper of spec/scripts/lib/ once, then each operation's file
//! as the body of one function. Loading the helpers once, instead of with every call, is what
//! keeps a plain lease+complete as cheap as protocol v1's.

use std::sync::LazyLock;

use redis::ToRedisArgs;

/// The helpers in spec/scripts/lib/, in library order: each after those it uses.
const LIB: [(&str, &str); 14] = [
    ("keys", include_str!("../../spec/scripts/lib/keys.lua")),
    ("time", include_str!("../../spec/scripts/lib/time.lua")),
    ("config", include_str!("../../spec/scripts/lib/config.lua")),
    ("guard", include_str!("../../spec/scripts/lib/guard.lua")),
    ("rate", include_str!("../../spec/scripts/lib/rate.lua")),
    (
        "waiting",
        include_str!("../../spec/scripts/lib/waiting.lua"),
    ),
    ("jobs", include_str!("../../spec/scripts/lib/jobs.lua")),
    (
        "outcome",
        include_str!("../../spec/scripts/lib/outcome.lua"),
    ),
    ("finish", include_str!("../../spec/scripts/lib/finish.lua")),
    ("lease", include_str!("../../spec/scripts/lib/lease.lua")),
    ("window", include_str!("../../spec/scripts/lib/window.lua")),
    ("renew", include_str!("../../spec/scripts/lib/renew.lua")),
    ("fail", include_str!("../../spec/scripts/lib/fail.lua")),
    ("call", include_str!("../../spec/scripts/lib/call.lua")),
];

/// One operation's function: its file (spec/scripts/<file>.lua) and its header lines.
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
    for (_, helper) in LIB {
        code.push_str(helper);
        code.push('\n');
    }
    code.push_str(
        "local function register(name, flags, body)\n\
         \x20 redis.register_function{function_name = LIBRARY .. '_' .. name, flags = flags,\n\
         \x20   callback = function(keys, args) begin_call(keys) return body(keys, args) end}\n\
         end\n",
    );
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
}

/// One call of a function: `FCALL <name> <numkeys> <keys...> <args...>`.
pub(crate) struct Invocation {
    function: &'static Function,
    keep: bool,
    keys: Vec<Vec<u8>>,
    args: Vec<Vec<u8>>,
}

impl Invocation {
    pub(crate) fn new(function: &'static Function) -> Invocation {
        Invocation {
            function,
            keep: false,
            keys: Vec::with_capacity(5),
            args: Vec::new(),
        }
    }

    /// Appends a key.
    pub(crate) fn key<T: ToRedisArgs>(&mut self, key: T) -> &mut Self {
        self.keys.extend(key.to_redis_args());
        self
    }

    /// Appends an argument (a sequence appends each element).
    pub(crate) fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        self.args.extend(arg.to_redis_args());
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
        let mut cmd = redis::cmd("FCALL");
        cmd.arg(name).arg(self.keys.len());
        for key in &self.keys {
            cmd.arg(key.as_slice());
        }
        for arg in &self.args {
            cmd.arg(arg.as_slice());
        }
        cmd
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
    fn every_body_declares_only_known_helpers() {
        for f in all() {
            let first = f.body.lines().next().unwrap_or_default();
            let names = first
                .strip_prefix("--! include:")
                .unwrap_or_else(|| panic!("{} lacks `--! include:`", f.stem));
            for name in names.split_whitespace() {
                assert!(
                    LIB.iter().any(|(n, _)| *n == name),
                    "{}: unknown helper {name}",
                    f.stem
                );
            }
        }
    }
}
