import socket

import pytest

from citecheck.errors import BlockedDestinationError
from citecheck.netguard import address_allowed, check_url, resolve_checked


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/x.pdf", "http://[::1]/", "http://169.254.169.254/latest/meta-data",
    "http://100.100.100.200/", "http://10.1.2.3/", "http://192.168.0.1/", "http://172.16.0.1/",
    "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://224.0.0.1/", "http://192.0.2.10/",
])
def test_private_and_special_addresses_are_refused(url):
    scheme, host, port = check_url(url)
    with pytest.raises(BlockedDestinationError):
        resolve_checked(host, port)


@pytest.mark.parametrize("url", [
    "http://2130706433/", "http://0x7f000001/", "http://017700000001/", "http://127.1/",
    "http://user:pw@example.org/", "http://example.org@127.0.0.1/", "file:///etc/passwd",
    "ftp://example.org/a.pdf", "gopher://example.org/", "data:application/pdf;base64,JVBERi0=",
    "javascript:alert(1)",
])
def test_bad_urls_are_refused_before_any_lookup(url):
    with pytest.raises(BlockedDestinationError):
        check_url(url)


def test_hostnames_that_look_hexadecimal_are_fine():
    assert check_url("https://cafe.de/a.pdf") == ("https", "cafe.de", 443)


def test_rebinding_any_private_answer_refuses():
    def resolver(host, port, type=0):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
    with pytest.raises(BlockedDestinationError):
        resolve_checked("rebind.example", 80, resolver=resolver)


def test_public_address_is_returned_for_connecting():
    def resolver(host, port, type=0):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port))]
    assert resolve_checked("example.org", 443, resolver=resolver) == "93.184.216.34"


def test_allow_private_lifts_only_the_address_check():
    assert resolve_checked("localhost", 80, allow_private=True)
    with pytest.raises(BlockedDestinationError):
        check_url("file:///etc/passwd")


def test_mapped_ipv6_is_judged_by_its_ipv4():
    assert not address_allowed("::ffff:10.0.0.1")
    assert address_allowed("::ffff:93.184.216.34")
