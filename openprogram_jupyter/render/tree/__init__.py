"""A run as a tree of rounds and calls, built by folding its events.

Both views read this tree and nothing else: the live widget view folds events into it as
they arrive (:meth:`TreeBuilder.apply`) and redraws what changed; the static transcripts
(:mod:`..html`, :mod:`..markdown`, :mod:`..plain`) fold a finished ``Run``
(:func:`tree_of`) and print it. So what the live view showed and what is saved cannot
drift apart.

The tree::

    RunNode                     one run (the top level, or a nested run)
      timeline: UserNode        the prompt, a steering or follow-up message
                RoundNode       one assistant reply
                  items: Block      streamed text or thinking
                         CallNode   one pick: arguments, status, result, duration
                           children: RunNode ...   runs opened by that call's tool
                         NoticeNode a message from the provider layer
                         RetryNode  a wait before the round's request is sent again

:mod:`.nodes` holds the node classes and :data:`NODE_KINDS`, the kinds each view draws
through a :class:`NodeHandlers` table; :mod:`.builder` folds events; :mod:`.finished`
builds the tree of a finished Run.
"""

from __future__ import annotations

from .builder import EVENT_HANDLERS, UPDATE_HANDLERS, TreeBuilder
from .finished import tree_of
from .nodes import (
    FINAL_STATUSES,
    NODE_KINDS,
    Approval,
    Block,
    CallNode,
    CallStatus,
    NodeHandlers,
    NoticeNode,
    RetryNode,
    RoundItem,
    RoundNode,
    RunNode,
    TimelineItem,
    UserNode,
    elapsed,
)

__all__ = [
    "EVENT_HANDLERS",
    "FINAL_STATUSES",
    "NODE_KINDS",
    "UPDATE_HANDLERS",
    "Approval",
    "Block",
    "CallNode",
    "CallStatus",
    "NodeHandlers",
    "NoticeNode",
    "RetryNode",
    "RoundItem",
    "RoundNode",
    "RunNode",
    "TimelineItem",
    "TreeBuilder",
    "UserNode",
    "elapsed",
    "tree_of",
]
