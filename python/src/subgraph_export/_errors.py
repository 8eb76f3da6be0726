"""The exceptions this package raises: one base, and one class per way an export can fail."""

from __future__ import annotations


class ExportError(Exception):
    """Base of every failure this package reports."""


class ExportRequestError(ExportError):
    """The server refused the request before streaming (an HTTP status other than 2xx).

    Attributes: ``status`` (HTTP status), ``code`` (e.g. ``Export.RootNotFound``), ``message``, ``state`` (the
    refusal's ``Subgraph-Export-State`` header, the store state the server is in; empty if it sent none: a 412
    ``Export.StateChanged`` names the state the database moved on to).
    """

    def __init__(self, status: int, code: str, message: str, state: str = "") -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.state = state


class ExportFailedError(ExportError):
    """The export failed after streaming had started: the stream's error record (``code``, ``message``).

    The batches before it were complete and valid, but the export is incomplete.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class TruncatedStreamError(ExportError):
    """The stream ended without its closing record (cut off), or is not a valid Arrow stream."""
