"""What every connection of a proxy shares: the registry, the frame limit and the hooks."""

from __future__ import annotations

from dataclasses import dataclass

from ..messages import REGISTRY
from ..protocol import MAX_FRAME_SIZE
from ..registries import RegistryLike
from .hooks import RequestHook, ResponseHook


@dataclass(frozen=True)
class Settings:
    registry: RegistryLike = REGISTRY
    max_frame_size: int = MAX_FRAME_SIZE
    on_request: RequestHook | None = None
    on_response: ResponseHook | None = None
    # Decode every request and response (for the log or the hooks); otherwise only what the
    # proxy needs itself: Produce requests (acks 0 goes unanswered) and responses with addresses.
    decodes_everything: bool = False
