"""Side effects of one function, from its `ast`, mapped to Gaze's taxonomy.

* `return <value>`: ReturnValue; `yield`: GeneratorYield; `raise X`: ErrorReturn;
* `self.x = ...` (also augmented, subscripted, deleted): ReceiverMutation;
* assigning into, or calling a mutating method of, a parameter: PointerArgMutation;
* assigning a name declared `global`: GlobalMutation;
* `open(..., "w")`, `Path.write_text`, `json.dump`, ...: FileSystemWrite;
  `os.remove`, `shutil.rmtree`, ...: FileSystemDelete; `open(...)` for
  reading: ResourceManagement (a file handle acquired; reading itself
  changes nothing observable, so `read_text` and the like are no effect);
* `requests.get`, `urllib.request.urlopen`, `socket.create_connection`, ...:
  StreamOutput (bytes sent to a peer);
* `subprocess.run`, `os.system`, ...: GoroutineSpawn (Gaze's
  language-neutral AsyncTaskSpawn: another process runs);
* `print(...)`: StdoutWrite, or StderrWrite with `file=sys.stderr`;
  `sys.stdout.write` / `sys.stderr.write` likewise; `logging.*`: LogWrite;
* `threading.Thread`, `asyncio.create_task`, ...: GoroutineSpawn;
* `sys.exit`, `os._exit`: ProcessExit; `os.environ[...] = ...`: EnvVarMutation.

Every type is one of the 48 of Gaze's taxonomy (`wirekit.gaze.TAXONOMY`):
a type outside it costs one host warning per effect and lands in P4.
Calls are recognised by their dotted name as written (`os.remove`,
`requests.get`), the way a reader recognises them.
"""

from __future__ import annotations

import ast
from typing import Optional

from .complexity import own_nodes
from .project import Function

MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "add",
     "discard", "setdefault", "sort", "reverse", "__setitem__", "__delitem__"}
)
WRITE_CALLS = {
    "json.dump": "serialises JSON to a file",
    "pickle.dump": "pickles to a file",
    "shutil.copy": "copies a file",
    "shutil.copyfile": "copies a file",
    "shutil.copytree": "copies a folder",
    "shutil.move": "moves a file",
    "os.rename": "renames a file",
    "os.replace": "replaces a file",
}
WRITE_METHODS = frozenset({"write_text", "write_bytes", "touch", "mkdir"})
DELETE_CALLS = frozenset({"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "shutil.rmtree"})
DELETE_METHODS = frozenset({"unlink", "rmdir"})
NETWORK_PREFIXES = ("requests.", "httpx.", "urllib.request.", "http.client.", "aiohttp.")
NETWORK_CALLS = frozenset(
    {"urlopen", "socket.socket", "socket.create_connection", "smtplib.SMTP", "ftplib.FTP"}
)
SUBPROCESS_CALLS = frozenset(
    {"subprocess.run", "subprocess.Popen", "subprocess.call", "subprocess.check_call",
     "subprocess.check_output", "os.system", "os.popen", "os.spawnv", "os.execv",
     "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell"}
)
SPAWN_CALLS = frozenset(
    {"threading.Thread", "Thread", "asyncio.create_task", "asyncio.ensure_future",
     "multiprocessing.Process", "concurrent.futures.ThreadPoolExecutor"}
)
EXIT_CALLS = frozenset({"sys.exit", "os._exit", "exit", "quit"})
LOG_PREFIXES = ("logging.", "logger.", "log.", "self.logger.", "self.log.")
LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def dotted(node: ast.AST) -> Optional[str]:
    """`a.b.c` for a name or an attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = dotted(node.func)
        if inner is not None:
            parts.append(inner + "()")
            return ".".join(reversed(parts))
    return None


def root_name(node: ast.AST) -> Optional[str]:
    """The name at the bottom of `a.b[c].d`."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def open_mode(call: ast.Call) -> str:
    mode: ast.AST | None = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return mode.value
    return "r"


class EffectFinder:
    """Collects the side effects of one function."""

    def __init__(self, function: Function) -> None:
        self.function = function
        node = function.node
        args = node.args
        names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
        if args.vararg:
            names.append(args.vararg.arg)
        if args.kwarg:
            names.append(args.kwarg.arg)
        self.receiver = names[0] if function.is_method and names and names[0] in ("self", "cls") else None
        self.parameters = {n for n in names if n != self.receiver}
        self.globals: set[str] = set()
        self.locals: set[str] = set()
        self.effects: list[dict[str, object]] = []
        self._seen: set[tuple[str, str]] = set()

    def location(self, node: ast.AST) -> str:
        line = getattr(node, "lineno", self.function.line)
        column = getattr(node, "col_offset", 0) + 1
        return f"{self.function.file}:{line}:{column}"

    def add(self, kind: str, node: ast.AST, description: str, target: str) -> None:
        key = (kind, target)
        if key in self._seen:
            return
        self._seen.add(key)
        self.effects.append(
            {"type": kind, "description": description, "location": self.location(node), "target": target}
        )

    def assigned(self, target: ast.AST, node: ast.AST, verb: str) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for item in target.elts:
                self.assigned(item, node, verb)
            return
        if isinstance(target, ast.Starred):
            self.assigned(target.value, node, verb)
            return
        if isinstance(target, ast.Name):
            if target.id in self.globals:
                self.add("GlobalMutation", node, f"{verb} module global {target.id}", target.id)
            return
        name = root_name(target)
        text = dotted(target) or (ast.unparse(target) if hasattr(ast, "unparse") else name or "?")
        if name is None:
            return
        if name == self.receiver:
            self.add("ReceiverMutation", node, f"{verb} {text}", text)
        elif name in self.parameters:
            self.add("PointerArgMutation", node, f"{verb} {text} of argument {name}", name)
        elif self.is_global(name):
            self.add("GlobalMutation", node, f"{verb} module global {text}", name)
        elif text.startswith("os.environ"):
            self.add("EnvVarMutation", node, f"{verb} an environment variable", "os.environ")

    def call(self, call: ast.Call) -> None:
        name = dotted(call.func) or ""
        last = name.rsplit(".", 1)[-1]
        if name == "print":
            stream = next((k.value for k in call.keywords if k.arg == "file"), None)
            stream_name = dotted(stream) if stream is not None else "sys.stdout"
            if stream_name == "sys.stderr":
                self.add("StderrWrite", call, "prints to stderr", "sys.stderr")
            elif stream_name in ("sys.stdout", None):
                self.add("StdoutWrite", call, "prints to stdout", "sys.stdout")
            else:
                self.add("WriterOutput", call, f"prints to {stream_name}", stream_name or "file")
        elif name in ("sys.stdout.write", "sys.stdout.writelines"):
            self.add("StdoutWrite", call, "writes to stdout", "sys.stdout")
        elif name in ("sys.stderr.write", "sys.stderr.writelines"):
            self.add("StderrWrite", call, "writes to stderr", "sys.stderr")
        elif name in ("open", "io.open", "os.open") or last == "open" and name.endswith(".open"):
            mode = open_mode(call)
            target = ast.unparse(call.args[0]) if call.args and hasattr(ast, "unparse") else "file"
            if any(flag in mode for flag in "wax+"):
                self.add("FileSystemWrite", call, f"opens {target} for writing (mode {mode!r})", target)
            else:
                self.add("ResourceManagement", call, f"opens {target} for reading", target)
        elif name in WRITE_CALLS:
            self.add("FileSystemWrite", call, WRITE_CALLS[name], name)
        elif name in DELETE_CALLS or (last in DELETE_METHODS and "." in name):
            self.add("FileSystemDelete", call, f"deletes with {name}", name)
        elif last in WRITE_METHODS and "." in name:
            self.add("FileSystemWrite", call, f"writes with {name}", name)
        elif name.startswith(NETWORK_PREFIXES) or name in NETWORK_CALLS or last == "urlopen":
            self.add("StreamOutput", call, f"calls the network with {name}", name)
        elif name in SUBPROCESS_CALLS:
            self.add("GoroutineSpawn", call, f"runs a subprocess with {name}", name)
        elif name in SPAWN_CALLS:
            self.add("GoroutineSpawn", call, f"starts concurrent work with {name}", name)
        elif name in EXIT_CALLS:
            self.add("ProcessExit", call, f"exits the process with {name}", name)
        elif name.startswith(LOG_PREFIXES) and last in LOG_LEVELS:
            self.add("LogWrite", call, f"logs with {name}", name)
        elif name in ("os.putenv", "os.unsetenv", "os.environ.update", "os.environ.pop",
                      "os.environ.setdefault"):
            self.add("EnvVarMutation", call, f"changes the environment with {name}", "os.environ")
        elif isinstance(call.func, ast.Attribute) and last in MUTATING_METHODS:
            owner = root_name(call.func.value)
            text = dotted(call.func.value) or owner or "?"
            if owner == self.receiver and owner is not None:
                self.add("ReceiverMutation", call, f"mutates {text} with .{last}()", text)
            elif owner in self.parameters:
                self.add("PointerArgMutation", call, f"mutates argument {owner} with .{last}()", owner or "")
            elif self.is_global(owner):
                self.add("GlobalMutation", call, f"mutates module global {text} with .{last}()", owner or "")

    def is_global(self, name: Optional[str]) -> bool:
        """A module global: declared `global`, or a module-level name the
        function neither takes nor assigns."""
        if name is None:
            return False
        if name in self.globals:
            return True
        return (
            name in self.function.module_names
            and name not in self.parameters
            and name not in self.locals
            and name != self.receiver
        )

    def find(self) -> list[dict[str, object]]:
        for node in own_nodes(self.function.node):
            if isinstance(node, ast.Global):
                self.globals.update(node.names)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)
        self.locals -= self.globals
        for node in own_nodes(self.function.node):
            if isinstance(node, ast.Return) and node.value is not None:
                if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                    target = dotted(node.value) or type(node.value).__name__.lower()
                    self.add("ReturnValue", node, "returns a value", target)
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                self.add("GeneratorYield", node, "yields values", "yield")
            elif isinstance(node, ast.Raise):
                exc = node.exc
                if isinstance(exc, ast.Call):
                    exc = exc.func
                target = (dotted(exc) if exc is not None else None) or "re-raise"
                self.add("ErrorReturn", node, f"raises {target}", target)
            elif isinstance(node, ast.Assign):
                for assigned in node.targets:
                    self.assigned(assigned, node, "assigns")
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                if node.value is not None or isinstance(node, ast.AugAssign):
                    self.assigned(node.target, node, "updates" if isinstance(node, ast.AugAssign) else "assigns")
            elif isinstance(node, ast.Delete):
                for deleted in node.targets:
                    if not isinstance(deleted, ast.Name):
                        self.assigned(deleted, node, "deletes")
            elif isinstance(node, ast.Call):
                self.call(node)
        return self.effects


def side_effects(function: Function) -> list[dict[str, object]]:
    """The side effects of `function`, in source order of first occurrence."""
    effects = EffectFinder(function).find()
    return sorted(effects, key=lambda e: tuple(int(p) for p in str(e["location"]).rsplit(":", 2)[1:]))
