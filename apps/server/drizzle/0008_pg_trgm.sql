-- Trigram indexes back the device list's substring search. pg_trgm is a trusted extension (PostgreSQL 13+): the
-- database owner can create it; PostgreSQL needs its contrib package (docs/operations.md).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
