//! The input of a command: a file, or standard input when absent or `-`.

use std::io::Read;
use std::path::Path;

/// Opens `path`, or standard input for `None` and `-`; the error is a
/// sentence for the command to print before exiting with status 2.
pub fn open(path: Option<&Path>) -> Result<Box<dyn Read>, String> {
    match path {
        None => Ok(Box::new(std::io::stdin())),
        Some(path) if path.as_os_str() == "-" => Ok(Box::new(std::io::stdin())),
        Some(path) => std::fs::File::open(path)
            .map(|file| Box::new(file) as Box<dyn Read>)
            .map_err(|error| format!("cannot open {}: {error}", path.display())),
    }
}
