"""Models under test: a small provider interface, a lazy factory, a response cache."""

from beyondpass.models.base import (
    Generation,
    GenerationRequest,
    Message,
    ModelProvider,
    SamplingParams,
)

__all__ = ["Generation", "GenerationRequest", "Message", "ModelProvider", "SamplingParams"]
