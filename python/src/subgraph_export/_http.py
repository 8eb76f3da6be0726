"""Sending a request to the plugin: headers and Basic auth, waiting out a busy server (503 with ``Retry-After``), and
a refusal as :class:`ExportRequestError`. What to ask for (the endpoints' URLs) is in ``_endpoints``."""

from __future__ import annotations

import base64
import datetime
import email.utils
import json
import random
import time
import urllib.error
import urllib.request
from typing import BinaryIO, Optional, Tuple

from ._errors import ExportError, ExportRequestError

MEDIA_TYPE = "application/vnd.apache.arrow.stream"
STATE_HEADER = "Subgraph-Export-State"
"""The response header naming the store state the server read (docs/wire-format.md section 1.3)."""

Auth = Optional[Tuple[str, str]]
BUSY_WAIT = 30.0
"""Default of ``busy_wait``: the most seconds spent waiting out a busy server (503 with Retry-After) per request."""


def _open(url: str, data: Optional[bytes], auth: Auth, http_timeout: Optional[float],
          busy_wait: float = BUSY_WAIT) -> BinaryIO:
    """Sends the request; a busy server's ``503`` with ``Retry-After`` (``Export.ServerBusy``) is sent again after the
    seconds it names plus up to a quarter more (jitter), while the waits add up to at most ``busy_wait`` seconds (0:
    never). Any other refusal, or the last 503, raises :class:`ExportRequestError`."""
    headers = {"Accept": MEDIA_TYPE}
    if data is not None:
        headers["Content-Type"] = "application/json"
    if auth is not None:
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode("ascii")
        headers["Authorization"] = "Basic " + token
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    waited = 0.0
    while True:
        try:
            response = urllib.request.urlopen(request, timeout=http_timeout)
            break
        except urllib.error.HTTPError as e:
            body = e.read(64 * 1024)
            e.close()
            after = _retry_after(e.headers.get("Retry-After")) if e.code == 503 else None
            if after is not None:
                wait = max(0.1, after)
                wait += random.uniform(0, wait / 4)
                if waited + wait <= busy_wait:
                    time.sleep(wait)
                    waited += wait
                    continue
            raise _refused(e.code, body, e.headers.get(STATE_HEADER) or "") from None
    content_type = response.headers.get("Content-Type", "")
    if not content_type.startswith(MEDIA_TYPE):
        response.close()
        raise ExportError(f"expected {MEDIA_TYPE}, the server answered {content_type!r}")
    return response


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` value (delay-seconds or an HTTP-date), or None if there is none."""
    value = (value or "").strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # asctime's form ("Sun Nov  6 08:49:37 1994") names no zone: an HTTP-date is in GMT
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


def _refused(status: int, body: bytes, state: str = "") -> ExportRequestError:
    try:
        error = json.loads(body)
        return ExportRequestError(status, str(error.get("code", "")), str(error.get("message", "")), state)
    except (ValueError, AttributeError):
        return ExportRequestError(status, "", body.decode("utf-8", "replace")[:1000], state)
