"""`bosun run --cluster`: referees on NATS JetStream and PostgreSQL, with failover."""
