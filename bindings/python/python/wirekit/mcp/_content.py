"""What tools, resources and prompts return, as MCP content.

A tool returns:

- a `str`: one text content;
- an `Image`, `Audio`, `EmbeddedResource` or `ResourceLink`: that one content;
- a `list` of those (and of `str`s): the content in that order;
- a `dict` holding `content`: the whole `CallToolResult`, as it is;
- any other JSON value: its JSON as text, and as `structuredContent` when
  it is an object (a TypedDict or a dataclass too).

A resource's reader returns a `str` (the text), `bytes` (sent as a base64
`blob`), or a `dict` holding `contents` (the whole `ReadResourceResult`).

A prompt returns a `str` (one user text message), a content object (one
user message holding it), a `dict` holding `messages`, or a list whose
items are each one message: a `str`, a content object, or a message dict
(`{"role": ..., "content": ...}`, or a `Message`).
"""

from __future__ import annotations

import base64
import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

Role = Literal["user", "assistant"]


def _base64(data: Union[bytes, str]) -> str:
    """Bytes as base64 text; a `str` is taken as base64 already."""
    return data if isinstance(data, str) else base64.b64encode(data).decode("ascii")


@dataclass(frozen=True)
class Image:
    """An image content: the bytes (or their base64 text) and the MIME type."""

    data: Union[bytes, str]
    mime_type: str = "image/png"

    def content(self) -> dict[str, Any]:
        return {"type": "image", "data": _base64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True)
class Audio:
    """An audio content: the bytes (or their base64 text) and the MIME type."""

    data: Union[bytes, str]
    mime_type: str = "audio/wav"

    def content(self) -> dict[str, Any]:
        return {"type": "audio", "data": _base64(self.data), "mimeType": self.mime_type}


@dataclass(frozen=True)
class EmbeddedResource:
    """A resource's contents inside a result: text, or bytes sent as a blob."""

    uri: str
    text: Optional[str] = None
    blob: Optional[bytes] = None
    mime_type: Optional[str] = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError(f"an embedded resource ({self.uri}) has text or a blob, exactly one")

    def content(self) -> dict[str, Any]:
        value: Union[str, bytes] = self.blob if self.blob is not None else (self.text or "")
        return {"type": "resource", "resource": resource_contents(self.uri, value, self.mime_type)}


@dataclass(frozen=True)
class ResourceLink:
    """A link to a resource the client may read."""

    uri: str
    name: str
    mime_type: Optional[str] = None
    description: Optional[str] = None

    def content(self) -> dict[str, Any]:
        link: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.mime_type:
            link["mimeType"] = self.mime_type
        if self.description:
            link["description"] = self.description
        return link


@dataclass(frozen=True)
class Message:
    """One prompt message: a role and one content (a `str` is text)."""

    content: Any
    role: Role = "user"

    def message(self) -> dict[str, Any]:
        return {"role": self.role, "content": one_content(self.content)}


Content = Union[str, Image, Audio, EmbeddedResource, ResourceLink]

CONTENT_CLASSES = (Image, Audio, EmbeddedResource, ResourceLink, Message)
"""What a handler returns as content, not as structured output."""


def one_content(value: Any) -> dict[str, Any]:
    """One content block from a `str`, a content object or a content dict."""
    if isinstance(value, str):
        return {"type": "text", "text": value}
    if isinstance(value, (Image, Audio, EmbeddedResource, ResourceLink)):
        return value.content()
    if isinstance(value, dict) and "type" in value:
        return value
    raise TypeError(f"{type(value).__name__} is no MCP content: return a str, Image, Audio, EmbeddedResource or ResourceLink")


def _is_content(value: Any) -> bool:
    return isinstance(value, (str, Image, Audio, EmbeddedResource, ResourceLink)) or (
        isinstance(value, dict) and "type" in value
    )


def _plain(value: Any) -> Any:
    """A dataclass instance as its dict; anything else as it is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


def tool_result(value: Any) -> dict[str, Any]:
    """A tool's return value as a `CallToolResult`."""
    if isinstance(value, dict) and "content" in value:
        return value
    if _is_content(value) and not isinstance(value, dict):
        return {"content": [one_content(value)], "isError": False}
    if isinstance(value, list) and value and all(_is_content(item) for item in value):
        return {"content": [one_content(item) for item in value], "isError": False}
    value = _plain(value)
    result: dict[str, Any] = {"content": [{"type": "text", "text": json.dumps(value)}], "isError": False}
    if isinstance(value, dict):
        result["structuredContent"] = value
    return result


def tool_error(message: str) -> dict[str, Any]:
    """A tool execution error: the model sees the message."""
    return {"content": [{"type": "text", "text": message}], "isError": True}


def resource_contents(uri: str, value: Union[str, bytes], mime_type: Optional[str]) -> dict[str, Any]:
    """One `TextResourceContents` or `BlobResourceContents`."""
    contents: dict[str, Any] = {"uri": uri}
    if mime_type:
        contents["mimeType"] = mime_type
    if isinstance(value, (bytes, bytearray, memoryview)):
        contents["blob"] = base64.b64encode(bytes(value)).decode("ascii")
    elif isinstance(value, str):
        contents["text"] = value
    else:
        raise TypeError(f"a resource reader returns str or bytes (or a dict holding `contents`), not {type(value).__name__}")
    return contents


def read_result(uri: str, value: Any, mime_type: Optional[str]) -> dict[str, Any]:
    """A resource reader's return value as a `ReadResourceResult`."""
    if isinstance(value, dict) and "contents" in value:
        return value
    return {"contents": [resource_contents(uri, value, mime_type)]}


def message(item: Any) -> dict[str, Any]:
    """One message (a prompt's, or one asked of the client's model): a
    `Message`, a message dict as it is, or any content as a user message."""
    if isinstance(item, Message):
        return item.message()
    if isinstance(item, dict) and "role" in item:
        return item
    return {"role": "user", "content": one_content(item)}


def prompt_result(value: Any, description: Optional[str]) -> dict[str, Any]:
    """A prompt's return value as a `GetPromptResult`."""
    if isinstance(value, dict) and "messages" in value:
        return value
    items = value if isinstance(value, list) else [value]
    result: dict[str, Any] = {"messages": [message(item) for item in items]}
    if description:
        result["description"] = description
    return result
