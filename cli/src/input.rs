//! The input of a command: a file, or standard input when absent or `-`.
//! Every error, opening or reading, names the file.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Opens `path`, or standard input for `None` and `-`; the error is a
/// sentence naming the path, for the command to print before exiting with
/// status 2. Read errors later name the path too.
pub fn open(path: Option<&Path>) -> Result<Box<dyn Read>, String> {
    match path {
        None => Ok(Box::new(std::io::stdin())),
        Some(path) if path.as_os_str() == "-" => Ok(Box::new(std::io::stdin())),
        Some(path) if path.is_dir() => Err(format!(
            "cannot read {}: it is a directory, not a file",
            path.display()
        )),
        Some(path) => std::fs::File::open(path)
            .map(|file| {
                Box::new(Named {
                    inner: file,
                    path: path.to_path_buf(),
                }) as Box<dyn Read>
            })
            .map_err(|error| format!("cannot open {}: {error}", path.display())),
    }
}

/// A reader whose errors say which file they came from.
struct Named<R> {
    inner: R,
    path: PathBuf,
}

impl<R: Read> Read for Named<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|error| {
            std::io::Error::new(
                error.kind(),
                format!("cannot read {}: {error}", self.path.display()),
            )
        })
    }
}
