"""Reading trace bytes from disk (plain or gzip) with one-sentence errors."""

from __future__ import annotations

import gzip
import os
import zlib

from neurontui.model.errors import TraceError


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, gunzipped when it is gzip; never writes anything."""
    p = os.fspath(path)
    try:
        with open(p, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise TraceError(p, "no such file") from None
    except IsADirectoryError:
        raise TraceError(p, "is a directory, not a trace file") from None
    except PermissionError:
        raise TraceError(p, "permission denied") from None
    except OSError as exc:
        raise TraceError(p, f"cannot be read ({exc.strerror or exc})") from None
    if not data:
        raise TraceError(p, "is empty (0 bytes)")
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except EOFError:
            raise TraceError(p, "gzip data is truncated (the file may still be being written)") from None
        except (OSError, zlib.error) as exc:
            raise TraceError(p, f"is not valid gzip data ({exc})") from None
        if not data:
            raise TraceError(p, "is empty after decompression")
    elif p.endswith(".gz"):
        raise TraceError(p, "has a .gz name but is not gzip data")
    return data
