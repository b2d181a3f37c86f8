"""Destination checks for URLs that come from third-party metadata (SSRF protection).

Only http(s); no userinfo; no numeric host spellings other than a plain dotted quad or a
bracketed IPv6 literal; every resolved address must be globally routable (this rejects
private, loopback, link-local, CGNAT 100.64/10, documentation, reserved and multicast
ranges), and IPv4-mapped IPv6 addresses are judged by their IPv4 address.
"""
from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

from .errors import BlockedDestinationError

_DOTTED_QUAD = re.compile(r"^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|\d+)$", re.IGNORECASE)


def address_allowed(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv6Address) and ip.sixtofour is not None:
        ip = ip.sixtofour
    return ip.is_global and not ip.is_multicast


def check_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an acceptable URL, else ``BlockedDestinationError``."""
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
        username, password = parts.username, parts.password
    except ValueError:
        raise BlockedDestinationError("malformed URL") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise BlockedDestinationError(f"scheme {scheme or '(none)'!r} is not allowed")
    if username is not None or password is not None or "@" in parts.netloc:
        raise BlockedDestinationError("URLs with user information are not allowed")
    host = (hostname or "").rstrip(".").lower()
    if not host:
        raise BlockedDestinationError("URL has no host")
    is_ipv6_literal = parts.netloc.startswith("[")
    numeric = all(_NUMERIC_LABEL.match(label) for label in host.split("."))
    if not is_ipv6_literal and numeric and not _DOTTED_QUAD.match(host):
        raise BlockedDestinationError(f"numeric host spelling {host!r} is not allowed")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise BlockedDestinationError("invalid port") from None
    return scheme, host, port


def resolve_checked(host: str, port: int, *, allow_private: bool = False,
                    resolver=socket.getaddrinfo) -> str:
    """One address of ``host`` to connect to; every resolved address must pass the check
    (a host that resolves to any private address is refused: DNS-rebinding defence)."""
    try:
        infos = resolver(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise BlockedDestinationError(f"cannot resolve {host}", reason="dns_error") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise BlockedDestinationError(f"cannot resolve {host}", reason="dns_error")
    if not allow_private:
        for address in addresses:
            if not address_allowed(address):
                raise BlockedDestinationError(f"{host} resolves to a non-public address")
    return addresses[0]
