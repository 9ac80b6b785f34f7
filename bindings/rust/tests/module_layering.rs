//! The core's files are layered: inside a module, no two files import each
//! other, directly or around a longer circle (`use super::x` and
//! `super::x::` paths; test modules and comments left out). Where two files need the
//! same thing, a lower file owns it (issue 29 undid five such circles).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each source file (path below `src/`) and the sibling files it imports.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(src, &mut files);
    let mut graph = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("below src");
        let dir = relative.parent().unwrap_or(Path::new(""));
        let text = std::fs::read_to_string(&file).expect("read file");
        // What a test module imports is not the layering, nor is a link in
        // the docs.
        let code: String = text
            .split("#[cfg(test)]")
            .next()
            .unwrap_or("")
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut deps = BTreeSet::new();
        for (index, _) in code.match_indices("super::") {
            let name: String = code[index + "super::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            let sibling = dir.join(format!("{name}.rs"));
            if !name.is_empty() && src.join(&sibling).is_file() {
                deps.insert(sibling.display().to_string());
            }
        }
        graph.insert(relative.display().to_string(), deps);
    }
    graph
}

/// A circle through `start`, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_owned(), vec![start.to_owned()])];
    let mut seen = BTreeSet::new();
    while let Some((node, path)) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if next == start {
                return Some(path.clone());
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_file_of_the_core_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = imports(&src);
    assert!(graph.len() > 50, "read {} files only", graph.len());
    let circles: Vec<String> = graph
        .keys()
        .filter_map(|file| circle(&graph, file))
        .map(|path| format!("{} -> {}", path.join(" -> "), path[0]))
        .collect();
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}
