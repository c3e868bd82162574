"""The repository's documents: markdown tables that GitHub and nbconvert render whole, the licence, the citation."""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ["README.md", "data/README.md", "docs/design.md", "docs/seminar.md"]


def table_blocks(text):
    """Consecutive lines starting with '|', as (first line number, lines)."""
    blocks, current = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("|"):
            current.append((number, line))
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def cells(line):
    """GitHub's cell split: every unescaped '|' separates cells, also inside `code` spans."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_markdown_table_has_a_header_and_rows_of_its_width(name):
    text = (ROOT / name).read_text()
    blocks = table_blocks(text)
    assert blocks, f"{name} has no table"
    for block in blocks:
        (first, header), (_, delimiter) = block[0], block[1] if len(block) > 1 else (0, "")
        assert re.fullmatch(r"\|( *:?-{3,}:? *\|)+", delimiter.strip()), (
            f"{name}:{first}: a table needs a header and a |---| row (rows without one render as raw text)")
        width = cells(header)
        for number, line in block:
            assert cells(line) == width, f"{name}:{number}: {cells(line)} cells where the header has {width}"


def test_the_table_checker_catches_an_unescaped_pipe_and_an_orphan_row():
    bad = "| a | b |\n| --- | --- |\n| x | the set |X| |\n"
    assert cells(bad.splitlines()[2]) != cells(bad.splitlines()[0])
    orphan = table_blocks("text\n\n| x | y |\n")[0]
    assert len(orphan) == 1  # no delimiter row: the test above rejects it


def test_licence_and_citation_are_present_and_consistent():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"].startswith("1.2") and citation["license"] == "MIT"
    cited = " ".join(ref["title"] for ref in citation["references"])
    for work in ("Differential Privacy for Nearest Neighbor Queries", "nearest neighbor classification",
                 "Spatial Decompositions", "Concentrated Geo-Privacy", "Similarity Search"):
        assert work in cited, work
    assert "How to cite" in (ROOT / "README.md").read_text()
