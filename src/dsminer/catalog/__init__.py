"""The corpus catalogue: one entry per dataset across the papers and runs it is built from, resolved, linked and
queryable (Parquet tables and a DuckDB database)."""
