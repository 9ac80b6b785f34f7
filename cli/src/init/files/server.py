"""A __NAME__ server (written by `wirekit init`; make it yours).

It subclasses the typed base class that `wirekit generate` wrote into
`__PACKAGE__/` from `schemas/__NAME__/1/`: one `on_<method>` a request, each
called with params the core has already checked and answered after the core
checks its result. Run it under the judge:

    wirekit conformance --protocol __NAME__@1 -- python server.py
"""

from __future__ import annotations

import wirekit

from __PACKAGE__.__MODULE__ import (
    ERROR_NOT_FOUND,
    DeleteResult,
    GetResult,
    InitializeParams,
    InitializeResult,
    KeyParams,
    PutParams,
    PutResult,
    ShutdownParams,
    ShutdownResult,
    WatchResult,
    __CLASS__,
)


class Store(__CLASS__):
    """Keys and values in memory; watched keys are notified on every change."""

    def __init__(self) -> None:
        super().__init__(exit_promptly=True)
        self.values: dict[str, tuple[str, int]] = {}
        self.watched: set[str] = set()

    def on_initialize(self, params: InitializeParams) -> InitializeResult:
        return {"server": {"name": "__NAME__-server", "version": "0.1.0"}}

    def on_put(self, params: PutParams) -> PutResult:
        key, value = params["key"], params["value"]
        version = self.values.get(key, ("", 0))[1] + 1
        self.values[key] = (value, version)
        if key in self.watched:
            self.notify_changed({"key": key, "value": value, "version": version})
        return {"version": version}

    def on_get(self, params: KeyParams) -> GetResult:
        found = self.values.get(params["key"])
        if found is None:
            raise wirekit.RpcError(f"no value under `{params['key']}`", code=ERROR_NOT_FOUND)
        value, version = found
        return {"value": value, "version": version}

    def on_delete(self, params: KeyParams) -> DeleteResult:
        key = params["key"]
        deleted = self.values.pop(key, None) is not None
        if deleted and key in self.watched:
            self.notify_changed({"key": key, "value": None, "version": 0})
        return {"deleted": deleted}

    def on_watch(self, params: KeyParams) -> WatchResult:
        self.watched.add(params["key"])
        return {"watching": params["key"]}

    def on_shutdown(self, params: ShutdownParams) -> ShutdownResult:
        return {}


if __name__ == "__main__":
    Store().run()
