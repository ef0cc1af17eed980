"""The NeurIPS downloader against a fake proceedings site on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from neurips_site import PAPERS, FakeSite, FixturePaper, Route, listing_html, make_pdf, paper_html, publish

from dsminer.corpus import http_client, load_corpus
from dsminer.corpus.http_client import USER_AGENT
from dsminer.corpus.neurips import DownloadReport, download_neurips, paper_stem
from dsminer.errors import CorpusError

YEAR = 2024
FAST = {"delay_s": 0, "timeout_s": 2.0, "progress": False, "backoff_s": 0.01}


def run(site: FakeSite, out: Path, **options: object) -> DownloadReport:
    return download_neurips(YEAR, out, base_url=site.base_url, **{**FAST, **options})  # type: ignore[arg-type]


def page_url(site: FakeSite, paper: FixturePaper) -> str:
    return site.base_url + paper.page_path(YEAR)


def files_of(out: Path, paper: FixturePaper) -> list[str]:
    stem = paper_stem(YEAR, paper.paper_hash)
    return sorted(path.name for path in out.iterdir() if path.name.startswith(stem))


def test_downloads_pdfs_and_sidecars(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS)

    report = run(fake_site, tmp_path)

    assert report.downloaded == [page_url(fake_site, paper) for paper in PAPERS]
    assert report.skipped == [] and report.failed == []
    stem = paper_stem(YEAR, PAPERS[0].paper_hash)
    assert (tmp_path / f"{stem}.pdf").read_bytes() == fake_site.routes[PAPERS[0].pdf_path(YEAR)].body
    assert json.loads((tmp_path / f"{stem}.json").read_text(encoding="utf-8")) == {
        "title": "Scaling Laws for Tabular Data",
        "authors": ["Jane Doe", "John Smith"],
        "institutions": [],
        "venue": "NeurIPS 2024",
        "year": 2024,
        "url": page_url(fake_site, PAPERS[0]),
        "pdf_url": fake_site.base_url + PAPERS[0].pdf_path(YEAR),
        "abstract": PAPERS[0].abstract,
        "track": "Conference",
    }
    assert not list(tmp_path.glob("*.part"))


def test_downloaded_folder_loads_as_a_corpus_with_metadata(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    run(fake_site, tmp_path)

    papers = load_corpus(tmp_path)

    assert [paper.refs.title for paper in papers if paper.refs] == [PAPERS[0].title, PAPERS[1].title]
    assert papers[0].refs is not None and papers[0].refs.venue == "NeurIPS 2024"
    assert papers[0].abstract == PAPERS[0].abstract


def test_every_request_carries_the_descriptive_user_agent(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:2])

    run(fake_site, tmp_path)

    assert len(fake_site.requests) == 1 + 2 * 2
    assert {agent for _, agent in fake_site.requests} == {USER_AGENT}
    assert USER_AGENT.startswith("dsminer/") and "dataset extraction research tool" in USER_AGENT


def test_missing_pdf_is_recorded_and_the_rest_continue(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:3])
    del fake_site.routes[PAPERS[1].pdf_path(YEAR)]

    report = run(fake_site, tmp_path)

    assert report.failed == [(page_url(fake_site, PAPERS[1]), "PDF: HTTP 404")]
    assert report.downloaded == [page_url(fake_site, PAPERS[0]), page_url(fake_site, PAPERS[2])]
    assert fake_site.count(PAPERS[1].pdf_path(YEAR)) == 1  # a 404 is not retried
    assert files_of(tmp_path, PAPERS[1]) == []


def test_missing_paper_page_is_recorded(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    del fake_site.routes[PAPERS[0].page_path(YEAR)]

    report = run(fake_site, tmp_path)

    assert report.failed == [(page_url(fake_site, PAPERS[0]), "page: HTTP 404")]
    assert fake_site.count(PAPERS[0].pdf_path(YEAR)) == 0


def test_truncated_download_is_retried_then_fails_without_leftovers(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    route = fake_site.routes[PAPERS[0].pdf_path(YEAR)]
    route.declared_length = len(route.body) + 1000

    report = run(fake_site, tmp_path, retries=2)

    [(url, reason)] = report.failed
    assert url == page_url(fake_site, PAPERS[0])
    assert reason == f"PDF: truncated download ({len(route.body)} of {len(route.body) + 1000} bytes)"
    assert fake_site.count(PAPERS[0].pdf_path(YEAR)) == 3
    assert files_of(tmp_path, PAPERS[0]) == []
    assert report.downloaded == [page_url(fake_site, PAPERS[1])]


def test_truncated_pdf_without_declared_length_fails_verification(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    route = fake_site.routes[PAPERS[0].pdf_path(YEAR)]
    route.body = route.body[: len(route.body) // 2]

    report = run(fake_site, tmp_path)

    assert report.failed == [(page_url(fake_site, PAPERS[0]), "PDF: incomplete PDF (no %%EOF marker)")]
    assert files_of(tmp_path, PAPERS[0]) == []


def test_html_served_as_the_pdf_fails_verification(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    fake_site.routes[PAPERS[0].pdf_path(YEAR)] = Route(b"<html>Please log in</html>")

    report = run(fake_site, tmp_path)

    assert report.failed == [(page_url(fake_site, PAPERS[0]), "PDF: not a PDF (no %PDF header)")]
    assert fake_site.count(PAPERS[0].pdf_path(YEAR)) == 1  # not retried: the answer will not change


def test_pdf_url_outside_http_is_refused(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    secret = tmp_path / "secret.pdf"
    secret.write_bytes(make_pdf("not from the site"))
    route = fake_site.routes[PAPERS[0].page_path(YEAR)]
    route.body = route.body.replace(
        f'name="citation_pdf_url" content="{fake_site.base_url}{PAPERS[0].pdf_path(YEAR)}"'.encode(),
        f'name="citation_pdf_url" content="{secret.as_uri()}"'.encode(),
    )

    report = run(fake_site, tmp_path / "out")

    assert report.failed == [(page_url(fake_site, PAPERS[0]), "PDF: not an http(s) URL")]
    assert files_of(tmp_path / "out", PAPERS[0]) == []


def test_a_pdf_over_the_cap_is_refused_and_the_rest_continue(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    size = len(fake_site.routes[PAPERS[0].pdf_path(YEAR)].body)

    report = run(fake_site, tmp_path, max_pdf_bytes=size - 1)

    assert (page_url(fake_site, PAPERS[0]), f"PDF: larger than the {size - 1}-byte cap ({size} bytes)") in report.failed
    assert fake_site.count(PAPERS[0].pdf_path(YEAR)) == 1  # not retried
    assert files_of(tmp_path, PAPERS[0]) == []


def test_a_page_over_the_cap_is_refused(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    route = fake_site.routes[PAPERS[0].page_path(YEAR)]

    report = run(fake_site, tmp_path, max_page_bytes=len(route.body) - 1)

    assert report.failed == [(page_url(fake_site, PAPERS[0]), f"page: larger than the {len(route.body) - 1}-byte cap"
                              f" ({len(route.body)} bytes)")]


def test_an_off_site_redirect_is_refused(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    elsewhere = fake_site.base_url.replace("127.0.0.1", "localhost") + PAPERS[0].pdf_path(YEAR)
    fake_site.routes[PAPERS[0].pdf_path(YEAR)] = Route(b"", status=302, location=elsewhere)

    report = run(fake_site, tmp_path)

    assert report.failed == [(page_url(fake_site, PAPERS[0]), "PDF: redirected off-site to localhost")]
    assert report.downloaded == [page_url(fake_site, PAPERS[1])]


def test_a_listing_link_to_another_host_is_refused(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    listing = fake_site.routes[f"/paper_files/paper/{YEAR}"]
    listing.body = listing.body.replace(f'href="{PAPERS[0].page_path(YEAR)}"'.encode(),
                                        f'href="http://localhost:1{PAPERS[0].page_path(YEAR)}"'.encode())

    report = run(fake_site, tmp_path)

    [(url, reason)] = report.failed
    assert url.startswith("http://localhost:1/") and reason == "page: off-site link to localhost (only 127.0.0.1)"
    assert report.downloaded == [page_url(fake_site, PAPERS[1])]


def test_an_unknown_charset_is_read_as_utf8(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    fake_site.routes[f"/paper_files/paper/{YEAR}"].content_type = "text/html; charset=x-no-such-charset"
    fake_site.routes[PAPERS[0].page_path(YEAR)].content_type = "text/html; charset=x-no-such-charset"

    report = run(fake_site, tmp_path)

    assert report.downloaded == [page_url(fake_site, PAPERS[0])] and report.failed == []


def test_slow_response_times_out_and_is_retried_a_bounded_number_of_times(
    fake_site: FakeSite, tmp_path: Path
) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    fake_site.routes[PAPERS[0].pdf_path(YEAR)].delay_s = 5.0

    report = run(fake_site, tmp_path, timeout_s=0.2, retries=1)

    assert report.failed == [(page_url(fake_site, PAPERS[0]), "PDF: timed out after 0.2 s")]
    assert fake_site.count(PAPERS[0].pdf_path(YEAR)) == 2
    assert report.downloaded == [page_url(fake_site, PAPERS[1])]
    assert files_of(tmp_path, PAPERS[0]) == []


def test_slow_first_answer_succeeds_on_retry(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    route = fake_site.routes[PAPERS[0].page_path(YEAR)]
    route.delay_s, route.slow_requests = 5.0, 1

    report = run(fake_site, tmp_path, timeout_s=0.2, retries=2)

    assert report.downloaded == [page_url(fake_site, PAPERS[0])]
    assert fake_site.count(PAPERS[0].page_path(YEAR)) == 2


def test_server_errors_are_retried(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    fake_site.routes[PAPERS[0].pdf_path(YEAR)].fail_first = 2

    report = run(fake_site, tmp_path, retries=2)

    assert report.downloaded == [page_url(fake_site, PAPERS[0])]
    assert fake_site.count(PAPERS[0].pdf_path(YEAR)) == 3


def test_rerun_with_a_higher_limit_downloads_only_the_new_papers(fake_site: FakeSite, tmp_path: Path) -> None:
    publish(fake_site, YEAR, PAPERS)
    first = run(fake_site, tmp_path, limit=2)
    fake_site.reset_log()

    second = run(fake_site, tmp_path, limit=4)

    assert first.downloaded == [page_url(fake_site, paper) for paper in PAPERS[:2]]
    assert second.skipped == first.downloaded
    assert second.downloaded == [page_url(fake_site, paper) for paper in PAPERS[2:]]
    requested = sorted(path for path, _ in fake_site.requests)
    expected = [f"/paper_files/paper/{YEAR}"] + [p.page_path(YEAR) for p in PAPERS[2:]]
    assert requested == sorted(expected + [p.pdf_path(YEAR) for p in PAPERS[2:]])


def test_resume_after_an_interruption(fake_site: FakeSite, tmp_path: Path) -> None:
    """Left behind: a .part (killed mid-download), a PDF without sidecar, and a corrupt PDF."""
    publish(fake_site, YEAR, PAPERS[:3])
    run(fake_site, tmp_path, limit=3)
    stems = [paper_stem(YEAR, paper.paper_hash) for paper in PAPERS[:3]]
    (tmp_path / f"{stems[0]}.pdf").rename(tmp_path / f"{stems[0]}.pdf.part")
    (tmp_path / f"{stems[0]}.pdf.part").write_bytes(b"%PDF-1.7 half")
    (tmp_path / f"{stems[1]}.json").unlink()
    (tmp_path / f"{stems[2]}.pdf").write_bytes(b"%PDF-1.7 garbage %%EOF")
    fake_site.reset_log()

    report = run(fake_site, tmp_path, limit=3)

    assert report.downloaded == [page_url(fake_site, paper) for paper in PAPERS[:3]]
    assert fake_site.count(PAPERS[0].pdf_path(YEAR)) == 1
    assert fake_site.count(PAPERS[1].pdf_path(YEAR)) == 0  # its PDF was complete: only the page again
    assert fake_site.count(PAPERS[1].page_path(YEAR)) == 1
    assert fake_site.count(PAPERS[2].pdf_path(YEAR)) == 1
    for stem, paper in zip(stems, PAPERS, strict=False):
        assert (tmp_path / f"{stem}.pdf").read_bytes() == fake_site.routes[paper.pdf_path(YEAR)].body
        assert (tmp_path / f"{stem}.json").is_file()
    assert not list(tmp_path.glob("*.part"))
    assert run(fake_site, tmp_path, limit=3).skipped == report.downloaded


def test_pre_2022_structure_without_citation_pdf_url(fake_site: FakeSite, tmp_path: Path) -> None:
    old = FixturePaper("ab12cd34ef56ab12cd34ef56ab12cd34", "An Older Paper", ("Yann LeCun",), track=None)
    fake_site.routes["/paper_files/paper/2019"] = Route(listing_html(2019, [old], authors_tag="i"))
    fake_site.routes[old.page_path(2019)] = Route(paper_html(fake_site.base_url, 2019, old, with_pdf_meta=False))
    fake_site.routes[old.pdf_path(2019)] = Route(make_pdf(old.title), content_type="application/pdf")

    report = download_neurips(2019, tmp_path, base_url=fake_site.base_url, **FAST)  # type: ignore[arg-type]

    assert report.downloaded == [f"{fake_site.base_url}/paper_files/paper/2019/hash/{old.paper_hash}-Abstract.html"]
    sidecar = json.loads((tmp_path / f"neurips2019-{old.paper_hash}.json").read_text(encoding="utf-8"))
    assert sidecar["pdf_url"].endswith(f"/file/{old.paper_hash}-Paper.pdf")
    assert sidecar["venue"] == "NeurIPS 2019" and sidecar["track"] is None


def test_requests_are_spaced_by_the_delay(
    fake_site: FakeSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    publish(fake_site, YEAR, PAPERS[:2])
    pauses: list[float] = []
    monkeypatch.setattr(http_client.time, "sleep", pauses.append)

    run(fake_site, tmp_path, delay_s=30.0)

    assert len(pauses) == len(fake_site.requests) - 1
    assert all(25.0 < pause <= 30.0 for pause in pauses)


def test_retry_backoff_doubles(fake_site: FakeSite, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    publish(fake_site, YEAR, PAPERS[:1])
    fake_site.routes[PAPERS[0].pdf_path(YEAR)].fail_first = 99
    pauses: list[float] = []
    monkeypatch.setattr(http_client.time, "sleep", pauses.append)

    report = run(fake_site, tmp_path, retries=3, backoff_s=1.5)

    assert report.failed == [(page_url(fake_site, PAPERS[0]), "PDF: HTTP 503")]
    assert pauses == [1.5, 3.0, 6.0]


@pytest.mark.parametrize(
    ("listing", "message"),
    [
        (None, "cannot read the NeurIPS 2024 listing at http://127.0.0.1:"),
        (Route(b"<html><body><ul class='paper-list'></ul></body></html>"), "no NeurIPS 2024 papers found"),
    ],
)
def test_unusable_listing_is_a_corpus_error(
    fake_site: FakeSite, tmp_path: Path, listing: Route | None, message: str
) -> None:
    if listing is not None:
        fake_site.routes[f"/paper_files/paper/{YEAR}"] = listing

    with pytest.raises(CorpusError, match=message):
        run(fake_site, tmp_path)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"limit": 0}, "limit must be at least 1"),
        ({"base_url": "papers.nips.cc"}, "base URL must be an http"),
        ({"delay_s": -1}, "delay must be >= 0"),
        ({"timeout_s": 0}, "timeout > 0"),
        ({"retries": -1}, "retries and backoff must be >= 0"),
    ],
)
def test_bad_arguments(tmp_path: Path, options: dict[str, object], message: str) -> None:
    arguments = {**FAST, "base_url": "http://127.0.0.1:9", **options}
    with pytest.raises(CorpusError, match=message):
        download_neurips(YEAR, tmp_path, **arguments)  # type: ignore[arg-type]


def test_output_path_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("x")
    with pytest.raises(CorpusError, match="output path is not a folder"):
        download_neurips(YEAR, tmp_path / "out", base_url="http://127.0.0.1:9", **FAST)  # type: ignore[arg-type]
