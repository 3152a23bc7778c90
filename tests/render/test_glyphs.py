"""The views draw with glyphs every default font has: an emoji (⏳) showed as an empty box
on a machine without an emoji font."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "openprogram_jupyter"

# Blocks whose characters need an emoji or symbol font: Miscellaneous Technical (⏳ ⌛ ⏹),
# Miscellaneous Symbols (⚠ ☑), Dingbats (✅ ❌) but for the check marks DejaVu has, and the
# pictographs above U+1F000.
EMOJI_BLOCKS = [(0x2300, 0x23FF), (0x2600, 0x26FF), (0x2700, 0x27BF), (0x1F000, 0x1FFFF)]
PLAIN_DINGBATS = {"✓", "✗"}  # in DejaVu Sans and every default UI font


def test_no_view_draws_a_glyph_that_needs_an_emoji_font():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for char in line:
                if char not in PLAIN_DINGBATS and any(low <= ord(char) <= high for low, high in EMOJI_BLOCKS):
                    found.append(f"{path.relative_to(PACKAGE)}:{number}: {char} (U+{ord(char):04X})")
    assert not found, "\n".join(found)
