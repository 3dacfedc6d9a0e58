"""Virtual tables: simulated ships on the network and bot players, through the real service."""
