CREATE TABLE "preview_links" (
	"id" text COLLATE "C" NOT NULL,
	"post_id" text COLLATE "C" NOT NULL,
	"token_hash" text COLLATE "C" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "preview_links_pkey" PRIMARY KEY("id"),
	CONSTRAINT "preview_links_token_hash_key" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"seq" bigserial NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"subscription_id" text COLLATE "C" NOT NULL,
	"event_id" text COLLATE "C" NOT NULL,
	"event_type" text NOT NULL,
	"post_id" text COLLATE "C" NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"lease_until" timestamp (3) with time zone,
	"last_attempt_at" timestamp (3) with time zone,
	"response_status" integer,
	"error" text,
	"latency_ms" integer,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY("id"),
	CONSTRAINT "webhook_deliveries_seq_key" UNIQUE("seq"),
	CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" IN ('pending', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text COLLATE "C" NOT NULL,
	"type" text NOT NULL,
	"post_id" text COLLATE "C" NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"post" jsonb NOT NULL,
	CONSTRAINT "webhook_events_pkey" PRIMARY KEY("id")
);
--> statement-breakpoint
CREATE TABLE "webhook_subscriptions" (
	"id" text COLLATE "C" NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"description" text NOT NULL,
	"enabled" boolean NOT NULL,
	"disabled_reason" text,
	"secret" text NOT NULL,
	"previous_secret" text,
	"previous_secret_expires_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY("id"),
	CONSTRAINT "webhook_subscriptions_events_check" CHECK ("webhook_subscriptions"."events" <@ ARRAY['post.published', 'post.unpublished', 'post.updated', 'post.deleted']::text[])
);
--> statement-breakpoint
ALTER TABLE "preview_links" ADD CONSTRAINT "preview_links_post_fkey" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_fkey" FOREIGN KEY ("subscription_id") REFERENCES "public"."webhook_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_fkey" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "preview_links_post_idx" ON "preview_links" USING btree ("post_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("subscription_id","seq") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_log_idx" ON "webhook_deliveries" USING btree ("subscription_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("event_id");