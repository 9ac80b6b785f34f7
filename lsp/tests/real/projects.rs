//! The small projects the real language servers are asked about: one
//! program in six languages. A file defines `greet` and `shout` (which
//! calls `greet`); another uses both; a third is the scratch file whose
//! text is edited to a broken one and back for diagnostics. Places are a
//! person's (1-based line and column, columns in characters); `{root}` in a
//! file's text stands for the project's root.

/// A project and what is asked of it.
pub struct Project {
    /// The LSP language id of its files.
    pub language: &'static str,
    /// Every file, by its path under the root, with its text on disk.
    pub files: &'static [(&'static str, &'static str)],
    /// The file that defines `greet` and `shout`.
    pub greet: &'static str,
    /// The file that uses them.
    pub main: &'static str,
    /// `greet`'s name where it is defined, in [`Project::greet`].
    pub greet_definition: (u32, u32),
    /// `shout`'s name where it is defined, in [`Project::greet`].
    pub shout_definition: (u32, u32),
    /// A use of `greet` in [`Project::main`].
    pub greet_use: (u32, u32),
    /// Places (file name, line, column) that must be among `greet`'s references.
    pub references: &'static [(&'static str, u32, u32)],
    /// What a rename of `greet` to `hello` does to each file: (file, text, replaced by).
    pub renamed: &'static [(&'static str, &'static str, &'static str)],
    /// The scratch file and its clean text (on disk too).
    pub scratch: (&'static str, &'static str),
}

/// A broken text for the scratch file, and the error it must give: a word
/// of its message and the first line it may be on.
pub struct Broken {
    pub text: &'static str,
    pub needle: &'static str,
    pub line: u32,
}

pub const PYTHON: Project = Project {
    language: "python",
    files: &[
        ("greet.py", "def greet(name):\n    return \"hello \" + name\n\n\ndef shout(name):\n    return greet(name).upper()\n"),
        ("main.py", "from greet import greet, shout\n\nprint(greet(\"x\"))\nprint(shout(\"y\"))\n"),
        ("c.py", "import sys\n\n\ndef f():\n    return sys.argv\n"),
    ],
    greet: "greet.py",
    main: "main.py",
    greet_definition: (1, 5),
    shout_definition: (5, 5),
    greet_use: (3, 7),
    references: &[("greet.py", 1, 5), ("greet.py", 6, 12), ("main.py", 3, 7)],
    renamed: &[
        ("greet.py", "greet(", "hello("),
        ("main.py", "import greet,", "import hello,"),
        ("main.py", "greet(", "hello("),
    ],
    scratch: ("c.py", "import sys\n\n\ndef f():\n    return sys.argv\n"),
};

pub const PYTHON_UNDEFINED: Broken = Broken {
    text: "import sys\n\n\ndef f():\n    return undefined_name\n",
    needle: "undefined_name",
    line: 5,
};

/// jedi-language-server reports syntax errors only.
pub const PYTHON_SYNTAX_ERROR: Broken = Broken {
    text: "import sys\n\n\ndef f():\n    return (sys.argv\n",
    needle: "",
    line: 5,
};

/// clangd finds other files through `compile_commands.json` (its
/// background index); without it, references stop at the open files.
pub const C: Project = Project {
    language: "c",
    files: &[
        ("greet.h", "int greet(int name);\nint shout(int name);\n"),
        ("greet.c", "#include \"greet.h\"\n\nint greet(int name) {\n  return name + 1;\n}\n\nint shout(int name) {\n  return greet(name) * 2;\n}\n"),
        ("main.c", "#include \"greet.h\"\n\nint main(void) {\n  return greet(1) + shout(2);\n}\n"),
        ("c.c", "int f(void) {\n  return 1;\n}\n"),
        (
            "compile_commands.json",
            "[{\"directory\": \"{root}\", \"file\": \"greet.c\", \"arguments\": [\"cc\", \"-c\", \"greet.c\"]},\n {\"directory\": \"{root}\", \"file\": \"main.c\", \"arguments\": [\"cc\", \"-c\", \"main.c\"]},\n {\"directory\": \"{root}\", \"file\": \"c.c\", \"arguments\": [\"cc\", \"-c\", \"c.c\"]}]\n",
        ),
    ],
    greet: "greet.c",
    main: "main.c",
    greet_definition: (3, 5),
    shout_definition: (7, 5),
    greet_use: (4, 10),
    references: &[("greet.c", 3, 5), ("greet.c", 8, 10), ("main.c", 4, 10), ("greet.h", 1, 5)],
    renamed: &[
        ("greet.c", "greet(", "hello("),
        ("main.c", "greet(", "hello("),
        ("greet.h", "greet(", "hello("),
    ],
    scratch: ("c.c", "int f(void) {\n  return 1;\n}\n"),
};

pub const C_UNDEFINED: Broken = Broken {
    text: "int f(void) {\n  return undefined_name;\n}\n",
    needle: "undefined_name",
    line: 2,
};

pub const GO: Project = Project {
    language: "go",
    files: &[
        ("go.mod", "module example.com/greet\n\ngo 1.19\n"),
        ("greet.go", "package main\n\nfunc greet(name string) string {\n\treturn \"hello \" + name\n}\n\nfunc shout(name string) string {\n\treturn greet(name) + \"!\"\n}\n"),
        ("main.go", "package main\n\nfunc main() {\n\tprintln(greet(\"x\"), shout(\"y\"))\n}\n"),
        ("c.go", "package main\n\nfunc f() string {\n\treturn \"x\"\n}\n"),
    ],
    greet: "greet.go",
    main: "main.go",
    greet_definition: (3, 6),
    shout_definition: (7, 6),
    greet_use: (4, 10),
    references: &[("greet.go", 3, 6), ("greet.go", 8, 9), ("main.go", 4, 10)],
    renamed: &[("greet.go", "greet(", "hello("), ("main.go", "greet(", "hello(")],
    scratch: ("c.go", "package main\n\nfunc f() string {\n\treturn \"x\"\n}\n"),
};

pub const GO_UNDEFINED: Broken = Broken {
    text: "package main\n\nfunc f() string {\n\treturn undefinedName\n}\n",
    needle: "undefinedName",
    line: 4,
};

pub const TYPESCRIPT: Project = Project {
    language: "typescript",
    files: &[
        ("tsconfig.json", "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}, \"include\": [\"src\"]}\n"),
        ("src/greet.ts", "export function greet(name: string): string {\n  return \"hello \" + name;\n}\n\nexport function shout(name: string): string {\n  return greet(name).toUpperCase();\n}\n"),
        ("src/main.ts", "import { greet, shout } from \"./greet\";\n\nconsole.log(greet(\"x\"), shout(\"y\"));\n"),
        ("src/c.ts", "export function f(): number {\n  return 1;\n}\n"),
    ],
    greet: "src/greet.ts",
    main: "src/main.ts",
    greet_definition: (1, 17),
    shout_definition: (5, 17),
    greet_use: (3, 13),
    references: &[("greet.ts", 1, 17), ("greet.ts", 6, 10), ("main.ts", 1, 10), ("main.ts", 3, 13)],
    renamed: &[
        ("src/greet.ts", "greet(", "hello("),
        ("src/main.ts", "{ greet,", "{ hello,"),
        ("src/main.ts", "greet(", "hello("),
    ],
    scratch: ("src/c.ts", "export function f(): number {\n  return 1;\n}\n"),
};

pub const TYPESCRIPT_UNDEFINED: Broken = Broken {
    text: "export function f(): number {\n  return undefinedName;\n}\n",
    needle: "undefinedName",
    line: 2,
};

/// bash-language-server's diagnostics come from shellcheck (Debian's package).
pub const BASH: Project = Project {
    language: "shellscript",
    files: &[
        ("greet.sh", "#!/usr/bin/env bash\n\ngreet() {\n  echo \"hello $1\"\n}\n\nshout() {\n  greet \"$1\" | tr a-z A-Z\n}\n"),
        ("main.sh", "#!/usr/bin/env bash\n# shellcheck source=greet.sh\nsource ./greet.sh\n\ngreet x\nshout y\n"),
        ("c.sh", "#!/usr/bin/env bash\n\nf() {\n  if [ -n \"$1\" ]; then\n    echo x\n  fi\n}\n"),
    ],
    greet: "greet.sh",
    main: "main.sh",
    greet_definition: (3, 1),
    shout_definition: (7, 1),
    greet_use: (5, 1),
    references: &[("greet.sh", 3, 1), ("greet.sh", 8, 3), ("main.sh", 5, 1)],
    renamed: &[
        ("greet.sh", "greet()", "hello()"),
        ("greet.sh", "  greet \"", "  hello \""),
        ("main.sh", "\ngreet x", "\nhello x"),
    ],
    scratch: ("c.sh", "#!/usr/bin/env bash\n\nf() {\n  if [ -n \"$1\" ]; then\n    echo x\n  fi\n}\n"),
};

pub const BASH_UNCLOSED_IF: Broken = Broken {
    text: "#!/usr/bin/env bash\n\nf() {\n  if [ -n \"$1\" ]; then\n    echo x\n}\n",
    needle: "fi",
    line: 4,
};

pub const RUST: Project = Project {
    language: "rust",
    files: &[
        ("Cargo.toml", "[package]\nname = \"greet\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n"),
        ("src/greet.rs", "pub fn greet(name: &str) -> String {\n    format!(\"hello {name}\")\n}\n\npub fn shout(name: &str) -> String {\n    greet(name).to_uppercase()\n}\n"),
        ("src/main.rs", "mod c;\nmod greet;\n\nuse greet::{greet, shout};\n\nfn main() {\n    println!(\"{} {} {}\", greet(\"x\"), shout(\"y\"), c::f());\n}\n"),
        ("src/c.rs", "pub fn f() -> u32 {\n    1\n}\n"),
    ],
    greet: "src/greet.rs",
    main: "src/main.rs",
    greet_definition: (1, 8),
    shout_definition: (5, 8),
    greet_use: (7, 26),
    references: &[("greet.rs", 1, 8), ("greet.rs", 6, 5), ("main.rs", 4, 13), ("main.rs", 7, 26)],
    renamed: &[
        ("src/greet.rs", "greet(", "hello("),
        ("src/main.rs", "{greet,", "{hello,"),
        ("src/main.rs", "greet(", "hello("),
    ],
    scratch: ("src/c.rs", "pub fn f() -> u32 {\n    1\n}\n"),
};

/// rust-analyzer's own diagnostics (cargo check runs on save only, and
/// nothing is saved) know a type mismatch but not an unresolved name.
pub const RUST_MISMATCH: Broken = Broken {
    text: "pub fn f() -> u32 {\n    \"x\"\n}\n",
    needle: "u32",
    line: 2,
};
