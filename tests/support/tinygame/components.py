"""Ten's fixed quantities (its one manifest is checked by the kernel's default `check_manifest`)."""

AMOUNTS = (1, 2)  # what a player may say
