"""Claims: does the cited source say what the citing sentence attributes to it?

Passages of the cited work's visible text are retrieved with BM25, a ``Judge`` reads a
few of them, and every answer is checked (verbatim quotes, numbers) before it becomes a
verdict. Without a model every claim is still listed with its candidate evidence.
"""

from .backends import DEFAULT_PROMPT, AnthropicJudge, Judge, ScriptedJudge
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
    "AnthropicJudge",
    "Candidate",
    "CitedText",
    "Claim",
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
]
