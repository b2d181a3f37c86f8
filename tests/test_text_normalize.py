"""Normalisation and sentence splitting used by extraction and by quote checks."""

from __future__ import annotations

import pytest

from citecheck.text import normalize_text, split_sentences
from citecheck.text.normalize import dehyphenate_join


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("the \ufb01rst \ufb02ower", "the first flower"),
        ("signi fi cant e ff ect", "significant effect"),
        ("exam-\nple of text", "example of text"),
        ("\u201cquoted\u201d \u2013 it\u2019s", "\"quoted\" - it's"),
        ("soft\u00adhyphen  and\n\n  spaces", "softhyphen and spaces"),
        ("Jim \u0301enez and No\u02c6us", "Jiménez and Noûs"),
        ("\uff21\uff22\uff23 full width", "ABC full width"),
    ],
)
def test_normalize_text_removes_print_artifacts(raw: str, expected: str) -> None:
    assert normalize_text(raw) == expected


def test_normalize_text_is_idempotent() -> None:
    text = "The \ufb01rst exam-\nple, \u201cq\u201d \u2014 done."
    assert normalize_text(normalize_text(text)) == normalize_text(text)


def test_dehyphenate_join_keeps_known_compounds() -> None:
    assert dehyphenate_join("the exam-", "ple here") == "the example here"
    assert dehyphenate_join("a semi-", "natural habitat") == "a semi-natural habitat"
    assert dehyphenate_join("set-", "aside fields", {"set-aside"}) == "set-aside fields"
    assert dehyphenate_join("Smith-", "Jones said") == "Smith- Jones said"


def test_split_sentences_keeps_abbreviations_decimals_and_initials() -> None:
    text = (
        "Smith et al. found 3.5 mg per plot. See Fig. 2 and e.g. the data, i.e. all of it. "
        "J. R. Smith agreed. It worked [3]. Then it failed (Lee, 2019)! Why? No."
    )
    assert split_sentences(text) == [
        "Smith et al. found 3.5 mg per plot.",
        "See Fig. 2 and e.g. the data, i.e. all of it.",
        "J. R. Smith agreed.",
        "It worked [3].",
        "Then it failed (Lee, 2019)!",
        "Why?",
        "No.",
    ]


def test_split_sentences_keeps_superscript_markers_with_their_sentence() -> None:
    assert split_sentences("Heat rose.12 Reefs bleached.3,4 The end") == [
        "Heat rose.12",
        "Reefs bleached.3,4",
        "The end",
    ]


def test_split_sentences_breaks_at_blank_lines() -> None:
    assert split_sentences("Introduction\n\nThe body starts here.") == ["Introduction", "The body starts here."]
