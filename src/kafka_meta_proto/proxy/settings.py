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
