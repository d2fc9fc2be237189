//! Printing: aligned tables for people (colour only on a terminal), JSON for scripts.

use std::io::{IsTerminal, Write};

use serde::Serialize;

/// Set once a write to standard output failed (it was closed): see [`closed`].
static CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes one line to standard output (the `say!` macro); a failed write (the reader went
/// away) marks the output [`closed`] instead of panicking.
pub fn line(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if out
        .write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .is_err()
    {
        CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Writes one line to standard error (the `tell!` macro), losing it when that is closed.
pub fn tell(args: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// Whether standard output was found closed: a command that prints as it goes (`events
/// --follow`, `stats --watch`) stops then.
pub fn closed() -> bool {
    CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether standard output is a terminal that wants colour (`NO_COLOR` turns it off).
pub fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// `text` in bold (header) when colour is on.
pub fn bold(text: &str) -> String {
    paint(text, "1")
}

/// `text` in red when colour is on.
pub fn red(text: &str) -> String {
    paint(text, "31")
}

/// `text` in green when colour is on.
pub fn green(text: &str) -> String {
    paint(text, "32")
}

/// `text` in yellow when colour is on.
pub fn yellow(text: &str) -> String {
    paint(text, "33")
}

fn paint(text: &str, code: &str) -> String {
    if colour() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// Prints `value` as pretty JSON and a newline.
pub fn json<T: Serialize + ?Sized>(value: &T) {
    let mut out = std::io::stdout().lock();
    let written = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out));
    if written.is_err() {
        CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A table: a header row, then rows; columns padded to their widest cell (by characters).
pub fn table(header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<String>| {
        let last = cells.len().saturating_sub(1);
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == last {
                    c.clone()
                } else {
                    format!("{c}{}", " ".repeat(widths[i] - c.chars().count()))
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut out = std::io::stdout().lock();
    let head = line(header.iter().map(|h| h.to_string()).collect());
    let mut written = writeln!(out, "{}", bold(&head));
    for row in rows {
        written = written.and_then(|()| writeln!(out, "{}", line(row.clone())));
    }
    if written.is_err() {
        CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Milliseconds since the epoch as UTC `YYYY-MM-DD HH:MM:SS`, or `-`.
pub fn time(ms: Option<u64>) -> String {
    match ms {
        Some(ms) => humantime::format_rfc3339_seconds(
            std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms),
        )
        .to_string()
        .replace('T', " ")
        .trim_end_matches('Z')
        .to_owned(),
        None => "-".to_owned(),
    }
}

/// A duration in seconds for people: `4.2s`, `3m12s`, `2h05m`, or `-`.
pub fn age(secs: Option<f64>) -> String {
    match secs {
        None => "-".to_owned(),
        Some(s) if s < 60.0 => format!("{s:.1}s"),
        Some(s) if s < 3600.0 => format!("{}m{:02}s", (s / 60.0) as u64, (s % 60.0) as u64),
        Some(s) => format!(
            "{}h{:02}m",
            (s / 3600.0) as u64,
            ((s % 3600.0) / 60.0) as u64
        ),
    }
}

/// `text` as one shell word: as is when it holds only characters no shell treats specially,
/// else in single quotes (a `'` inside as `'\''`).
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@%+=,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("jobs:a-1"), "jobs:a-1");
        assert_eq!(shell_word("{emails}"), "'{emails}'");
        assert_eq!(shell_word("a*[1]"), "'a*[1]'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn times_and_ages() {
        assert_eq!(time(Some(0)), "1970-01-01 00:00:00");
        assert_eq!(time(None), "-");
        assert_eq!(age(Some(4.25)), "4.2s");
        assert_eq!(age(Some(192.0)), "3m12s");
        assert_eq!(age(Some(7500.0)), "2h05m");
    }
}
