"""Stepan among the DAARION agents (docs/peers.md): the peer directory, which part of
a message is a peer's, the consent and the handoff over NATS, and Stepan answering
other agents' contracts. Nothing leaves without the farmer's yes, and nothing
confidential leaves at all (:mod:`pipeline.privacy`)."""
