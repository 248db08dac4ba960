"""Ten's components: there are none to count, so its one manifest only names the game's box."""

MANIFEST = "ten"
