"""The server the official MCP conformance suite
(`@modelcontextprotocol/conformance`) tests, written with `wirekit.mcp`.

It offers what the suite's server scenarios call, under the names the
suite's own reference (`examples/servers/typescript/everything-server.ts`
of the conformance repository) gives them: tools with text, image, audio,
embedded-resource and mixed content, logging, progress, a tool error,
sampling and elicitation through the client, a JSON Schema 2020-12 input
schema; static text and binary resources, a template, a watched
(subscribable) resource; prompts with arguments, an embedded resource and
an image; completions; logging levels.

Serve it on stdio: `python examples/mcp/everything_server.py`.
`tests/mcp/conformance/run.sh` puts it behind a stdio-to-HTTP bridge and
runs the suite against it.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Annotated, Any

from wirekit.mcp import Audio, Context, EmbeddedResource, Image, Message, Server

# A 1x1 red PNG and a minimal WAV, as the suite's reference sends them.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")

server = Server("wirekit-everything", "1.0.0")


# ----- tools -----


@server.tool()
def test_simple_text() -> str:
    """Tests simple text content response"""
    return "This is a simple text response for testing."


@server.tool()
def test_image_content() -> Image:
    """Tests image content response"""
    return Image(PNG, "image/png")


@server.tool()
def test_audio_content() -> Audio:
    """Tests audio content response"""
    return Audio(WAV, "audio/wav")


@server.tool()
def test_embedded_resource() -> EmbeddedResource:
    """Tests embedded resource content response"""
    return EmbeddedResource("test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain")


@server.tool()
def test_multiple_content_types() -> list[Any]:
    """Tests response with multiple content types (text, image, resource)"""
    return [
        "Multiple content types test:",
        Image(PNG, "image/png"),
        EmbeddedResource(
            "test://mixed-content-resource",
            text=json.dumps({"test": "data", "value": 123}),
            mime_type="application/json",
        ),
    ]


@server.tool()
def test_tool_with_logging(context: Context) -> str:
    """Tests tool that emits log messages during execution"""
    for step, text in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if step:
            time.sleep(0.05)
        context.log("info", text)
    return "Tool with logging executed successfully"


@server.tool()
def test_tool_with_progress(context: Context) -> str:
    """Tests tool that reports progress notifications"""
    for step, progress in enumerate((0, 50, 100)):
        if step:
            time.sleep(0.05)
        context.report_progress(progress, 100, f"Completed step {progress} of 100")
    return str(context.progress_token)


@server.tool()
def test_error_handling() -> str:
    """Tests error response handling"""
    raise RuntimeError("This tool intentionally returns an error for testing")


@server.tool()
def test_sampling(prompt: Annotated[str, "The prompt to send to the LLM"], context: Context) -> str:
    """Tests server-initiated sampling (LLM completion request)"""
    answer = context.sample(prompt, max_tokens=100)
    return f"LLM response: {answer.get('content', {}).get('text', 'No response')}"


@server.tool()
def test_elicitation(message: Annotated[str, "The message to show the user"], context: Context) -> str:
    """Tests server-initiated elicitation (user input request)"""
    answer = context.elicit(
        message,
        {
            "type": "object",
            "properties": {"response": {"type": "string", "description": "User's response"}},
            "required": ["response"],
        },
    )
    return f"User response: action={answer['action']}, content={json.dumps(answer.get('content', {}))}"


@server.tool()
def test_elicitation_sep1034_defaults(context: Context) -> str:
    """Tests elicitation with default values per SEP-1034"""
    answer = context.elicit(
        "Please review and update the form fields with defaults",
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": True},
            },
            "required": [],
        },
    )
    return f"Elicitation completed: action={answer['action']}, content={json.dumps(answer.get('content', {}))}"


@server.tool()
def test_elicitation_sep1330_enums(context: Context) -> str:
    """Tests elicitation with enum schema improvements per SEP-1330"""
    titled = [{"const": f"value{i}", "title": t} for i, t in ((1, "First"), (2, "Second"), (3, "Third"))]
    answer = context.elicit(
        "Please select options from the enum fields",
        {
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"],
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [{**t, "title": f"{t['title']} Option"} for t in titled],
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {"anyOf": [{**t, "title": f"{t['title']} Choice"} for t in titled]},
                },
            },
            "required": [],
        },
    )
    return f"Elicitation completed: action={answer['action']}, content={json.dumps(answer.get('content', {}))}"


# SEP-1613: the input schema is kept as written, `$schema` and `$defs` too.
@server.tool(
    description="Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
    input_schema={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    },
)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    return f"JSON Schema 2020-12 tool called with: {json.dumps(arguments)}"


# ----- resources -----


@server.resource("test://static-text", name="static-text", title="Static Text Resource",
                 description="A static text resource for testing")
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource("test://static-binary", name="static-binary", title="Static Binary Resource",
                 description="A static binary resource (image) for testing", mime_type="image/png")
def static_binary() -> bytes:
    return PNG


@server.resource("test://template/{id}/data", name="template", title="Resource Template",
                 description="A resource template with parameter substitution", mime_type="application/json")
def template(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource("test://watched-resource", name="watched-resource", title="Watched Resource",
                 description="A resource a client may subscribe to")
def watched() -> str:
    return "Watched resource content"


# ----- prompts -----


@server.prompt(title="Simple Test Prompt")
def test_simple_prompt() -> str:
    """A simple prompt without arguments"""
    return "This is a simple prompt for testing."


@server.prompt(title="Prompt With Arguments")
def test_prompt_with_arguments(
    arg1: Annotated[str, "First test argument"], arg2: Annotated[str, "Second test argument"]
) -> str:
    """A prompt with required arguments"""
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt(title="Prompt With Embedded Resource")
def test_prompt_with_embedded_resource(resourceUri: Annotated[str, "URI of the resource to embed"]) -> list[Any]:
    """A prompt that includes an embedded resource"""
    return [
        EmbeddedResource(resourceUri, text="Embedded resource content for testing.", mime_type="text/plain"),
        "Please process the embedded resource above.",
    ]


@server.prompt(title="Prompt With Image")
def test_prompt_with_image() -> list[Any]:
    """A prompt that includes image content"""
    return [Message(Image(PNG, "image/png")), Message("Please analyze the image above.")]


# ----- completions -----


@server.completion()
def complete(ref: dict[str, Any], argument: dict[str, Any]) -> list[str]:
    """Prompt arguments complete from a few words starting with what is typed."""
    words = ["paris", "park", "party", "test", "testing", "tested"]
    return [word for word in words if word.startswith(str(argument.get("value", "")))]


if __name__ == "__main__":
    server.run()
