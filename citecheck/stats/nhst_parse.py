"""Find APA-style test results (t, F, r, chi2, z, Q with their p) in page text.

The grammar follows statcheck's (``R/regex.R`` in MicheleNuijten/statcheck, read, not copied):
a test name with its degrees of freedom, a comparison and a value, then ``p`` with a comparison
and a value, or "ns". It is tolerant of the PDF damage statcheck documents: minus signs printed
as hyphens, U+2212, en dashes or an undecodable glyph; ``χ2`` read as ``chi2``, ``x2``, ``X2``,
``G2``, ``?2``; ``F(l, 76)`` for ``F(1, 76)``; a stray ``B`` (a lost quotation mark) before the
test name; and the glyph substitutions of some journals' fonts: ``b`` for ``<``, ``N`` for ``>``,
``p`` for ``=``, ``!`` for ``<`` and ``¼`` for ``=`` (statcheck rewrites these in the whole
text; here they are accepted only inside the result grammar and noted on the item).

Additions over statcheck: degrees of freedom set as subscripts, which lose their parentheses in
extracted text (``F 2,25 = 7.90, P = 0.002``, ``t 7 = 5.52``; a subscript t needs df >= 3 so that
time points such as ``t1``/``t2`` are not read as tests), ``t = 5.04, df = 12, p = .0001``,
plural forms (``ts(38)``, ``Fs(1, 248)``, ``ps > .28``), ``p`` written
``P``, up to two "label = number" clauses between the statistic and its p
(``F(2, 70) = 4.48, MSE = 6.61, p < .02``), and ``p < . 001``.

Further additions (issue #6 follow-up), each read only where no guess is needed:

* several values in one result: ``F(1, 15) = 19.9 and 5.16, p < .001 and p < .05`` pairs the
  values with their p's in order (a different number of p's is skipped);
  ``F(1, 15) = 19.9 and 5.16, ps < .05`` shares one p, but only a ``<``/``>``/ns p: a shared
  ``p = x`` cannot belong to two different values, so it is skipped;
* r with N but no df (``r = .32, N = 120, p < .001``, ``r = .32, p < .001, N = 120``,
  ``r(N = 120) = .32``): df = N - 2. Skipped when the r has fewer than two decimals (a
  parameter such as "r = 0.5") or the words before it mention partial/controlled/adjusted/
  covariates (df would be smaller);
* chi2 with N but no df (``chi2 = 5.2, N = 120, p = .02``, ``chi2(N = 120) = 5.2``), named
  only χ2/chi2/chi-square (not the damaged ``x2``/``G2``/``B2`` forms, which are regression
  weights or variables as often as not); its df stays unknown (see ``nhst_check``).
"""
from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass

from citecheck.stats.numbers import Printed, parse_number

logger = logging.getLogger(__name__)

# Comparison glyphs: the real ones and the font-damage substitutions listed in the docstring.
_DAMAGED_COMPARISON = {"b": "<", "N": ">", "!": "<", "p": "=", "\u00bc": "="}
_COMP = r"(?:[=<>\u00bc]|b|N|!|(?<=\s)p(?=\s))"
_NUM = r"\d*\.?\d+"
# Undecodable glyphs that PDF converters leave around comparison signs.
_JUNK = r"[\x00-\x08\x0b\x0e-\x1f\ufffd]*"
_SPACE_OR_JUNK = r"[\s\x00-\x08\x0b\x0e-\x1f\ufffd]{0,4}"
_DF = r"\d+(?:\.\d+)?"
_P_VALUE = r"\d?\.\s?\d+(?:[eE]-?\d+)?|\d(?:\.\d+)?"
_COUNT = r"\d{1,3}(?:,\d{3})+|\d+"
_Q_SUFFIX = (
    r"(?:\s?-?\s?(?:[Bb]etween|[Ww]ithin|[Tt]otal|[Ee]rror|[Rr]esidual|[Mm]odel|b|w|B|W|T|E|M|R|H))?"
)
_CHI_NAME_PLAIN = r"(?:\u03c7|\u03a7|[Cc]hi|CHI)\s?(?:2|\u00b2|\^2|-?squared?)"
_CHI_NAME = r"(?:\u03c7|\u03a7|[Cc]hi|CHI|x|X|G|\?|\ufffd|B)\s?(?:2|\u00b2|\^2|-?squared?)"

_RESULT = re.compile(
    rf"""
    (?:(?<![A-Za-z0-9])|(?<=(?<![A-Za-z0-9])B))  # the test name starts a word (B: a lost quote)
    (?P<test>
        (?P<tr>[tr])s?\s?\(\s?(?P<df_tr>{_DF})\s?\)
      | r\s?\(\s?[Nn]\s?=\s?(?P<n_r>{_COUNT})\s?\)                  # r(N = 120) = .32
      | (?P<chi_n>{_CHI_NAME})\s?\(\s?[Nn]\s?=\s?(?P<n_chi>{_COUNT})\s?\)  # chi2(N = 120) = 5.2
      | F s?\s?\(\s?(?P<df1_f>\d+|[lI])\s?,\s?(?P<df2_f>{_DF})\s?\)
      | Q{_Q_SUFFIX}\s?\(\s?(?P<df_q>\d+)\s?\)
      | {_CHI_NAME}\s?\(\s?(?P<df_chi>\d+)\s?(?:,\s?N\s?(?:=|p)\s?\d[\d,]*\s?)?\)
      | (?P<z>[zZ])s?
      | F\s?(?P<df1_fsub>\d+)\s?,\s?(?P<df2_fsub>{_DF})(?=\s?[=<>])   # subscript dfs: F 2,25 = 7.90
      | t\s?(?P<df_tsub>[3-9]|[1-9]\d+(?:\.\d+)?)(?=\s?[=<>])  # t 7 = 5.52, not t1/t2
      | (?P<tbare>t)(?=\s?[=<>])                                  # t = 5.04, df = 12
      | (?P<bare>r|{_CHI_NAME_PLAIN})(?=\s?[=<>])                        # r = .32, N = 120
    )
    {_SPACE_OR_JUNK}(?P<tcomp>{_COMP})
    (?P<gap>[^\w.,;:()\[\]=<>]{{0,6}})
    (?P<value>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|{_NUM})
    (?![\d.]\d)
    (?P<more>(?:\s?,\s?-?{_NUM}(?![\d.]\d)){{0,3}}\s?,?\s(?:and|&)\s-?{_NUM}(?![\d.]\d))?
    \s?(?:[,;(\[]|\s)\s*
    (?(tbare)df\s?=\s?(?P<df_after>{_DF})\s?[,;]\s*|)
    (?(bare)(?:[Nn]\s?=\s?(?P<n_after>{_COUNT})\s?[,;]\s*)?|)
    (?P<between>(?:(?![pP]s?\b)[A-Za-z\u0370-\u03ff][A-Za-z\u0370-\u03ff\u00b22_ ]{{0,10}}
        \s?=\s?-?\s?{_NUM}\s?[,;]\s*){{0,2}})
    (?:
        (?P<pword>[pP]s?){_SPACE_OR_JUNK}(?P<pcomp>{_COMP}|p){_SPACE_OR_JUNK}(?P<pval>{_P_VALUE})
        (?![\d])
      | (?P<ns>(?<![A-Za-z])[nN]\.?[sS]\b\.?)
    )
    (?:\s?[,;]\s?[Nn]\s?=\s?(?P<n_trail>{_COUNT})(?![\d.]\d))?
    (?(more)(?P<more_p>(?:\s?,?\s(?:and\s)?[pP]\s?[=<>]\s?(?:{_P_VALUE})(?!\d)){{1,3}})?|)
    """,
    re.VERBOSE,
)

# Words before an r whose df is not N - 2 (partial correlations lose one df per covariate).
_PARTIAL = re.compile(r"partial|controll|adjust|covari", re.IGNORECASE)
_PARTIAL_WINDOW = 150

_ONE_TAILED = re.compile(r"one.?sided|one.?tailed|directional", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedTest:
    """One reported test result, with offsets into the page text."""

    start: int
    end: int
    statistic: str  # "t", "F", "r", "chi2", "z", "Q"
    df1: float | None
    df2: float | None
    test_comparison: str
    value: Printed
    p_comparison: str  # "=", "<", ">" or "ns"
    p_value: Printed | None
    p_text: str
    notes: tuple[str, ...]


def mentions_one_tailed(text: str) -> bool:
    """statcheck's rule: the phrase one-sided/one-tailed/directional anywhere in the text."""
    return bool(_ONE_TAILED.search(text))


def _is_minus(gap: str, notes: list[str]) -> bool:
    """Whether the characters between the comparison and the value are a minus sign.

    A hyphen (after normalisation, any dash) is one. As in statcheck, an undecodable glyph
    directly before the digits is read as a minus too; one followed by a space is left-over
    damage around the comparison sign and is ignored.
    """
    if "-" in gap:
        return True
    if "+" in gap or not gap.strip() or gap[-1].isspace():
        return False
    notes.append(f"{gap.strip()!r} before the value read as a minus sign")
    return True


def _comparison(raw: str, notes: list[str]) -> str:
    if raw in _DAMAGED_COMPARISON:
        real = _DAMAGED_COMPARISON[raw]
        notes.append(f"'{raw}' read as '{real}' (font damage)")
        return real
    return raw


def _statistic_and_df(
    match: re.Match[str], notes: list[str]
) -> tuple[str, float | None, float | None] | None:
    if match.group("tr"):
        return match.group("tr"), None, float(match.group("df_tr"))
    if match.group("df2_f"):
        df1_raw = match.group("df1_f")
        df1 = 1.0 if df1_raw in ("l", "I") else float(df1_raw)
        return "F", df1, float(match.group("df2_f"))
    if match.group("df_q"):
        return "Q", float(match.group("df_q")), None
    if match.group("df_chi"):
        return "chi2", float(match.group("df_chi")), None
    if match.group("z"):
        return "z", None, None
    if match.group("df2_fsub"):
        return "F", float(match.group("df1_fsub")), float(match.group("df2_fsub"))
    if match.group("df_tsub"):
        return "t", None, float(match.group("df_tsub"))
    if match.group("df_after"):
        return "t", None, float(match.group("df_after"))
    return _statistic_from_sample_size(match, notes)


def _statistic_from_sample_size(
    match: re.Match[str], notes: list[str]
) -> tuple[str, float | None, float | None] | None:
    """r and chi2 printed without df but with N: r gets df = N - 2; chi2 keeps df unknown."""
    raw_n = match.group("n_r") or match.group("n_chi") or match.group("n_after") or (
        match.group("n_trail") if match.group("bare") else None
    )
    if raw_n is None:
        return None
    n = int(raw_n.replace(",", ""))
    if match.group("n_r") or match.group("bare") == "r":
        if n < 4:
            return None
        notes.append(f"df = N - 2 = {n - 2} from the printed N = {n}")
        return "r", None, float(n - 2)
    notes.append(f"chi2 printed with N = {n} but no df; checked against every df >= 1")
    return "chi2", None, None


def find_tests(text: str) -> Iterator[ParsedTest]:
    """Yield every test result in ``text``, which must already be ``normalise``-d.

    Several values sharing one statistic, df and p (``F(1, 15) = 19.9 and 5.16, ps < .05``)
    yield one result each, all with the same offsets.
    """
    for match in _RESULT.finditer(text):
        before = text[max(0, match.start() - _PARTIAL_WINDOW): match.start()]
        yield from _parse(match, before)


def _parse(match: re.Match[str], before: str) -> list[ParsedTest]:
    notes: list[str] = []
    named = _statistic_and_df(match, notes)
    if named is None:
        return []
    statistic, df1, df2 = named
    value = parse_number(match.group("value"))
    if value is None:
        return []
    if (_df_from_sample_size(match) and statistic == "r"
            and (value.decimals < 2 or _PARTIAL.search(before))):
        return []  # a parameter such as "r = 0.5", or a partial r whose df is below N - 2
    if _is_minus(match.group("gap"), notes):
        value = Printed(-value.value, value.decimals)
    test_comparison = _comparison(match.group("tcomp"), notes)
    if match.group("ns"):
        p_comparison, p_value, p_text = "ns", None, "ns"
    else:
        p_comparison = _comparison(match.group("pcomp"), notes)
        p_value = parse_number(match.group("pval").replace(" ", ""))
        if p_value is None:
            return []
        p_text = f"{p_comparison} {match.group('pval').replace(' ', '')}"
    values = [value, *_shared_values(match.group("more"))]
    p_values = [(p_comparison, p_value, p_text), *_respective_ps(match.group("more_p"))]
    if None in values or any(printed is None for _, printed, _ in p_values[1:]):
        return []
    if len(p_values) > 1:
        if len(p_values) != len(values):
            return []
        notes.append(f"one of {len(values)} values given with their p's in the same order")
    elif len(values) > 1:
        if p_comparison == "=":
            return []  # "= 2.5 and 2.6, p = .02": which value has that p is not said
        notes.append(f"one of {len(values)} values sharing this statistic, df and p")
        p_values = p_values * len(values)
    if match.group("df2_fsub") or match.group("df_tsub"):
        notes.append("degrees of freedom read from a subscript")
    if match.group("test").startswith("B") and statistic != "chi2":
        notes.append("leading 'B' read as a lost quotation mark")
    results = []
    for printed, (p_comparison, p_value, p_text) in zip(values, p_values, strict=True):
        if not _plausible(statistic, df1, df2, printed, p_value):
            logger.debug("implausible test result skipped: %r", match.group(0))
            return []
        results.append(
            ParsedTest(
                start=match.start(),
                end=match.end(),
                statistic=statistic,
                df1=df1,
                df2=df2,
                test_comparison=test_comparison,
                value=printed,
                p_comparison=p_comparison,
                p_value=p_value,
                p_text=p_text,
                notes=tuple(notes),
            )
        )
    return results


def _respective_ps(more_p: str | None) -> list[tuple[str, Printed | None, str]]:
    """The further p's of "= 19.9 and 5.16, p < .001 and p < .05", in order."""
    if not more_p:
        return []
    found = re.findall(rf"[pP]\s?([=<>])\s?({_P_VALUE})", more_p)
    return [(sign, parse_number(raw.replace(" ", "")), f"{sign} {raw.replace(' ', '')}")
            for sign, raw in found]


def _df_from_sample_size(match: re.Match[str]) -> bool:
    return bool(match.group("n_r") or match.group("n_chi") or match.group("bare"))


def _shared_values(more: str | None) -> list[Printed | None]:
    """The further values of "= 19.9 and 5.16" / "= 2.1, 3.4, and 4.2" (signs dropped: a
    shared p is read two-tailed, so only the magnitude matters)."""
    if not more:
        return []
    return [parse_number(raw) for raw in re.findall(r"\d*\.?\d+", more)]


def _plausible(
    statistic: str, df1: float | None, df2: float | None, value: Printed, p_value: Printed | None
) -> bool:
    """Drop matches that cannot be a real result (statcheck drops these too)."""
    if p_value is not None and not 0 <= p_value.value <= 1:
        return False
    if statistic == "r" and abs(value.value) > 1:
        return False
    if statistic in ("F", "chi2", "Q") and value.value < 0:
        return False
    return all(df is None or df > 0 for df in (df1, df2))
