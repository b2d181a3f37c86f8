import json
from pathlib import Path

import jsonschema
from hypothesis import given, settings, strategies as st

import citecheck
from citecheck.report import Claim, RefItem, Report, Work, report_json_schema

SHIPPED = Path(citecheck.__file__).parent / "report.schema.json"


def test_shipped_schema_matches_the_model():
    assert json.loads(SHIPPED.read_text()) == report_json_schema(), \
        "regenerate citecheck/report.schema.json (citecheck schema > citecheck/report.schema.json)"


def test_empty_report_validates():
    jsonschema.Draft202012Validator(report_json_schema()).validate(
        json.loads(Report().model_dump_json()))


def test_text_fields_are_plain_text():
    report = Report(work=Work(title="<jats:p>Hello <i>world</i></jats:p><script>x()</script>",
                              abstract="a &lt;b&gt; c <img src=x onerror=alert(1)>"))
    assert report.work.title == "Hello world"
    assert "<" not in report.work.abstract and "onerror" not in report.work.abstract


@settings(max_examples=60, deadline=None)
@given(title=st.text(max_size=80), doi=st.text(max_size=40), quote=st.text(min_size=1, max_size=80))
def test_round_trip_is_stable(title, doi, quote):
    report = Report(work=Work(title=title),
                    references={"items": [RefItem(id="ref-001", status="linked", doi=doi, title=title)]},
                    claims={"outgoing": [Claim(id="claim-001", quote=quote)]})
    once = report.model_dump_json()
    again = Report.model_validate_json(once).model_dump_json()
    assert once == again
    assert "<" not in (report.work.title or "")
