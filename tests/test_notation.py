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


# --- one meaning per symbol within a seminar session ---------------------------------

CHAPTER_LIST = r"\d\d(?:[–-]\d\d)?(?:, \d\d(?:[–-]\d\d)?)*"


def _chapters(text: str) -> set:
    """{"05", "06", "07", "08"} from "05–08"; {"06", "08"} from "06, 08"."""
    found = set()
    for part in text.split(", "):
        ends = re.split(r"[–-]", part)
        found.update(f"{n:02d}" for n in range(int(ends[0]), int(ends[-1]) + 1))
    return found


def meanings(page_text: str) -> dict:
    """{symbol: [chapters of each meaning]} for the rows of tracked symbols whose
    meaning
    cell names its chapters per meaning ("01: ...; 06, 08: ..."); rows with one
    meaning for all their chapters (a parenthesis such as "(12, 14)" names where a
    form of that meaning appears) are left out."""
    out = {}
    for line in page_text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] not in TRACKED:
            continue
        groups = []
        for segment in cells[2].split("; "):
            head = re.match(rf"({CHAPTER_LIST}):", segment)
            if head:
                groups.append(_chapters(head.group(1)))
        if len(groups) > 1:
            out[cells[0]] = groups
    return out


def sessions(guide_text: str) -> dict:
    """{session number: chapters} from the seminar guide's table of sessions."""
    table = guide_text.split("## Sessions", 1)[1].split("###", 1)[0]
    return {
        int(number): set(re.findall(r"\[(\d\d)\]", notebooks))
        for number, notebooks in re.findall(
            r"^\| (\d+)\. [^|]*\| ([^|]*) \|", table, flags=re.M
        )
    }


def session_clashes(page_text: str, guide_text: str) -> list:
    """Every session in which a symbol has two meanings in two of its chapters."""
    found = []
    for symbol, groups in meanings(page_text).items():
        for number, chapters in sessions(guide_text).items():
            hit = [g & chapters for g in groups if g & chapters]
            if len(hit) > 1:
                found.append(
                    f"session {number}: {symbol} means two things in "
                    + " and ".join(sorted(min(h) for h in hit))
                )
    return found


def test_a_symbol_keeps_one_meaning_within_a_session():
    page = PAGE.read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "seminar.md").read_text(encoding="utf-8")
    assert sessions(guide)[10] == {"11", "12"}
    assert meanings(page)["$k$"]  # the rows are read
    assert session_clashes(page, guide) == []


def test_the_session_check_catches_two_meanings_in_one_session():
    # the page before the renaming of SimHash's bits to m: k in 11 and 12 (session 10)
    page = (
        "| symbol | chapters | meaning |\n| --- | --- | --- |\n"
        "| $k$ | 09, 11, 12 | 09: the k of k-NN; 11: the k of k-PNN; "
        "12: the number of SimHash bits |\n"
        "| $\\pi$ | 03, 11, 12, 14 | the constant (03, 11, 12); 14: a prior |\n"
    )
    guide = (
        "## Sessions\n\n| session | notebooks |\n| --- | --- |\n"
        "| 8. Classification | [09](x) |\n| 10. Beyond | [11](x), [12](y) |\n"
    )
    assert session_clashes(page, guide) == [
        "session 10: $k$ means two things in 11 and 12"
    ]
