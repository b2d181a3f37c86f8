"""The work's metadata from Crossref and OpenAlex, and whether the two registries agree."""
from __future__ import annotations

import unicodedata

from rapidfuzz import fuzz

from .doi import try_normalize_doi
from .plaintext import to_plain_text
from .report import Author, Difference, Ids, OpenAccess, Work, YearCount

TITLE_AGREEMENT = 90.0  # token_sort_ratio on plain, case-folded titles


def _first(value):
    if isinstance(value, list):
        return value[0] if value else None
    return value


def crossref_date(message: dict) -> str | None:
    for key in ("published-print", "published-online", "issued", "published", "created"):
        parts = ((message.get(key) or {}).get("date-parts") or [[None]])[0]
        if parts and parts[0]:
            return "-".join(f"{int(p):02d}" if i else str(int(p)) for i, p in enumerate(parts))
    return None


def crossref_year(message: dict) -> int | None:
    date = crossref_date(message)
    return int(date[:4]) if date else None


def _short_id(url: str | None) -> str | None:
    return url.rstrip("/").rsplit("/", 1)[-1] if url else None


def openalex_authors(work: dict) -> list[Author]:
    authors = []
    for authorship in work.get("authorships") or []:
        author = authorship.get("author") or {}
        authors.append(Author(
            name=author.get("display_name") or authorship.get("raw_author_name") or "",
            orcid=_short_id(author.get("orcid")),
            openalex_id=_short_id(author.get("id")),
            affiliations=[i.get("display_name") for i in authorship.get("institutions") or []
                          if i.get("display_name")],
        ))
    return authors


def crossref_authors(message: dict) -> list[Author]:
    authors = []
    for person in message.get("author") or []:
        name = " ".join(p for p in (person.get("given"), person.get("family")) if p) or person.get("name", "")
        authors.append(Author(
            name=name,
            orcid=_short_id(person.get("ORCID")),
            affiliations=[a.get("name") for a in person.get("affiliation") or [] if a.get("name")],
        ))
    return authors


def build_work(doi: str, crossref: dict | None, openalex: dict | None) -> Work:
    cr, oa = crossref or {}, openalex or {}
    location = oa.get("primary_location") or {}
    source = location.get("source") or {}
    biblio = oa.get("biblio") or {}
    oa_info = oa.get("open_access") or {}
    best = oa.get("best_oa_location") or {}
    locations = []
    for loc in [best] + list(oa.get("locations") or []):
        for key in ("pdf_url", "landing_page_url"):
            if loc and loc.get(key) and loc[key] not in locations:
                locations.append(loc[key])
    ids = oa.get("ids") or {}
    first_page, last_page = biblio.get("first_page"), biblio.get("last_page")
    oa_pages = f"{first_page}-{last_page}" if first_page and last_page and first_page != last_page else first_page
    return Work(
        title=_first(cr.get("title")) or oa.get("title") or oa.get("display_name"),
        authors=openalex_authors(oa) or crossref_authors(cr),
        venue=_first(cr.get("container-title")) or source.get("display_name"),
        publisher=cr.get("publisher") or source.get("host_organization_name"),
        published=crossref_date(cr) or oa.get("publication_date"),
        volume=cr.get("volume") or biblio.get("volume"),
        issue=cr.get("issue") or biblio.get("issue"),
        pages=cr.get("page") or oa_pages,
        issn=list(dict.fromkeys((cr.get("ISSN") or []) + (source.get("issn") or []))),
        type=cr.get("type") or oa.get("type"),
        language=cr.get("language") or oa.get("language"),
        abstract=cr.get("abstract") or _inverted_abstract(oa.get("abstract_inverted_index")),
        open_access=OpenAccess(status=oa_info.get("oa_status"),
                               license=best.get("license") or _crossref_license(cr),
                               locations=locations),
        ids=Ids(doi=doi, openalex=_short_id(oa.get("id")), pmid=_short_id(ids.get("pmid")),
                pmcid=_pmcid(ids.get("pmcid"))),
        cited_by_count=oa.get("cited_by_count", cr.get("is-referenced-by-count")),
        references_count=cr.get("references-count", cr.get("reference-count")),
        counts_by_year=sorted((YearCount(year=c["year"], cited_by_count=c.get("cited_by_count", 0))
                               for c in oa.get("counts_by_year") or [] if c.get("year")),
                              key=lambda c: c.year),
        funders=[f.get("name") for f in cr.get("funder") or [] if f.get("name")]
        or [g.get("funder_display_name") for g in oa.get("grants") or [] if g.get("funder_display_name")],
        topics=[t.get("display_name") for t in oa.get("topics") or [] if t.get("display_name")]
        or [c.get("display_name") for c in (oa.get("concepts") or [])[:5] if c.get("display_name")],
        keywords=[k.get("display_name") or k.get("keyword") for k in oa.get("keywords") or []
                  if isinstance(k, dict)] or list(cr.get("subject") or []),
    )


def _pmcid(url: str | None) -> str | None:
    short = _short_id(url)
    return f"PMC{short}" if short and short.isdigit() else short


def _crossref_license(message: dict) -> str | None:
    for lic in message.get("license") or []:
        if lic.get("URL"):
            return lic["URL"]
    return None


def _inverted_abstract(index: dict | None) -> str | None:
    if not index:
        return None
    positions = sorted((pos, word) for word, places in index.items() for pos in places)
    return " ".join(word for _, word in positions)


def _fold(text: str | None) -> str:
    plain = to_plain_text(text) or ""
    return unicodedata.normalize("NFKD", plain).encode("ascii", "ignore").decode().casefold()


def family_key(name: str | None) -> str:
    """Normalised family name: the last word of a display name, accents removed."""
    words = _fold(name).replace(".", " ").split()
    return words[-1] if words else ""


def compare_registries(crossref: dict, openalex: dict) -> list[Difference]:
    """Title (fuzzy), year (±0) and first author's family name, Crossref vs OpenAlex."""
    differences = []
    cr_title = _first(crossref.get("title"))
    oa_title = openalex.get("title") or openalex.get("display_name")
    if cr_title and oa_title and fuzz.token_sort_ratio(_fold(cr_title), _fold(oa_title)) < TITLE_AGREEMENT:
        differences.append(Difference(field="title", crossref=cr_title, openalex=oa_title))
    cr_year, oa_year = crossref_year(crossref), openalex.get("publication_year")
    if cr_year and oa_year and abs(int(cr_year) - int(oa_year)) > 1:
        differences.append(Difference(field="year", crossref=str(cr_year), openalex=str(oa_year)))
    cr_first = (crossref.get("author") or [{}])[0]
    oa_first = ((openalex.get("authorships") or [{}])[0].get("author") or {})
    cr_family = _fold(cr_first.get("family") or cr_first.get("name"))
    oa_family = family_key(oa_first.get("display_name"))
    if cr_family and oa_family and fuzz.ratio(cr_family.split()[-1], oa_family) < 80:
        differences.append(Difference(field="first_author", crossref=cr_first.get("family"),
                                      openalex=oa_first.get("display_name")))
    oa_doi = try_normalize_doi(openalex.get("doi"))
    cr_doi = try_normalize_doi(crossref.get("DOI"))
    if oa_doi and cr_doi and oa_doi != cr_doi:
        differences.append(Difference(field="doi", crossref=cr_doi, openalex=oa_doi))
    return differences
