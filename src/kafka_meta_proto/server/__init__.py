"""An asyncio server framework for the Kafka protocol, over the sans-I/O ``net`` core.

Register an async handler per API; the framework reads the frames, decodes each request at its
version, answers ApiVersions from the handlers present, writes the answers in request order per
connection, and answers what it does not serve as Kafka's broker does: an ApiVersions request of
an unknown version gets version 0 with UNSUPPORTED_VERSION and the ApiVersions range, any other
api key or version without a handler closes the connection. A malformed or oversized frame
closes that connection, with the reason logged on the ``kafka_meta_proto.server`` logger.

- ``server``: ``Server`` (listening, handlers, shutdown);
- ``connection``: one connection served (reading, the in-flight limit, writing in order);
- ``handlers``: the handlers by api key and the version ranges they serve;
- ``answers``: the ApiVersions answer and the answer for a handler that failed;
- ``encoded``: ``EncodedBody``, a response body a handler encoded itself;
- ``context``: ``RequestContext``, what a handler receives;
- ``sasl``: SASL on the server side (``Server.enable_sasl``), over ``net.sasl_server``.
"""

from __future__ import annotations

from .answers import UNKNOWN_SERVER_ERROR, UNSUPPORTED_VERSION
from .context import RequestContext
from .encoded import EncodedBody
from .handlers import Answer, CloseConnection, Handler, Handlers, Interceptor
from .server import Server

__all__ = [
    "UNKNOWN_SERVER_ERROR",
    "UNSUPPORTED_VERSION",
    "Answer",
    "CloseConnection",
    "EncodedBody",
    "Handler",
    "Handlers",
    "Interceptor",
    "RequestContext",
    "Server",
]
