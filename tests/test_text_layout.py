"""Reading order from glyph geometry: columns, full-width lines, superscripts."""

from __future__ import annotations

from citecheck.text.layout import Char, build_lines

SIZE = 10.0


def _word_chars(text: str, x: float, top: float, size: float = SIZE) -> list[Char]:
    """Glyphs of ``text`` set left to right; the first glyph of each word follows a space."""
    chars = []
    for index, word in enumerate(text.split(" ")):
        for position, letter in enumerate(word):
            chars.append(Char(letter, x, top, x + size * 0.5, top + size, space_before=index > 0 and position == 0))
            x += size * 0.5
        x += size * 0.3
    return chars


def _two_column_page() -> list[Char]:
    chars = _word_chars("A title across the whole page width of the paper", 60, 40)
    for row in range(8):
        chars += _word_chars(f"left column line {row}", 60, 80 + row * 14)
    for row in range(8):
        chars += _word_chars(f"right column line {row}", 320, 80 + row * 14)
    return chars


def test_build_lines_reads_left_column_before_right() -> None:
    texts = [line.text for line in build_lines(_two_column_page(), 595)]
    assert texts[0] == "A title across the whole page width of the paper"
    assert texts[1:9] == [f"left column line {row}" for row in range(8)]
    assert texts[9:] == [f"right column line {row}" for row in range(8)]


def test_build_lines_handles_rows_drawn_across_both_columns() -> None:
    chars: list[Char] = []
    for row in range(8):  # each row drawn left then right, as some producers do
        chars += _word_chars(f"left {row}", 60, 80 + row * 14)
        chars += _word_chars(f"right {row}", 320, 80 + row * 14)
    texts = [line.text for line in build_lines(chars, 595)]
    assert texts == [f"left {row}" for row in range(8)] + [f"right {row}" for row in range(8)]


def test_build_lines_single_column_keeps_order() -> None:
    chars: list[Char] = []
    for row in range(8):
        chars += _word_chars(f"this is a long single column line number {row} of text", 60, 80 + row * 14)
    texts = [line.text for line in build_lines(chars, 595)]
    assert texts == [f"this is a long single column line number {row} of text" for row in range(8)]


def test_build_lines_marks_superscripts() -> None:
    chars = _word_chars("heat rose", 60, 100)
    x = chars[-1].x1
    chars += [Char("1", x, 97, x + 3, 103), Char(",", x + 3, 97, x + 4.5, 103), Char("2", x + 4.5, 97, x + 7.5, 103)]
    (line,) = build_lines(chars, 595)
    assert line.text == "heat rose1,2"
    assert [line.text[s:e] for s, e in line.superscripts] == ["1,2"]
