"""Split's default components in tally's own table format.

The revised edition (David Hoyt; Hasbro 2001) holds 104 half-cards, 4 reference cards and a score pad.
What the half-cards are is not printed anywhere we could find; the most likely deck is a standard deck
of 13 ranks x 4 suits with every card cut into a left and a right half, the colour following the suit.
The score pad's rows and box values were not found at all: the pad below is tally's own, documented in
docs/rules/split.md. A table with the real box corrects it with a manifest file (`tally new --manifest`),
and the log records which components judged it.
"""

MANIFEST = "split-revised-2001"

# rank codes, in the order the pad lists them
RANKS = "A 2 3 4 5 6 7 8 9 10 J Q K"

# suit code, colour, name: a perfect match joins two halves of one suit, a strong one two suits of one colour
SUITS = """
S black spades
H red   hearts
D red   diamonds
C black clubs
"""

REFERENCE_CARDS = 4  # set aside at setup, never in play

# The upper half of the pad: one row per rank, these boxes left to right. A match marks the first open
# box of its rank's row; at the end the value of the first open box counts, so a rank with no match scores
# 0 and every further match of one rank is worth more than the one before.
RANK_BOXES = "0 5 15 30 50 75 105 140 180 225 275 330 390"

# The lower half: one row of minus boxes (one per card left in hand at a round's end, and one for every
# perfect-match bonus that names the player); the value of its first open box is subtracted.
MINUS_BOXES = " ".join(str(5 * marks) for marks in range(100))

# boxes a match marks in its rank's row, by type
MARKS = """
perfect 1
strong  1
weak    1
"""
