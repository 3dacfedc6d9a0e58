"""Detection benchmark: the shipsense detector and a plain baseline scored on simulated traces."""
