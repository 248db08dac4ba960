"""The log of a game: its file (docs/format.md), the log stores that hold it (a file, or PostgreSQL), the places a
server serves, the state cache, repair and anchors."""
