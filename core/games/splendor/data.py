"""Splendor's components in tally's own table format (the base game, 2014 edition).

Cards: one line per card: `level bonus points  w b g r k`, the cost per gem in the colour
order white, blue, green, red, black (the cycle the nobles follow). Bonus letters: w b g r k.
Nobles: `points  w b g r k  name`; names are cosmetic (a noble is known by its requirement).
A table with a different printing corrects these lines; the manifest id in `game_started`
names which table a log was judged with.
"""

MANIFEST = "splendor-base-2014"

CARDS = """
1 w 0  0 0 0 2 1
1 w 0  0 1 1 1 1
1 w 0  0 1 2 1 1
1 w 0  0 2 0 0 2
1 w 0  0 2 2 0 1
1 w 0  0 3 0 0 0
1 w 0  3 1 0 0 1
1 w 1  0 0 4 0 0
1 b 0  0 0 0 0 3
1 b 0  0 0 2 0 2
1 b 0  0 1 3 1 0
1 b 0  1 0 0 0 2
1 b 0  1 0 1 1 1
1 b 0  1 0 1 2 1
1 b 0  1 0 2 2 0
1 b 1  0 0 0 4 0
1 g 0  0 0 0 3 0
1 g 0  0 1 0 2 2
1 g 0  0 2 0 2 0
1 g 0  1 1 0 1 1
1 g 0  1 1 0 1 2
1 g 0  1 3 1 0 0
1 g 0  2 1 0 0 0
1 g 1  0 0 0 0 4
1 r 0  0 2 1 0 0
1 r 0  1 0 0 1 3
1 r 0  1 1 1 0 1
1 r 0  2 0 0 2 0
1 r 0  2 0 1 0 2
1 r 0  2 1 1 0 1
1 r 0  3 0 0 0 0
1 r 1  4 0 0 0 0
1 k 0  0 0 1 3 1
1 k 0  0 0 2 1 0
1 k 0  0 0 3 0 0
1 k 0  1 1 1 1 0
1 k 0  1 2 1 1 0
1 k 0  2 0 2 0 0
1 k 0  2 2 0 1 0
1 k 1  0 4 0 0 0
2 w 1  0 0 3 2 2
2 w 1  2 3 0 3 0
2 w 2  0 0 0 5 0
2 w 2  0 0 0 5 3
2 w 2  0 0 1 4 2
2 w 3  6 0 0 0 0
2 b 1  0 2 2 3 0
2 b 1  0 2 3 0 3
2 b 2  0 5 0 0 0
2 b 2  2 0 0 1 4
2 b 2  5 3 0 0 0
2 b 3  0 6 0 0 0
2 g 1  2 3 0 0 2
2 g 1  3 0 2 3 0
2 g 2  0 0 5 0 0
2 g 2  0 5 3 0 0
2 g 2  4 2 0 0 1
2 g 3  0 0 6 0 0
2 r 1  0 3 0 2 3
2 r 1  2 0 0 2 3
2 r 2  0 0 0 0 5
2 r 2  1 4 2 0 0
2 r 2  3 0 0 0 5
2 r 3  0 0 0 6 0
2 k 1  3 0 3 0 2
2 k 1  3 2 2 0 0
2 k 2  0 0 5 3 0
2 k 2  0 1 4 2 0
2 k 2  5 0 0 0 0
2 k 3  0 0 0 0 6
3 w 3  0 3 3 5 3
3 w 4  0 0 0 0 7
3 w 4  3 0 0 3 6
3 w 5  3 0 0 0 7
3 b 3  3 0 3 3 5
3 b 4  6 3 0 0 3
3 b 4  7 0 0 0 0
3 b 5  7 3 0 0 0
3 g 3  5 3 0 3 3
3 g 4  0 7 0 0 0
3 g 4  3 6 3 0 0
3 g 5  0 7 3 0 0
3 r 3  3 5 3 0 3
3 r 4  0 0 7 0 0
3 r 4  0 3 6 3 0
3 r 5  0 0 7 3 0
3 k 3  3 3 5 3 0
3 k 4  0 0 0 7 0
3 k 4  0 0 3 6 3
3 k 5  0 0 0 7 3
"""

NOBLES = """
3  4 4 0 0 0  Machiavelli
3  0 4 4 0 0  Suleiman
3  0 0 4 4 0  Mary Stuart
3  0 0 0 4 4  Henry VIII
3  4 0 0 0 4  Isabella of Castile
3  3 3 3 0 0  Anne of Brittany
3  0 3 3 3 0  Catherine de' Medici
3  0 0 3 3 3  Francis I
3  3 0 0 3 3  Charles V
3  3 3 0 0 3  Elisabeth of Austria
"""
