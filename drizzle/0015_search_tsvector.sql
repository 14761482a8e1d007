-- `q` becomes full-text search (#32): the trigram index over the whole search text (about 9 KB of
-- WAL per create) goes, and `search` holds each post's words as a tsvector written by the
-- application (the domain's rule, src/domain/search.ts), under a GIN index. Rows written before
-- have no `search` yet: the migration runner fills them after migrating (`backfillSearch`), with
-- the same tokenizer, a batch at a time; the partial index finds them.
DROP INDEX "posts_search_text_trgm_idx";--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "search" "tsvector";--> statement-breakpoint
CREATE INDEX "posts_search_idx" ON "posts" USING gin ("search");--> statement-breakpoint
CREATE INDEX "posts_search_missing_idx" ON "posts" USING btree ("id") WHERE "posts"."search" IS NULL;--> statement-breakpoint
ALTER TABLE "posts" DROP COLUMN "search_text";