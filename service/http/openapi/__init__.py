"""The committed contract: Litestar's generated schema, completed for client generators.

Litestar leaves a few things out that generators and linters need, so the document is
finished here, in one pure function over the JSON (`document.finish`), one module per pass:
problem responses on every operation, discriminators on the tagged unions,
``additionalProperties: false`` on request types that refuse unknown fields, OpenAPI links
from creating a game to playing it, security schemes, and tag descriptions.
`openapi/v1.json` is this function's output; `config` is how the app serves it.
"""

from service.http.openapi.config import API_VERSION, openapi_config
from service.http.openapi.document import finish

__all__ = ["API_VERSION", "finish", "openapi_config"]
