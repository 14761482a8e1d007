CREATE TABLE "login_addresses" (
	"account" text NOT NULL,
	"address" text NOT NULL,
	"last_login_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "login_addresses_pkey" PRIMARY KEY("account","address")
);
--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD COLUMN "session_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "session_version" integer DEFAULT 0 NOT NULL;