"""Claims: does the cited source say what the citing sentence attributes to it?

Passages of the cited work's visible text are retrieved with BM25, a ``Judge`` reads a
few of them, and every answer is checked (verbatim quotes, numbers) before it becomes a
verdict. Without a model every claim is still listed with its candidate evidence. In batch
mode the questions can go through the Message Batches API (``BatchJudge``).
"""

from .backends import DEFAULT_PROMPT, AnthropicJudge, Judge, ScriptedJudge
from .batches import AnsweringJudge, BatchJudge, CollectingJudge, judge_claims_batched
from .claims import apply_outcome, judge_claims
from .models import (
    Candidate,
    CitedText,
    Claim,
    EvidenceItem,
    EvidenceQuote,
    JudgeOutcome,
    JudgeRequest,
    NumberCheck,
    Passage,
    Verdict,
)
from .replay import RecordedResponses, RecordingTransport, ReplayJudge

__all__ = [
    "DEFAULT_PROMPT",
    "AnsweringJudge",
    "AnthropicJudge",
    "BatchJudge",
    "Candidate",
    "CitedText",
    "Claim",
    "CollectingJudge",
    "EvidenceItem",
    "EvidenceQuote",
    "Judge",
    "JudgeOutcome",
    "JudgeRequest",
    "NumberCheck",
    "Passage",
    "RecordedResponses",
    "RecordingTransport",
    "ReplayJudge",
    "ScriptedJudge",
    "Verdict",
    "apply_outcome",
    "judge_claims",
    "judge_claims_batched",
]
