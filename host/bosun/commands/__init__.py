"""The subcommands of `bosun`, one module each."""
