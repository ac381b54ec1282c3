"""The finishing passes over Litestar's generated document, in their order."""

from __future__ import annotations

import copy
from typing import Any

from service.http.openapi.component_names import component_names
from service.http.openapi.discriminators import add_discriminators
from service.http.openapi.named_enums import name_enums
from service.http.openapi.operations import finish_operation
from service.http.openapi.problem_schema import problem_schema
from service.http.openapi.request_defaults import request_defaults_in_words
from service.http.openapi.schema_descriptions import describe_schemas
from service.http.openapi.security import SECURITY_SCHEMES
from service.http.openapi.strict_requests import strict_request_schemas
from service.http.openapi.string_limits import optional_string_limits
from service.http.openapi.webhooks import webhooks


def finish(generated: dict[str, Any]) -> dict[str, Any]:
    """Complete Litestar's document (pure; idempotent)."""
    doc = copy.deepcopy(generated)
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    describe_schemas(doc)
    optional_string_limits(doc)
    component_names(doc)
    schemas["Problem"] = problem_schema()
    components["securitySchemes"] = copy.deepcopy(SECURITY_SCHEMES)
    doc["security"] = []
    doc["servers"] = [{"url": "/", "description": "This server"}]
    for name in strict_request_schemas():
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    for item in doc.get("paths", {}).values():
        for method, op in item.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                finish_operation(op)
    add_discriminators(doc, schemas)
    name_enums(doc)
    doc["webhooks"] = webhooks(schemas)
    request_defaults_in_words(doc)
    return doc
