"""The notation page (docs/notation.md, a page of the book): every chapter uses the
tracked symbols only where the page lists them for that chapter, and the page lists
no chapter for a symbol it does not use."""

import re

import nbformat
import pytest

from companion import catalog

ROOT = catalog.repository_root()
PAGE = ROOT / "docs" / "notation.md"
CHAPTERS = [p for p in catalog.notebook_paths(ROOT)]

MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)


def _latin(letter):
    return re.compile(r"(?<![A-Za-z\\])" + letter + r"(?![A-Za-z])")


# the page's symbol cell: (pattern in math, pattern in prose outside math and code)
TRACKED = {
    r"$\epsilon$": (re.compile(r"\\(?:var)?epsilon"), re.compile("[εϵ]")),
    r"$\delta$": (re.compile(r"\\delta(?![a-zA-Z])"), re.compile("δ")),
    r"$\Delta$": (re.compile(r"\\Delta(?![a-zA-Z])"), re.compile("Δ")),
    r"$\pi$": (re.compile(r"\\pi(?![a-zA-Z])"), re.compile("π")),
    r"$\phi$": (re.compile(r"\\phi(?![a-zA-Z])"), re.compile("φ")),
    "$p$": (_latin("p"), None),
    "$q$": (_latin("q"), None),
    "$K$": (_latin("K"), None),
    "$k$": (_latin("k"), None),
}


def symbols_used(nb) -> set:
    """The tracked symbols that the markdown cells of ``nb`` use: in math, or (Greek
    letters) in prose outside inline code."""
    found = set()
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        maths = MATH.findall(cell.source)
        prose = re.sub(r"`[^`]*`", " ", MATH.sub(" ", cell.source))
        for symbol, (in_math, in_prose) in TRACKED.items():
            if any(in_math.search(m) for m in maths) or (
                in_prose is not None and in_prose.search(prose)
            ):
                found.add(symbol)
    return found


def listed(text: str) -> dict:
    """{symbol cell: set of chapter numbers} from the page's table."""
    table = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] in TRACKED:
            table.setdefault(cells[0], set()).update(re.findall(r"\b\d\d\b", cells[1]))
    return table


def problems(page_text: str, notebooks: dict) -> list:
    table = listed(page_text)
    found = []
    for chapter, nb in notebooks.items():
        used = symbols_used(nb)
        for symbol in sorted(used):
            if chapter not in table.get(symbol, set()):
                found.append(f"{chapter} uses {symbol}, not listed for it")
        for symbol, chapters in table.items():
            if chapter in chapters and symbol not in used:
                found.append(f"{chapter} listed for {symbol} but does not use it")
    return found


def test_every_tracked_symbol_is_on_the_page():
    assert set(listed(PAGE.read_text(encoding="utf-8"))) == set(TRACKED)


def test_each_chapter_uses_a_symbol_only_where_the_page_lists_it():
    notebooks = {p.stem[:2]: nbformat.read(p, as_version=4) for p in CHAPTERS}
    assert problems(PAGE.read_text(encoding="utf-8"), notebooks) == []


def test_the_check_catches_an_unlisted_use_and_an_unused_listing():
    page = "| symbol | chapters | meaning |\n| --- | --- | --- |\n| $p$ | 01 | keep |\n"
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell(r"flip with $q$, share $\pi$"))
    found = problems(page, {"01": nb})
    assert "01 uses $q$, not listed for it" in found
    assert r"01 uses $\pi$, not listed for it" in found
    assert "01 listed for $p$ but does not use it" in found


@pytest.mark.parametrize("name", ["seminar.md"])
def test_the_seminar_guide_points_to_the_notation_page(name):
    assert "notation.md" in (ROOT / "docs" / name).read_text(encoding="utf-8")


# --- the index and the seminar guide's counts -----------------------------------------

NUMBER_WORDS = dict(
    zip("ten eleven twelve thirteen fourteen fifteen sixteen".split(), range(10, 17))
)


def test_the_index_map_lists_every_notebook():
    (index,) = (ROOT / "notebooks").glob("00_*.ipynb")
    text = "\n".join(c.source for c in nbformat.read(index, as_version=4).cells)
    rows = re.findall(r"^\| `(\d\d_\w+)` \|", text, flags=re.M)
    assert rows == [p.stem for p in CHAPTERS]


def test_the_seminar_guides_session_count_is_its_table():
    guide = (ROOT / "docs" / "seminar.md").read_text(encoding="utf-8")
    (word,) = re.findall(r"from the companion: (\w+) sessions", guide)
    sessions = guide.split("## Sessions", 1)[1].split("###", 1)[0]
    rows = re.findall(r"^\| (\d+)\. ", sessions, flags=re.M)
    assert rows == [str(i) for i in range(1, len(rows) + 1)]
    assert NUMBER_WORDS[word] == len(rows)
