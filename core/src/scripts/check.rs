//! The include rule of the Lua library (spec/PROTOCOL.md, 4.1; the module doc of scripts.rs),
//! checked without Redis: a small reader of Lua's names (comments and strings skipped) finds what
//! each helper defines at its top level and what each file names, and [`problems`] compares that
//! with the files' include lines.

use std::collections::{BTreeMap, BTreeSet};

use super::{all, includes, library_order, HELPERS, REGISTER};

/// One token of Lua code: a name (keywords included), or punctuation; numbers and strings are
/// kept as `Other` (their text is never read), comments are dropped.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Name,
    Punct,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    kind: Kind,
    text: &'a str,
    line: usize,
}

const KEYWORDS: [&str; 21] = [
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local",
    "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// The level of a long bracket at `at` (`[[` 0, `[=[` 1, ...), if one opens there.
fn long_bracket(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'[') {
        return None;
    }
    let level = b[at + 1..].iter().take_while(|&&c| c == b'=').count();
    (b.get(at + 1 + level) == Some(&b'[')).then_some(level)
}

/// Where the long bracket of `level` opened before `from` closes (just after its `]=*]`).
fn long_end(b: &[u8], from: usize, level: usize) -> usize {
    let close: Vec<u8> = std::iter::once(b']')
        .chain(std::iter::repeat_n(b'=', level))
        .chain(std::iter::once(b']'))
        .collect();
    b[from..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(b.len(), |p| from + p + close.len())
}

fn lex(code: &str) -> Vec<Token<'_>> {
    let b = code.as_bytes();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    let lines = |from: usize, to: usize| b[from..to].iter().filter(|&&c| c == b'\n').count();
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = if c.is_ascii_whitespace() {
            line += usize::from(c == b'\n');
            i += 1;
            continue;
        } else if code[i..].starts_with("--") {
            i = match long_bracket(b, i + 2) {
                Some(level) => long_end(b, i + 2, level),
                None => code[i..].find('\n').map_or(b.len(), |n| i + n),
            };
            line += lines(start, i);
            continue;
        } else if c == b'\'' || c == b'"' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            Kind::Other
        } else if let Some(level) = long_bracket(b, i) {
            i = long_end(b, i, level);
            Kind::Other
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                let exponent = matches!(b[i], b'e' | b'E') && !code[start..].starts_with("0x");
                i += 1;
                if exponent && matches!(b.get(i), Some(b'+' | b'-')) {
                    i += 1;
                }
            }
            Kind::Other
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Kind::Name
        } else {
            let rest = &code[i..];
            i += if rest.starts_with("...") {
                3
            } else if ["==", "~=", "<=", ">=", ".."]
                .iter()
                .any(|p| rest.starts_with(p))
            {
                2
            } else {
                1
            };
            Kind::Punct
        };
        tokens.push(Token {
            kind,
            text: &code[start..i],
            line,
        });
        line += lines(start, i);
    }
    tokens
}

/// What a helper defines at its top level.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Def {
    Function,
    Variable,
}

/// One name as a file uses it.
#[derive(Debug)]
struct Use<'a> {
    name: &'a str,
    line: usize,
    /// The token's index, to tell a use before its definition in the same file.
    at: usize,
    /// Whether the use assigns the name (`name = ...`, `a, name = ...`).
    assigned: bool,
}

/// The names of one file: for a helper, what it defines at its top level (`local function x`,
/// `function x`, `local x, y`; a top-level `x = ...` is a definition too when no helper declares
/// `x` local), and for every file what it names elsewhere, and its local names (parameters,
/// locals in blocks, a script's own).
#[derive(Debug, Default)]
struct Names<'a> {
    defs: Vec<(&'a str, Def, usize)>,
    top_assigns: Vec<(&'a str, usize)>,
    uses: Vec<Use<'a>>,
    locals: BTreeSet<&'a str>,
}

/// Reads the names of `code`; `top` is true for a helper (its top level is the library's),
/// false for an operation's file (the body of a function).
fn names<'a>(code: &'a str, top: bool) -> Names<'a> {
    #[derive(Clone, Copy, PartialEq)]
    enum Open {
        Paren,
        Bracket,
        Brace,
        Block,
    }
    let t = lex(code);
    let mut names = Names::default();
    // Per token: the innermost bracket or block around it, and whether it declares a name.
    let mut stack: Vec<Open> = Vec::new();
    let mut inner: Vec<Option<Open>> = Vec::with_capacity(t.len());
    let mut declared = vec![false; t.len()];
    let is = |i: usize, text: &str| t.get(i).is_some_and(|tok| tok.text == text);
    let name_at = |i: usize| t.get(i).is_some_and(|tok| tok.kind == Kind::Name);
    for i in 0..t.len() {
        let at_top = top && stack.is_empty();
        inner.push(stack.last().copied());
        let mut declare = |names: &mut Names<'a>, j: usize, def: Def, at_top: bool| {
            declared[j] = true;
            if at_top {
                names.defs.push((t[j].text, def, j));
            } else {
                names.locals.insert(t[j].text);
            }
        };
        match t[i].text {
            "(" if t[i].kind == Kind::Punct => stack.push(Open::Paren),
            "[" if t[i].kind == Kind::Punct => stack.push(Open::Bracket),
            "{" if t[i].kind == Kind::Punct => stack.push(Open::Brace),
            ")" | "]" | "}" if t[i].kind == Kind::Punct => {
                stack.pop();
            }
            "if" | "do" | "repeat" => stack.push(Open::Block),
            "end" | "until" => {
                stack.pop();
            }
            "function" => {
                stack.push(Open::Block);
                // `local function x` and `function x` (not `function a.b`) define x; then the
                // parameters.
                let mut j = i + 1;
                if name_at(j) && is(j + 1, "(") {
                    declare(&mut names, j, Def::Function, at_top);
                    j += 1;
                }
                while j < t.len() && !is(j, "(") {
                    j += 1;
                }
                while j < t.len() && !is(j, ")") {
                    if name_at(j) {
                        declare(&mut names, j, Def::Variable, false);
                    }
                    j += 1;
                }
            }
            "local" if !is(i + 1, "function") => {
                let mut j = i + 1;
                while name_at(j) {
                    declare(&mut names, j, Def::Variable, at_top);
                    if !is(j + 1, ",") {
                        break;
                    }
                    j += 2;
                }
            }
            "for" => {
                let mut j = i + 1;
                while name_at(j) && !is(j, "in") {
                    declare(&mut names, j, Def::Variable, false);
                    j += if is(j + 1, ",") { 2 } else { 1 };
                }
            }
            _ => {}
        }
    }
    for (i, tok) in t.iter().enumerate() {
        if tok.kind != Kind::Name || declared[i] || KEYWORDS.contains(&tok.text) {
            continue;
        }
        let field = i > 0 && (is(i - 1, ".") || is(i - 1, ":"));
        let followed_by_assign = is(i + 1, "=");
        if field || (inner[i] == Some(Open::Brace) && followed_by_assign) {
            continue;
        }
        // An assignment's targets: `a = ` or `a, b = ` (the names before `=`, by commas).
        let mut j = i;
        while is(j + 1, ",") && name_at(j + 2) {
            j += 2;
        }
        let assigned = is(j + 1, "=") && inner[i] != Some(Open::Brace);
        if top && inner[i].is_none() && assigned {
            names.top_assigns.push((tok.text, i));
        }
        names.uses.push(Use {
            name: tok.text,
            line: tok.line,
            at: i,
            assigned,
        });
    }
    names
}

/// Whether a library-wide name is a constant (or a key name): UPPER_CASE.
fn constant(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase())
}

/// The helpers that `code`'s includes reach: theirs too, transitively.
fn reach<'a>(helpers: &[(&'a str, &'a str)], code: &'a str) -> BTreeSet<&'a str> {
    let direct = |code: &'a str| -> Vec<&'a str> {
        includes(code)
            .unwrap_or_default()
            .iter()
            .map(|i| i.helper)
            .collect()
    };
    let mut seen = BTreeSet::new();
    let mut todo = direct(code);
    while let Some(h) = todo.pop() {
        if seen.insert(h) {
            if let Some((_, c)) = helpers.iter().find(|(n, _)| *n == h) {
                todo.extend(direct(c));
            }
        }
    }
    seen
}

/// Every break of the include rule by `files` (name, code; each with an include line) over the
/// library of `helpers` (name, code): one sentence each, empty when the files keep it.
fn problems(helpers: &[(&str, &str)], files: &[(&str, &str)]) -> Vec<String> {
    let mut out = Vec::new();
    if let Err(e) = library_order(helpers) {
        out.push(e);
    }
    let helper_names: BTreeMap<&str, Names<'_>> = helpers
        .iter()
        .map(|(name, code)| (*name, names(code, true)))
        .collect();
    // Every library-wide name: its helper and kind.
    let mut owner: BTreeMap<&str, (&str, Def, usize)> = BTreeMap::new();
    for (helper, names) in &helper_names {
        for &(name, def, at) in &names.defs {
            if let Some((other, _, _)) = owner.insert(name, (helper, def, at)) {
                out.push(format!(
                    "lib/{other}.lua and lib/{helper}.lua both define {name}"
                ));
            }
        }
    }
    for (helper, names) in &helper_names {
        for &(name, at) in &names.top_assigns {
            if !owner.contains_key(name) {
                owner.insert(name, (helper, Def::Variable, at));
            }
        }
    }
    let all_files = helpers
        .iter()
        .map(|(n, c)| (format!("lib/{n}.lua"), Some(*n), *c))
        .chain(files.iter().map(|(n, c)| (n.to_string(), None, *c)));
    for (file, me, code) in all_files {
        let own;
        let read = match me {
            Some(helper) => &helper_names[helper],
            None => {
                own = names(code, false);
                &own
            }
        };
        let included = match includes(code) {
            Ok(list) => list,
            Err(e) => {
                out.push(format!("{file}: {e}"));
                continue;
            }
        };
        let reached = reach(helpers, code);
        let mut used: BTreeSet<&str> = BTreeSet::new();
        let mut named: BTreeSet<(&str, &str)> = BTreeSet::new();
        for u in &read.uses {
            let Some(&(helper, def, at)) = owner.get(u.name) else {
                continue;
            };
            let line = u.line;
            if Some(helper) == me {
                if u.at < at {
                    out.push(format!(
                        "{file}:{line}: {} is used before it is defined",
                        u.name
                    ));
                }
                continue;
            }
            if read.locals.contains(u.name) {
                out.push(format!(
                    "{file}: a local {} hides lib/{helper}.lua's; name it otherwise",
                    u.name
                ));
                continue;
            }
            used.insert(helper);
            if !reached.contains(helper) {
                out.push(format!(
                    "{file}:{line}: {} is lib/{helper}.lua's, which its includes do not reach",
                    u.name
                ));
            } else if def == Def::Variable && constant(u.name) && u.assigned {
                out.push(format!(
                    "{file}:{line}: assigns {}, which only lib/{helper}.lua assigns",
                    u.name
                ));
            } else if def == Def::Variable && !constant(u.name) {
                let declared = included
                    .iter()
                    .any(|i| i.helper == helper && i.variables.contains(&u.name));
                if declared {
                    named.insert((helper, u.name));
                } else {
                    out.push(format!(
                        "{file}:{line}: names {}, lib/{helper}.lua's own variable: use its \
                         functions, or include it as {helper}({})",
                        u.name, u.name
                    ));
                }
            }
        }
        for include in &included {
            let helper = include.helper;
            if Some(helper) == me {
                out.push(format!("{file} includes itself"));
            } else if !helpers.iter().any(|(n, _)| *n == helper) {
                out.push(format!("{file} includes {helper}, which is no helper"));
            } else if !used.contains(helper) {
                out.push(format!("{file} includes {helper} but names nothing of it"));
            }
            for &v in &include.variables {
                if !named.contains(&(helper, v)) {
                    out.push(format!(
                        "{file} declares {helper}({v}) but names no variable {v} of lib/{helper}.lua"
                    ));
                }
            }
        }
    }
    let mut seen = BTreeSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// The operations' files (name, code) and the registration helper, as [`problems`] reads them.
fn library_files() -> Vec<(String, String)> {
    all()
        .iter()
        .map(|f| (format!("{}.lua", f.stem), f.body.to_string()))
        .chain([(
            "the registration helper".to_string(),
            format!("--! include: call\n{REGISTER}"),
        )])
        .collect()
}

#[test]
fn the_library_keeps_its_include_rule() {
    let files = library_files();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect();
    let found = problems(&HELPERS, &files);
    assert!(found.is_empty(), "\n{}", found.join("\n"));
}

#[test]
fn every_helper_is_reached_from_some_function() {
    let files = library_files();
    let mut todo: Vec<&str> = files
        .iter()
        .flat_map(|(_, code)| includes(code).unwrap_or_default())
        .map(|i| i.helper)
        .collect();
    let mut reached = BTreeSet::new();
    while let Some(h) = todo.pop() {
        if reached.insert(h) {
            let (_, code) = HELPERS.iter().find(|(n, _)| *n == h).expect("a helper");
            todo.extend(includes(code).unwrap_or_default().iter().map(|i| i.helper));
        }
    }
    let unused: Vec<&str> = HELPERS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !reached.contains(n))
        .collect();
    assert!(unused.is_empty(), "no function reaches {unused:?}");
}

#[test]
fn the_lists_name_every_file_of_spec_scripts() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/scripts");
    let stems = |dir: std::path::PathBuf| -> BTreeSet<String> {
        std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| {
                let name = e.expect("a directory entry").file_name();
                name.to_str()?.strip_suffix(".lua").map(str::to_string)
            })
            .collect()
    };
    let helpers: BTreeSet<String> = HELPERS.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(stems(dir.join("lib")), helpers, "HELPERS in scripts.rs");
    let functions: BTreeSet<String> = all().iter().map(|f| f.stem.to_string()).collect();
    assert_eq!(stems(dir), functions, "functions! in scripts.rs");
}

// The checker itself, on small libraries.

const KEYS: &str = "--! include:\n\
    local QUEUE\n\
    local bound = {}\n\
    local function bind_keys(keys) QUEUE = keys[1] bound[1] = true end\n";
const CACHE: &str = "--! include: keys\n\
    local cache = nil\n\
    local DEFAULTS = {stats = 0, [1] = 2}\n\
    local function config(field) cache = cache or redis.call('HGETALL', QUEUE) return cache[field] end\n\
    local function forget() cache = nil end\n";

fn check(extra: &[(&str, &str)], files: &[(&str, &str)]) -> Vec<String> {
    let mut helpers = vec![("keys", KEYS), ("cache", CACHE)];
    helpers.extend_from_slice(extra);
    problems(&helpers, files)
}

#[test]
fn the_checker_passes_what_keeps_the_rule() {
    let body = "--! include: cache\n\
        -- config(QUEUE) in a comment, and 'forget' in a string: neither counts\n\
        local t = {config = 1, QUEUE = 2}\n\
        --[==[ a long comment: bind_keys() ]==]\n\
        local s = [[bind_keys]] .. t.config .. \"x\\\"forget\"\n\
        return {config('stats'), QUEUE, DEFAULTS.stats, s}\n";
    assert_eq!(check(&[], &[("ok.lua", body)]), Vec::<String>::new());
    // A declared variable: cache(cache), with the helper on the line itself.
    let reset =
        "--! include: keys cache(cache)\nlocal function begin(k) bind_keys(k) cache = nil end\n";
    assert_eq!(check(&[("reset", reset)], &[]), Vec::<String>::new());
}

#[test]
fn the_checker_finds_each_break_of_the_rule() {
    // The problems found in one file f.lua over the library of keys and cache.
    let one = |helpers: &[(&str, &str)], body: &str| -> String {
        check(helpers, &[("f.lua", body)]).join("\n")
    };
    // A function of a helper the includes do not reach.
    assert!(one(&[], "--! include: keys\nreturn config('x') and QUEUE")
        .contains("config is lib/cache.lua's, which its includes do not reach"));
    // An include named for nothing.
    assert!(one(&[], "--! include: keys cache\nreturn QUEUE")
        .contains("includes cache but names nothing"));
    // Another helper's variable, read or written, undeclared.
    assert!(one(&[], "--! include: cache\nreturn config('x') and cache")
        .contains("names cache, lib/cache.lua's own variable"));
    // A declared variable that the file does not name.
    assert!(one(&[], "--! include: cache(cache)\nreturn config('x')")
        .contains("declares cache(cache) but names no variable cache"));
    // A constant assigned outside its helper.
    assert!(one(&[], "--! include: keys\nQUEUE = 'x'\nreturn bind_keys").contains("assigns QUEUE"));
    assert!(one(
        &[],
        "--! include: keys\nlocal a\na, QUEUE = 1, 2\nreturn bind_keys"
    )
    .contains("assigns QUEUE"));
    // A local that hides a library-wide name.
    assert!(
        one(&[], "--! include: cache\nlocal config = 1\nreturn config")
            .contains("a local config hides")
    );
    // A helper using its own name before defining it.
    let early =
        "--! include:\nlocal function a() return b() end\nlocal function b() return 1 end\n";
    let found = check(&[("early", early)], &[]);
    assert!(
        found[0].contains("lib/early.lua:2: b is used before it is defined"),
        "{found:?}"
    );
    // A missing include line, and an unknown or malformed include.
    assert!(one(&[], "return 1").contains("not `--! include: ...`"));
    assert!(
        one(&[], "--! include: nothing\nreturn 1").contains("includes nothing, which is no helper")
    );
    assert!(one(&[], "--! include: cache(cache\nreturn cache").contains("no closing parenthesis"));
    // Two helpers that define one name.
    let twice = "--! include:\nlocal function config() end\n";
    assert!(check(&[("twice", twice)], &[])
        .iter()
        .any(|p| p.contains("both define config")));
}

#[test]
fn the_reader_skips_comments_strings_and_fields() {
    let n = names(
        "--! include: x\n\
         local a = \"b\\\"c\" .. 'd' .. [=[ e ]] ]=] -- f\n\
         --[[ g\n h ]] i.j = {k = l, [m] = n}\n\
         o:p(1e-5, 0x1E, .5)\n\
         for q, r in s do local t end\n",
        false,
    );
    let uses: Vec<(&str, usize)> = n.uses.iter().map(|u| (u.name, u.line)).collect();
    assert_eq!(
        uses,
        [("i", 4), ("l", 4), ("m", 4), ("n", 4), ("o", 5), ("s", 6)]
    );
    assert_eq!(n.locals, BTreeSet::from(["a", "q", "r", "t"]));
    let top = names(
        "--! include:\nlocal A, b = 1, {}\nfunction c(d) local e = d end\nlocal function f() end\ng = 1\nb.h = 2\n",
        true,
    );
    let defs: Vec<(&str, Def)> = top.defs.iter().map(|&(n, d, _)| (n, d)).collect();
    assert_eq!(
        defs,
        [
            ("A", Def::Variable),
            ("b", Def::Variable),
            ("c", Def::Function),
            ("f", Def::Function)
        ]
    );
    assert_eq!(
        top.top_assigns.iter().map(|a| a.0).collect::<Vec<_>>(),
        ["g"]
    );
    assert_eq!(top.locals, BTreeSet::from(["d", "e"]));
}
