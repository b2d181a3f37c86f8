"""citecheck: citation-integrity reports for scholarly papers."""
__version__ = "0.1.0"


def check(*args, **kwargs):
    """See ``citecheck.api.check``."""
    from .api import check as _check

    return _check(*args, **kwargs)


__all__ = ["__version__", "check"]
