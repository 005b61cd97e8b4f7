"""Stepan among other agents (docs/peers.md): the desk that offers a peer's help to a
farmer, and the server that answers other agents' contracts over NATS."""

from __future__ import annotations

from db.uow import Database
from pipeline.handle import Pipeline
from pipeline.language.catalog import Catalog
from pipeline.peers.answer import StrangerAnswerer
from pipeline.peers.desk import HandoffDesk
from pipeline.peers.link import NatsLink
from pipeline.peers.routing import PeerRouter, classifier_strength
from pipeline.peers.server import PeerServer
from pipeline.privacy import Sanitizer
from pipeline.rulebook import Rulebook

__all__ = ["handoff_desk", "peer_server"]


def handoff_desk(
    rules: Rulebook, catalog: Catalog, db: Database, peer_link: NatsLink | None
) -> HandoffDesk:
    """Peer agents: the offer and the consent always work; the question travels over
    NATS only with a link, else the farmer gets the peer's handle."""
    return HandoffDesk(
        router=PeerRouter(rules.peers, classifier_strength(rules.classifier)),
        sanitizer=Sanitizer(rules.privacy),
        catalog=catalog,
        database=db,
        link=peer_link,
    )


def peer_server(link: NatsLink, pipeline: Pipeline, rules: Rulebook, db: Database) -> PeerServer:
    """Stepan answering other agents' contracts on NATS (docs/peers.md)."""
    answerer = StrangerAnswerer(
        catalog=pipeline.catalog,
        classifier=pipeline.classifier,
        responder=pipeline.responder,
        deep=pipeline.deep,
        directory=rules.peers,
    )
    return PeerServer(
        directory=rules.peers,
        answerer=answerer,
        sanitizer=Sanitizer(rules.privacy),
        database=db,
        link=link,
    )
