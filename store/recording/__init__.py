"""The record service and what it answers: one game's log and its fold (`service`), judging a move's text, what each
seat may know, the read model, the recording session, simulated games and pictures."""
