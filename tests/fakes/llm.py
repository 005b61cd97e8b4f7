"""A scripted LLM at CrewAI's ``BaseLLM`` boundary, and a guard against the internet.

``ScriptedLLM`` plays any role: a sub-agent (ReAct text: first a tool call, then a
final answer built from the tool's observation), Stepan (a final answer), a light
reply or the reflection pass (plain text). Per role it can be told to answer with
given texts, raise, sleep or hang; it counts calls and records who called.

Import CrewAI only through this module after ``silence_crewai()`` (tests/conftest.py
does it first).
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from crewai.llms.base_llm import BaseLLM
from pydantic import Field, PrivateAttr

_TOOL_NAME = re.compile(r"^Tool Name: (\S+)", re.MULTILINE)
_ROLE = re.compile(r"^You are (.+?)\.", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class LlmCall:
    role: str  # the agent's role, or "" for a direct call (light reply, reflection)
    system: str
    last: str  # the last message's content
    react: bool  # an agent's call (answers in CrewAI's ReAct format)
    tools: tuple[str, ...]
    observed: bool  # a tool result is already in the conversation
    observation: str  # the last tool result
    everything: str  # every message's text, joined
    #: The calling agent's settings, when CrewAI passes the agent (None otherwise).
    allow_delegation: bool | None = None
    max_iter: int | None = None


def _messages(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    return [dict(m) for m in raw]


def describe_call(messages: Any, from_agent: Any) -> LlmCall:
    items = _messages(messages)
    system = next((str(m.get("content", "")) for m in items if m.get("role") == "system"), "")
    everything = "\n".join(str(m.get("content", "")) for m in items)
    role = str(getattr(from_agent, "role", "") or "")
    if not role:
        match = _ROLE.search(system)
        role = match.group(1) if match else ""
    observation = _last_observation(items)
    return LlmCall(
        role=role,
        system=system,
        last=str(items[-1].get("content", "")) if items else "",
        react=bool(role) and "Final Answer:" in everything,
        tools=tuple(_TOOL_NAME.findall(everything)),
        observed=observation is not None,
        observation=observation or "",
        everything=everything,
        allow_delegation=getattr(from_agent, "allow_delegation", None),
        max_iter=getattr(from_agent, "max_iter", None),
    )


def _last_observation(items: list[dict[str, Any]]) -> str | None:
    """The last tool result: CrewAI appends it to the assistant's turn (the system
    prompt's format description mentions "Observation:" too, so only those count)."""
    for message in reversed(items):
        content = str(message.get("content", ""))
        if message.get("role") == "assistant" and "\nObservation:" in content:
            return content.rsplit("\nObservation:", 1)[1].strip()
    return None


class ScriptedLLM(BaseLLM):
    """Answers by script; thread-safe; never opens a socket.

    * ``replies``: role substring -> fixed final text ("" key: direct calls);
    * ``choose``: role substring -> the tool that agent calls (default: its first);
    * ``tool_args``: tool name -> the JSON arguments an agent sends;
    * ``fail``: role substring -> exception to raise on every call ("" direct
      calls, "*" every call);
    * ``flaky``: role substring -> how many first calls raise ConnectionError;
    * ``hang``: role substrings whose calls block until ``release()`` (or 30 s);
    * ``latency_s``: every call sleeps this long first (benchmarks).
    """

    replies: dict[str, str] = Field(default_factory=dict)
    choose: dict[str, str] = Field(default_factory=dict)
    tool_args: dict[str, dict[str, Any]] = Field(default_factory=dict)
    fail: dict[str, Exception] = Field(default_factory=dict)
    flaky: dict[str, int] = Field(default_factory=dict)
    hang: set[str] = Field(default_factory=set)
    latency_s: float = 0.0
    echo_reflection: bool = True
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _released: threading.Event = PrivateAttr(default_factory=threading.Event)
    _calls: list[LlmCall] = PrivateAttr(default_factory=list)
    _flaky_seen: dict[str, int] = PrivateAttr(default_factory=dict)

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> str:
        info = describe_call(messages, from_agent)
        with self._lock:
            self._calls.append(info)
        if self.latency_s:
            time.sleep(self.latency_s)
        for key, exc in self.fail.items():
            if key == "*" or (key and key in info.role) or (key == "" and not info.role):
                raise exc
        for key, count in self.flaky.items():
            if key in info.role:
                with self._lock:
                    seen = self._flaky_seen[key] = self._flaky_seen.get(key, 0) + 1
                if seen <= count:
                    raise ConnectionError("flaky endpoint")
        if any(key in info.role for key in self.hang if key):
            self._released.wait(30)
            raise TimeoutError("released")
        return self._answer(info)

    def get_input_tokens_count(
        self, messages: Any, tools: Any = None, response_model: Any = None
    ) -> int:
        return sum(len(str(m)) for m in _messages(messages)) // 4  # no warning per call

    def supports_function_calling(self) -> bool:
        return False  # CrewAI then speaks the ReAct text protocol with us

    # --- script -----------------------------------------------------------------------

    def _answer(self, info: LlmCall) -> str:
        fixed = self._fixed(info)
        if not info.role:  # a direct call: a light reply or the reflection pass
            if fixed is not None:
                return fixed
            return _echo(info) if self.echo_reflection else "Гаразд."
        if not info.react and not info.tools and fixed is None:
            return _summary(info)  # Stepan consolidating: he repeats his team's reports
        if info.react and info.tools and not info.observed:
            wanted = [tool for key, tool in self.choose.items() if key in info.role]
            tool = wanted[0] if wanted and wanted[0] in info.tools else info.tools[0]
            args = json.dumps(self.tool_args.get(tool, {}), ensure_ascii=False)
            return f"Thought: I need data\nAction: {tool}\nAction Input: {args}"
        body = fixed if fixed is not None else _summary(info)
        return f"Thought: done\nFinal Answer: {body}" if info.react else body

    def _fixed(self, info: LlmCall) -> str | None:
        for key, text in self.replies.items():
            if key and key in info.role:
                return text
        if not info.role and "" in self.replies:
            return self.replies[""]
        return None

    # --- inspection -------------------------------------------------------------------

    @property
    def calls(self) -> list[LlmCall]:
        with self._lock:
            return list(self._calls)

    @property
    def call_count(self) -> int:
        with self._lock:
            return len(self._calls)

    def roles(self) -> set[str]:
        return {call.role for call in self.calls if call.role}

    def release(self) -> None:
        self._released.set()


def _echo(info: LlmCall) -> str:
    """The reflection pass returns the answer it was shown; a light reply repeats the
    template the prompt offers."""
    text = info.last
    for marker in ("користувача рівня", 'user of level "'):
        if marker in text:
            body = text.split("\n", 1)[1] if "\n" in text else ""
            for stop in ("\nЯкщо відповідь занадто технічна", "\nIf the answer is too technical"):
                body = body.split(stop, 1)[0]
            return body.strip() or "Гаразд."
    quoted = re.search(r"[«\"](.+)[»\"]\s*$", info.system, re.DOTALL)
    return quoted.group(1).strip() if quoted else "Гаразд."


def _summary(info: LlmCall) -> str:
    """A final answer that repeats what it was given, as a diligent agent would."""
    reports = info.everything.split("Reports from your team:", 1)
    if len(reports) == 2:
        return reports[1].split("Could not be checked:", 1)[0].strip() or "Готово."
    return info.observation or "Готово."


# --- No internet -----------------------------------------------------------------------------


class OutboundBlocked(OSError):
    """A test tried to reach a non-loopback address."""


def _loopback(host: Any) -> bool:
    if not isinstance(host, str):
        return True  # AF_UNIX paths and the like
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@contextmanager
def no_outbound_connections() -> Iterator[list[str]]:
    """Refuse (and record) every connection or name lookup beyond loopback."""
    attempts: list[str] = []
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    original_getaddrinfo = socket.getaddrinfo

    def check(address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if not _loopback(host):
            attempts.append(str(host))
            raise OutboundBlocked(f"outbound connection to {host!r} refused by the test guard")

    def connect(self: socket.socket, address: Any) -> None:
        check(address)
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return original_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, bytes):
            host = host.decode()
        check((host,))
        return original_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = getaddrinfo
    try:
        yield attempts
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = original_getaddrinfo


def scripted(**kwargs: Any) -> ScriptedLLM:
    return ScriptedLLM(model="scripted-test", **kwargs)
