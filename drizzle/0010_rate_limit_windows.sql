-- UNLOGGED by hand (drizzle-kit has no option for it): a rate-limit count need not survive a crash,
-- and without WAL a hit commits without waiting for a flush (bench/NOTES.md: a request's p50
-- +0.5-0.9 ms on PostgreSQL instead of +4.3 ms logged).
CREATE UNLOGGED TABLE "rate_limit_windows" (
	"key" text NOT NULL,
	"hits" integer NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY("key")
);
--> statement-breakpoint
CREATE INDEX "rate_limit_windows_ends_at_idx" ON "rate_limit_windows" USING btree ("ends_at");