"""The errors of webhook registration."""

from __future__ import annotations

from service.play.errors import ServiceError


class WebhookNotFound(ServiceError):
    code = "not-found"


class WebhookLimit(ServiceError):
    code = "webhook-limit"


class WebhookTargetRefused(ServiceError):
    code = "webhook-target-refused"


class WebhookUrlInvalid(ServiceError):
    code = "webhook-url-invalid"
