#!/usr/bin/env python3
"""A fake language server for wirekit-lsp's tests (standard library only).

It does what real servers rarely do, on cue. The line of a request's
position picks the answer's dialect:

  definition/references  0 Location, 1 Location[], 2 LocationLink[], 3 null,
                         4 a list whose third entry lies (negative character),
                         6 a body that is not JSON-RPC, 7 a framing fault,
                         8 a crash mid-request, 9 an answer after 1.5 s,
                         10 an answer to the id plus 1000 (a wrong id)
  hover                  0 string, 1 {language, value}, 2 MarkedString[],
                         3 MarkupContent, 4 null
  prepareRename          0 Range, 1 {range, placeholder}, 2 {defaultBehavior}, 3 null
  rename                 newName "resource": documentChanges with a rename op,
                         "changes": the `changes` dialect, "apply": first asks the
                         client to workspace/applyEdit; otherwise documentChanges
  documentSymbol         a URI ending in flat.py: SymbolInformation[] (containerName
                         "m"; in flat_uncontained.py, ""); else DocumentSymbol[]

Options: --log FILE (every message received, one JSON line each, plus the
client's answers to the server's requests), --no-hover (hoverProvider not
advertised), --progress forever|brief, --unversioned (publications without
version), --load-fails (an error-level logMessage, then null answers),
--ignore-exit (never exits on `exit`), --no-symbols (no documentSymbolProvider),
--empty-first (a publication with errors goes out as an empty list first, the
errors 250 ms later), --never-publishes (no diagnostics at all, as a server
that failed to read its settings), --configuration-items JSON (the items of
the workspace/configuration request sent after `initialized`; by default
the sections `fake` and `other`), --hover-asks (a hover asks
workspace/configuration and is answered only once the client answered).
"""

import argparse
import json
import sys
import threading
import time

ARGS = None
OUT = sys.stdout.buffer
LOCK = threading.Lock()
NEXT_ID = [1000]


def log(entry):
    if ARGS.log:
        with open(ARGS.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


def write_raw(data):
    with LOCK:
        OUT.write(data)
        OUT.flush()


def send(message):
    message["jsonrpc"] = "2.0"
    body = json.dumps(message).encode("utf-8")
    write_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def answer(request_id, result):
    send({"id": request_id, "result": result})


def ask(method, params):
    NEXT_ID[0] += 1
    send({"id": NEXT_ID[0], "method": method, "params": params})
    return NEXT_ID[0]


def notify(method, params):
    send({"method": method, "params": params})


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.rstrip(b"\r\n")
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    body = stream.read(length or 0)
    return json.loads(body)


def rng(a, b, c, d):
    return {"start": {"line": a, "character": b}, "end": {"line": c, "character": d}}


def capabilities():
    caps = {
        "textDocumentSync": {"openClose": True, "change": 1},
        "definitionProvider": True,
        "referencesProvider": {"workDoneProgress": False},
        "hoverProvider": True,
        "documentSymbolProvider": True,
        "renameProvider": {"prepareProvider": True},
        "callHierarchyProvider": True,
        "unknownFutureProvider": {"x": 1},
    }
    if ARGS.no_hover:
        del caps["hoverProvider"]
    if ARGS.no_symbols:
        del caps["documentSymbolProvider"]
    return caps


def locations(line, uri):
    here = {"uri": uri, "range": rng(10, 4, 10, 7), "unknown": "ignored"}
    if line == 0:
        return here
    if line == 1:
        return [here, {"uri": uri, "range": rng(11, 0, 11, 3)}]
    if line == 2:
        return [{"targetUri": uri, "targetRange": rng(9, 0, 12, 0), "targetSelectionRange": rng(10, 4, 10, 7)}]
    if line == 3:
        return None
    if line == 4:
        return [here, here, {"uri": uri, "range": rng(1, -1, 1, 2)}]
    return []


def hover(line):
    shapes = [
        "plain **markdown**",
        {"language": "python", "value": "def f() -> int"},
        ["first", {"language": "python", "value": "x: int"}],
        {"kind": "plaintext", "value": "an int"},
    ]
    return {"contents": shapes[line], "range": rng(line, 0, line, 1)} if line < 4 else None


def symbols(uri):
    if uri.endswith("flat.py") or uri.endswith("flat_uncontained.py"):
        container = "" if uri.endswith("flat_uncontained.py") else "m"
        return [{"name": "f", "kind": 12, "location": {"uri": uri, "range": rng(0, 0, 1, 0)}, "containerName": container}]
    return [{"name": "C", "kind": 5, "range": rng(0, 0, 3, 0), "selectionRange": rng(0, 6, 0, 7),
             "children": [{"name": "m", "kind": 6, "range": rng(1, 4, 2, 0), "selectionRange": rng(1, 8, 1, 9)}]}]


ITEM = {"name": "f", "kind": 12, "uri": "file:///fake/a.py", "range": rng(0, 0, 2, 0),
        "selectionRange": rng(0, 4, 0, 5), "data": {"server-state": [1, {"deep": True}]}}


def publish(uri, version, text):
    if ARGS.never_publishes:
        return
    diagnostics = []
    for number, line in enumerate(text.splitlines()):
        if "ERROR" in line:
            diagnostics.append({"range": rng(number, 0, number, len(line)), "message": "an error here", "source": "fake"})
        if "WARN" in line:
            diagnostics.append({"range": rng(number, 0, number, 1), "message": "a warning", "severity": 2})
        if "CODED" in line:
            diagnostics.append({"range": rng(number, 0, number, 1), "message": "numbered", "code": 2322})
            diagnostics.append({"range": rng(number, 0, number, 1), "message": "named", "code": "E501"})
    params = {"uri": uri, "diagnostics": diagnostics}
    if not ARGS.unversioned:
        params["version"] = version
    if ARGS.empty_first and diagnostics:
        # As typescript-language-server does: an empty list at once, the errors a moment later.
        notify("textDocument/publishDiagnostics", dict(params, diagnostics=[]))
        threading.Timer(0.25, notify, ("textDocument/publishDiagnostics", params)).start()
        return
    notify("textDocument/publishDiagnostics", params)


def rename(request_id, params, waiting):
    uri = params["textDocument"]["uri"]
    name = params["newName"]
    edit = {"textDocument": {"uri": uri, "version": None}, "edits": [{"range": rng(0, 4, 0, 5), "newText": name}]}
    if name == "resource":
        answer(request_id, {"documentChanges": [edit, {"kind": "rename", "oldUri": uri, "newUri": uri + ".bak"}]})
    elif name == "changes":
        answer(request_id, {"changes": {uri: edit["edits"]}})
    elif name == "apply":
        asked = ask("workspace/applyEdit", {"label": "sneaky", "edit": {"changes": {uri: edit["edits"]}}})
        waiting[asked] = lambda _: answer(request_id, {"documentChanges": [edit]})
    else:
        answer(request_id, {"documentChanges": [edit]})


def handle(message, waiting):
    method = message.get("method")
    params = message.get("params") or {}
    request_id = message.get("id")
    if method is None:
        then = waiting.pop(request_id, None)
        if then:
            then(message)
        return True
    if method == "initialize":
        answer(request_id, {"capabilities": capabilities(), "serverInfo": {"name": "fake", "version": "1"}})
    elif method == "initialized":
        ask("workspace/configuration", {"items": json.loads(ARGS.configuration_items)})
        ask("client/registerCapability", {"registrations": []})
        if ARGS.load_fails:
            notify("window/logMessage", {"type": 1, "message": "project load failed: no setup.cfg " + "x" * 3000})
        if ARGS.progress:
            ask("window/workDoneProgress/create", {"token": "index"})
            notify("$/progress", {"token": "index", "value": {"kind": "begin", "title": "Indexing"}})
            notify("$/progress", {"token": 7, "value": {"kind": "report", "message": "half"}})
            notify("$/progress", {"token": "bad", "value": {"kind": "sideways"}})
            if ARGS.progress == "brief":
                def finish():
                    time.sleep(0.3)
                    notify("$/progress", {"token": "index", "value": {"kind": "end"}})
                    notify("$/progress", {"token": 7, "value": {"kind": "end"}})
                threading.Thread(target=finish, daemon=True).start()
    elif method in ("textDocument/didOpen", "textDocument/didChange"):
        document = params["textDocument"]
        text = document["text"] if method.endswith("didOpen") else params["contentChanges"][-1]["text"]
        publish(document["uri"], document["version"], text)
    elif method in ("textDocument/definition", "textDocument/references"):
        line = params["position"]["line"]
        if ARGS.load_fails:
            answer(request_id, None)
        elif line == 6:
            body = b'{"jsonrpc":"2.0","id":true,"result":1}'
            write_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        elif line == 7:
            write_raw(b"Content-Length: many\r\n\r\n{}")
        elif line == 8:
            sys.stderr.write("fake: crashing on purpose\n")
            sys.stderr.flush()
            OUT.flush()
            import os
            os._exit(3)
        elif line == 10:
            answer(request_id + 1000, locations(0, params["textDocument"]["uri"]))
        elif line == 9:
            def late():
                time.sleep(1.5)
                answer(request_id, locations(0, params["textDocument"]["uri"]))
            threading.Thread(target=late, daemon=True).start()
        else:
            answer(request_id, locations(line, params["textDocument"]["uri"]))
    elif method == "textDocument/hover" and ARGS.hover_asks:
        # Asks its client mid-call and answers only once the client did.
        asked = ask("workspace/configuration", {"items": [{"section": "hover"}]})
        line = params["position"]["line"]
        waiting[asked] = lambda _: answer(request_id, hover(line))
    elif method == "textDocument/hover":
        answer(request_id, hover(params["position"]["line"]))
    elif method == "textDocument/documentSymbol":
        answer(request_id, symbols(params["textDocument"]["uri"]))
    elif method == "textDocument/prepareRename":
        line = params["position"]["line"]
        answer(request_id, [rng(0, 4, 0, 5), {"range": rng(0, 4, 0, 5), "placeholder": "f"}, {"defaultBehavior": True}, None][min(line, 3)])
    elif method == "textDocument/rename":
        rename(request_id, params, waiting)
    elif method == "textDocument/prepareCallHierarchy":
        answer(request_id, [ITEM])
    elif method == "callHierarchy/incomingCalls":
        item = params["item"]
        answer(request_id, [{"from": dict(item, name="caller"), "fromRanges": [rng(5, 1, 5, 2)]}])
    elif method == "callHierarchy/outgoingCalls":
        answer(request_id, [{"to": dict(params["item"], name="callee"), "fromRanges": [rng(1, 4, 1, 5)]}])
    elif method == "shutdown":
        answer(request_id, None)
    elif method == "exit":
        if ARGS.ignore_exit:
            time.sleep(60)
        return False
    elif request_id is not None:
        send({"id": request_id, "error": {"code": -32601, "message": "unknown " + method}})
    return True


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--log")
    parser.add_argument("--no-hover", action="store_true")
    parser.add_argument("--no-symbols", action="store_true")
    parser.add_argument("--progress", choices=["forever", "brief"])
    parser.add_argument("--unversioned", action="store_true")
    parser.add_argument("--load-fails", action="store_true")
    parser.add_argument("--ignore-exit", action="store_true")
    parser.add_argument("--empty-first", action="store_true")
    parser.add_argument("--never-publishes", action="store_true")
    parser.add_argument("--hover-asks", action="store_true")
    parser.add_argument("--configuration-items", default='[{"section": "fake"}, {"section": "other"}]')
    ARGS = parser.parse_args()
    stream = sys.stdin.buffer
    waiting = {}
    while True:
        message = read_message(stream)
        if message is None:
            return
        log(message)
        if not handle(message, waiting):
            return


if __name__ == "__main__":
    main()
