"""Array's default components in tally's own table format (an assumed deck: see docs/rules/array.md).

What is known of the box (Funnybone Toys, 2012): 70 colour cards with 2, 3 or 4 colour segments and
12 action cards (Splatter 1-5 and SLAM). How many cards have 2, 3 or 4 colours, which colours, and how
the 12 action cards split are not known, so this default is a documented assumption:

- five colours (the seed names blue, orange and gray; red and yellow complete the set);
- every pair of colours 3 times (30 cards), every triple 3 times (30), every set of four twice (10);
- Splatter 1, 2, 3, 4 and 5 twice each (10) and SLAM twice (2).

A table with the real box writes its own manifest file (same fields, TOML or JSON) and starts the game
with `tally new array LOG --manifest FILE`; the log then carries that manifest inline.

Colours: one line per colour, `letter name`; the order of the lines is the canonical order of letters
in a card's code. Cards: one line per kind of card, `code copies`. A colour card's code is its colour
letters (`bo` blue-orange, `bgry`); `s1`-`s5` are Splatter 1-5 and `slam` is SLAM.
"""

MANIFEST = "array-assumed-1"

COLOURS = """
b blue
g gray
o orange
r red
y yellow
"""

CARDS = """
bg 3
bo 3
br 3
by 3
go 3
gr 3
gy 3
or 3
oy 3
ry 3
bgo 3
bgr 3
bgy 3
bor 3
boy 3
bry 3
gor 3
goy 3
gry 3
ory 3
bgor 2
bgoy 2
bgry 2
bory 2
gory 2
s1 2
s2 2
s3 2
s4 2
s5 2
slam 2
"""
