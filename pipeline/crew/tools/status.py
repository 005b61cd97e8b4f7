"""The platform's health as the platform agent tells it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pipeline.admin.platform import Check
from pipeline.crew.context import RunContext
from pipeline.crew.tools.base import NoArgs, Tool, ToolResult

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
        names = {id(check): check.label.render(ctx.texts) for check in checks}
        for check in checks:
            # A farmer reads the service and its state; the details are the operator's.
            lines.append(
                ctx.text_of(
                    "compose.platform_item",
                    name=names[id(check)],
                    state=ctx.text_of(f"compose.state.{check.state}"),
                )
            )
        bad = [names[id(check)] for check in checks if check.state in ("down", "degraded")]
        lines.append(
            ctx.text_of("compose.platform_bad", names=", ".join(bad))
            if bad
            else ctx.text_of("compose.platform_ok")
        )
        return ToolResult("platform_status", "\n".join(lines))
