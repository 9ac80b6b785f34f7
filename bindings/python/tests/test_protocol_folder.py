"""Protocols from a folder at run time: `Protocol(spec, schemas=DIR)`,
`Service(spec, schemas=DIR)` and the helpers on top; the embedded protocols
stay the default; a folder that breaks the manifest shape or the
consistency rules is refused with the file and the pointer at fault."""

import json
import shutil
from pathlib import Path

import pytest

from wirekit import Protocol, ProtocolError, Service
from wirekit.gzkit import AuthoringGuide

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def copy(tmp_path: Path, origin: str, rename: str = "") -> Path:
    """schemas/<origin> copied under tmp_path (as <rename>/<version> when given)."""
    name, version = origin.split("/")
    folder = tmp_path / (rename or name) / version
    shutil.copytree(SCHEMAS / origin, folder)
    if rename:
        manifest = json.loads((folder / "protocol.json").read_text())
        manifest["protocol"] = rename
        (folder / "protocol.json").write_text(json.dumps(manifest))
    return tmp_path


def test_a_users_own_protocol_loads_from_a_folder_and_serves(tmp_path: Path) -> None:
    root = copy(tmp_path, "gzkit-authoring-guide/1.0", rename="my-guide")
    protocol = Protocol("my-guide", schemas=root)
    assert protocol.id == "my-guide@1.0"
    with pytest.raises(ProtocolError):
        Protocol("my-guide")  # not embedded: the folder is what knows it
    service = Service("my-guide", schemas=root)
    service.register("shutdown", lambda _params: {})
    body = b'{"id":1,"method":"shutdown","params":{}}'
    output = service.serve_bytes(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    assert output == b'Content-Length: 20\r\n\r\n{"id":1,"result":{}}'


def test_the_helpers_take_a_folder_too(tmp_path: Path) -> None:
    root = copy(tmp_path, "gzkit-authoring-guide/1.0")
    guide = AuthoringGuide(schemas=root)
    assert guide.protocol.id == "gzkit-authoring-guide@1.0"


def test_a_folder_breaking_the_consistency_rules_is_refused_with_file_and_pointer(tmp_path: Path) -> None:
    root = copy(tmp_path, "agentapi-driver/1")
    manifest_path = root / "agentapi-driver" / "1" / "protocol.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["server_errors"]["invalid_params"] = {"data": {"errors": "{errors}"}}
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ProtocolError) as refused:
        Protocol("agentapi-driver", schemas=root)
    assert refused.value.file == "agentapi-driver/1/protocol.json"
    assert refused.value.pointer == "/server_errors/invalid_params"
    manifest["lifecycle"]["initial"] = "NOWHERE"
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(ProtocolError) as refused:
        Protocol("agentapi-driver", schemas=root)
    assert refused.value.pointer == "/lifecycle/initial"
