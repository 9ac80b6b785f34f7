//! The `wirekit` command.
fn main() {}
