"""Files in the local Bot API (`bot.local.api`): the ones the bot sends and the ones
users send, known by file id (getFile) and by path (downloads)."""

from __future__ import annotations

import itertools
import mimetypes
import re
import secrets
from dataclasses import dataclass
from typing import Any

#: Sent files, by method: (parameter and message field, file_id prefix, storage folder).
SEND_FILE_METHODS = {
    "sendDocument": ("document", "BQACAgIAAxkBAAI", "documents"),
    "sendPhoto": ("photo", "AgACAgIAAxkBAAI", "photos"),
}
_PNG = b"\x89PNG\r\n\x1a\n"
_FILE_URL = re.compile(r"/file/bot[^/]+/(?P<path>.+)$")


@dataclass(slots=True)
class Upload:
    """A file part of a request."""

    filename: str
    data: bytes
    content_type: str | None = None


@dataclass(slots=True)
class StoredFile:
    """A file known to the API: sent by the bot or by a user."""

    file_id: str
    file_unique_id: str
    file_path: str
    data: bytes
    file_name: str | None = None
    mime_type: str | None = None

    def as_dict(self, *, with_path: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": len(self.data),
        }
        if with_path:
            out["file_path"] = self.file_path
        return out


class FileStore:
    def __init__(self) -> None:
        self._seq = itertools.count(1)
        self._by_id: dict[str, StoredFile] = {}
        self._by_path: dict[str, StoredFile] = {}

    def register(
        self,
        data: bytes,
        *,
        kind: str = "documents",
        file_name: str | None = None,
        mime_type: str | None = None,
    ) -> StoredFile:
        """Make ``data`` known to getFile and downloads; returns its metadata."""
        seq = next(self._seq)
        prefix = next(
            (p for _, p, folder in SEND_FILE_METHODS.values() if folder == kind),
            "CAACAgIAAxkBAAI",
        )
        if mime_type is None and file_name:
            mime_type = mimetypes.guess_type(file_name)[0]
        ext = (mimetypes.guess_extension(mime_type) if mime_type else None) or ".bin"
        if file_name and "." in file_name:
            ext = file_name[file_name.rfind(".") :]
        stored = StoredFile(
            file_id=f"{prefix}{seq:06d}{secrets.token_urlsafe(12)}",
            file_unique_id=f"AgAD{seq:06d}",
            file_path=f"{kind}/file_{seq}{ext}",
            data=data,
            file_name=file_name,
            mime_type=mime_type,
        )
        self._by_id[stored.file_id] = stored
        self._by_path[stored.file_path] = stored
        return stored

    def by_id(self, file_id: str) -> StoredFile | None:
        return self._by_id.get(file_id)

    def at(self, file_path: str) -> StoredFile | None:
        return self._by_path.get(file_path)


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG image (the charts Stepan draws), if it is one."""
    if data[:8] == _PNG and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def file_path_of(url: str) -> str | None:
    """The file path in a Bot API download URL (``.../file/bot<token>/<path>``)."""
    match = _FILE_URL.search(url)
    return match.group("path") if match else None
