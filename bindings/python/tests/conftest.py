"""Fixtures: servers started as subprocesses and spoken to over real pipes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Callable

import pytest

from support import SUMMARY, Peer


@pytest.fixture
def peer_factory() -> Iterator[Callable[..., Peer]]:
    peers: list[Peer] = []

    def start(*command: str) -> Peer:
        peer = Peer(list(command))
        peers.append(peer)
        return peer

    yield start
    for peer in peers:
        peer.watchdog.cancel()
        if peer.process.poll() is None:
            peer.process.kill()
        peer.process.communicate()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in SUMMARY:
        terminalreporter.write_line(line)
