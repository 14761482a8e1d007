CREATE TABLE "rate_limit_windows" (
	"key" text NOT NULL,
	"hits" integer NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY("key")
);
--> statement-breakpoint
CREATE INDEX "rate_limit_windows_ends_at_idx" ON "rate_limit_windows" USING btree ("ends_at");