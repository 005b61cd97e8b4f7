"""How Stepan proves who it acts for to the memory-service.

The service takes the acting user from the bearer token (its ``verify_token``: a JWT
whose subject is the user) and refuses a write for anyone else (403). So every call
carries a token for the one farmer it concerns:

* ``AGX_MEMORY_SERVICE_JWT_SECRET``: a JWT signed per call (HS256, ``sub`` = the
  memory user id ``stepan:{user_id}``, ``iss`` stepan, ``iat`` 30 s in the past,
  ``exp`` five minutes ahead);
* ``AGX_MEMORY_SERVICE_TOKEN``: one static bearer token. The service takes the
  acting user from the token, so a static token acts for one subject only: it serves
  a deployment with a single farmer, and start-up refuses it when more than one
  farmer would sync with it (``bot.wiring.memory``).

Clock skew: PyJWT refuses a token whose ``iat`` is ahead of the verifier's clock
(beyond its ``leeway``, 0 by default) and one whose ``exp`` has passed. Dating
``iat`` ``IAT_BACKDATE_S`` back lets Stepan's clock run up to 30 s ahead of the
service's; ``exp`` lets it run up to five minutes behind (less the call's own time).
A service decoding with ``leeway=L`` widens both by L.

The JWT is base64url text, so a non-ASCII user id never reaches a header raw. Neither
secret is ever logged: ``repr`` of this object names the kind only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import jwt
from pydantic import SecretStr

ISSUER = "stepan"
#: A token lives this long: enough for one call and its retries, short if it leaks.
TOKEN_TTL_S = 300
ALGORITHM = "HS256"
#: ``iat`` is dated this far back: a Stepan clock this much ahead still passes.
IAT_BACKDATE_S = 30

Kind = Literal["jwt", "static", "none"]

#: Which setting an operator fixes when the service says 401/403.
SETTING = {
    "jwt": "AGX_MEMORY_SERVICE_JWT_SECRET",
    "static": "AGX_MEMORY_SERVICE_TOKEN",
    "none": "AGX_MEMORY_SERVICE_JWT_SECRET (or AGX_MEMORY_SERVICE_TOKEN)",
}


#: Added to a 403 in static-token mode: a write for another farmer than the token's.
STATIC_403_HINT = (
    " (a static token acts for one farmer only; for several set AGX_MEMORY_SERVICE_JWT_SECRET)"
)


@dataclass(frozen=True, slots=True)
class Credentials:
    jwt_secret: SecretStr | None = field(default=None, repr=False)
    static_token: SecretStr | None = field(default=None, repr=False)
    ttl_s: int = TOKEN_TTL_S
    clock: Callable[[], float] = field(default=time.time, repr=False, compare=False)

    @property
    def kind(self) -> Kind:
        if self.jwt_secret is not None:
            return "jwt"
        return "static" if self.static_token is not None else "none"

    @property
    def setting(self) -> str:
        """The environment variable to fix when the service refuses the token."""
        return SETTING[self.kind]

    def refused(self, status_code: int) -> str:
        """What to fix for this refusal (401/403)."""
        if status_code == 403 and self.kind == "static":
            return self.setting + STATIC_403_HINT
        return self.setting

    def headers(self, memory_user: str) -> dict[str, str]:
        """The Authorization header for a call made for ``memory_user`` (none without
        credentials: the service will answer 401, which /status then shows)."""
        if self.jwt_secret is not None:
            now = int(self.clock())
            claims = {"sub": memory_user, "iss": ISSUER, "iat": now - IAT_BACKDATE_S,
                      "exp": now + self.ttl_s}  # fmt: skip
            token = jwt.encode(claims, self.jwt_secret.get_secret_value(), algorithm=ALGORITHM)
            return {"Authorization": f"Bearer {token}"}
        if self.static_token is not None:
            return {"Authorization": f"Bearer {self.static_token.get_secret_value()}"}
        return {}
