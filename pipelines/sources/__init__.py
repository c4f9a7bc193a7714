"""Source readers: publisher layouts in, Parquet staging tables and rejects out."""
