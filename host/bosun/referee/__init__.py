"""Table referees: ship events and player inputs in, game actions, LED prompts and flags out."""
