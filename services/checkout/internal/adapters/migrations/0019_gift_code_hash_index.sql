-- Gift certificates are looked up by the hash of their code (0018).
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS gift_certificates_code_hash ON gift_certificates (code_hash);
