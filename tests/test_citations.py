"""One source for the four papers' citations (docs/papers.yaml), quoted alike everywhere; the
package's licence and citation files agree with pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAPERS = yaml.safe_load((ROOT / "docs" / "papers.yaml").read_text())["papers"]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# files that name the papers' authors: each author list in them must be the source's
QUOTING = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
QUOTING += sorted((ROOT / "paper_figures").glob("*/NOTES.md"))


def surnames(paper: dict) -> list[str]:
    return [name.split()[-1] for name in paper["authors"] or []]


def cite(paper: dict) -> str:
    """The short citation (the rule in docs/papers.yaml's header)."""
    names = surnames(paper)
    who = " & ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)
    return ", ".join(
        [*([who] if who else []), f"*{paper['title']}*", paper["venue"], str(paper["year"])]
    )


def flat(path: Path) -> str:
    return re.sub(r"\s+", " ", path.read_text())


def test_every_paper_has_a_full_entry():
    assert sorted(PAPERS) == ["akda", "dee", "ngeu", "qmi"]
    for name, paper in PAPERS.items():
        for key in ("number", "title", "venue", "venue_full", "year", "source"):
            assert paper.get(key), f"docs/papers.yaml: {name} has no {key}"
        # an unknown author list is said so, never left silently empty
        assert paper["authors"] or paper.get("authors_note"), name


@pytest.mark.parametrize("name", sorted(PAPERS))
def test_readme_and_the_papers_doc_quote_the_source(name):
    text = cite(PAPERS[name])
    assert text in flat(ROOT / "README.md"), f"README.md does not quote: {text}"
    assert text in flat(ROOT / "docs" / f"{name}.md"), f"docs/{name}.md does not quote: {text}"


@pytest.mark.parametrize("name", [n for n in sorted(PAPERS) if PAPERS[n]["authors"]])
def test_no_other_author_list_anywhere(name):
    """Every 'A, B & C' list starting with the first author equals the source's (NGEU's once
    lacked Passalis in docs/ngeu.md); 'First et al.' is fine."""
    names = surnames(PAPERS[name])
    listed = re.compile(rf"\b{names[0]}((?:, [A-Z][a-z]+)* & [A-Z][a-z]+)")
    for path in QUOTING:
        for match in listed.finditer(flat(path)):
            found = [names[0], *re.split(r", | & ", match.group(1))[1:]]
            assert found == names, f"{path.relative_to(ROOT)}: {match.group(0)!r}"


def test_citation_cff_cites_the_package_and_the_source_papers():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == PROJECT["version"]
    assert cff["license"] == PROJECT["license"]["text"]
    assert cff["authors"] and cff["title"].startswith(PROJECT["name"])
    references = {ref["title"]: ref for ref in cff["references"]}
    assert set(references) == {paper["title"] for paper in PAPERS.values()}
    for paper in PAPERS.values():
        ref = references[paper["title"]]
        family = [author.get("family-names") for author in ref["authors"]]
        assert family == (surnames(paper) or [None]), paper["title"]
        if isinstance(paper["year"], int):
            assert ref["year"] == paper["year"]


def test_license_file_is_the_declared_licence():
    assert PROJECT["license"]["text"] == "BSD-3-Clause"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text  # the third clause
