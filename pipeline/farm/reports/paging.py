"""Reading the next page of a report while the current one is being written."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeVar

_Page = TypeVar("_Page")


async def read_ahead(pages: AsyncIterator[_Page]) -> AsyncGenerator[_Page, None]:
    """Yield each page while the next one is already being read.

    The database driver works in its own thread and the sheet writing in another,
    so overlapping them takes a page's read off the critical path. Only the pending
    read touches the database (each page is its own short read transaction). Use it
    under ``contextlib.aclosing`` when the loop may stop early, so the read in
    flight is over before the caller goes on.
    """
    pending: asyncio.Future[_Page | None] = asyncio.ensure_future(anext(pages, None))
    try:
        while (page := await pending) is not None:
            pending = asyncio.ensure_future(anext(pages, None))
            yield page
    finally:
        if not pending.done():
            # Let the read finish rather than cancel it mid-query, which could leave
            # the session's connection in an unknown state; its page is not needed.
            with contextlib.suppress(Exception):
                await pending
        aclose = getattr(pages, "aclose", None)
        if aclose is not None:
            await aclose()
