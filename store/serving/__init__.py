"""What a server of tables keeps beside the logs: the games it serves and what each caller may read of them
(`tables`), and the seats' tokens, codes and links (`seats`)."""
