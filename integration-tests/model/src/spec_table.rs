//! The transition tables of spec/PROTOCOL.md 8.1, as the models' tests read them to hold each
//! row to the actions that make it.

/// The (from, to) cells of each row of the first table after the line that contains `title`;
/// panics when there is no such line.
pub fn transition_rows(spec: &str, title: &str) -> Vec<(String, String)> {
    let start = spec
        .find(title)
        .unwrap_or_else(|| panic!("spec/PROTOCOL.md has no `{title}`"));
    spec[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].to_string(), cells[2].to_string())
        })
        .collect()
}
