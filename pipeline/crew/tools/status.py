"""The platform's health as the platform agent tells it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pipeline.crew.context import RunContext
from pipeline.crew.tools.base import NoArgs, Tool, ToolResult
from pipeline.platform_status import Check

#: Probes the platform's health (PlatformStatus.collect).
PlatformProbe = Callable[[RunContext], Awaitable[list[Check]]]


class StatusTools:
    def __init__(self, probe: PlatformProbe) -> None:
        self._probe = probe

    def tools(self) -> dict[str, Tool]:
        return {"platform_status": self.platform_status}

    async def platform_status(self, ctx: RunContext, _: NoArgs) -> ToolResult:
        checks = await self._probe(ctx)
        lines = [ctx.text_of("compose.platform_header")]
        for check in checks:
            lines.append(
                ctx.text_of(
                    "compose.platform_item",
                    name=check.name,
                    state=ctx.text_of(f"compose.state.{check.state}"),
                    detail=check.detail,
                )
            )
        bad = [check.name for check in checks if check.state in ("down", "degraded")]
        lines.append(
            ctx.text_of("compose.platform_bad", names=", ".join(bad))
            if bad
            else ctx.text_of("compose.platform_ok")
        )
        return ToolResult("platform_status", "\n".join(lines))
