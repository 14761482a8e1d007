-- pg_trgm backs the `q` search (GIN trigram index on posts.search_text, created in the next
-- migration). It is a trusted extension: the database owner may create it without superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
