"""script_safe_json: JSON that cannot end or comment out the <script> element it sits in."""
from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from citecheck.embed import script_safe_json
from fixtures_reports import hostile_report

UNSAFE = ("<", ">", "&", "\u2028", "\u2029")
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
hostile_text = st.lists(st.sampled_from(
    ["</script>", "</SCRIPT >", "<!--", "-->", "<script>", "&amp;", "\u2028", "\u2029", "a",
     '"', "\\", "]]>", "</", "é"]), max_size=12).map("".join)


def test_known_payloads_are_escaped():
    value = {"doi": "10.1/x</script><script>alert(1)</script>", "t": "<!-- a & b -->",
             "ls": "line\u2028sep\u2029para"}
    text = script_safe_json(value)
    assert not any(c in text for c in UNSAFE)
    assert "\\u003c/script\\u003e" in text and "\\u2028" in text and "\\u2029" in text
    assert json.loads(text) == value


@given(json_values)
def test_round_trips_any_json(value):
    text = script_safe_json(value)
    assert json.loads(text) == value
    assert not any(c in text for c in UNSAFE)


@given(hostile_text)
def test_hostile_strings_round_trip_and_leave_no_markup(value):
    text = script_safe_json({"title": value, "list": [value]})
    assert json.loads(text) == {"title": value, "list": [value]}
    lowered = text.lower()
    assert "</script" not in lowered and "<!--" not in lowered and "<script" not in lowered


def test_accepts_a_report_model():
    report = hostile_report()
    assert json.loads(script_safe_json(report)) == report.model_dump(mode="json")
