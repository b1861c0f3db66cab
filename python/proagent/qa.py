"""CoordinationQA (LLM-Coordination, Agashe et al.) from Python: the questions with the
chat messages the evaluator sends, and the benchmark's scorer for any model's replies."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from ._native import qa_questions as _questions
from ._native import qa_score as _score

__all__ = ["questions", "score"]


def questions(filter: Optional[str] = None, data: Optional[str] = None) -> List[Dict[str, Any]]:
    """The benchmark's questions (embedded copy, or the CSV at ``data``), each a dict with
    ``id``, ``category``, ``game``, ``options``, ``accepted`` ... and ``messages``: the chat
    messages to send. ``filter`` is the CLI's ``--filter`` (e.g. ``"game=Overcooked,category=ToM"``).
    """
    return _questions(filter=filter, data=None if data is None else str(data))


def score(
    replies: Dict[str, Union[str, None, Sequence[Optional[str]]]],
    model: str = "python",
    compat: bool = False,
    filter: Optional[str] = None,
    data: Optional[str] = None,
) -> Dict[str, Any]:
    """Scores replies with the benchmark's scorer and returns the report of
    ``proagent qa --json`` plus ``exchanges`` (one scored record per reply).

    ``replies`` maps a question id to its reply text, or to a list with one reply per
    trial (``None`` for a request that failed). ``compat=True`` uses the original
    evaluator's rules, to compare with published figures.
    """
    return _score(replies, model=model, compat=compat, filter=filter, data=None if data is None else str(data))
