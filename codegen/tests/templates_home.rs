//! The templates have one home, the repository's top-level `templates/`:
//! `codegen/templates` (which askama reads and `cargo package` carries) is a
//! symlink to it, never a second copy that could drift.

use std::path::Path;

#[test]
fn codegen_templates_is_the_top_level_folder() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let door = crate_dir.join("templates");
    let meta = std::fs::symlink_metadata(&door).expect("codegen/templates exists");
    if !meta.file_type().is_symlink() {
        // A packaged crate (cargo package follows the link) holds the files
        // themselves; only the repository must have the link.
        assert!(
            !crate_dir.join("../templates").exists(),
            "codegen/templates is a folder of its own beside the top-level templates/: \
             keep one, and make codegen/templates a symlink to ../templates"
        );
        return;
    }
    assert_eq!(
        std::fs::read_link(&door).expect("read the link"),
        Path::new("../templates")
    );
    for target in ["rust", "python", "typescript", "docs"] {
        assert!(door.join(target).is_dir(), "templates/{target} is missing");
    }
}
