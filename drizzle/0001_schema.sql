CREATE TABLE "activity_events" (
	"id" text COLLATE "C" NOT NULL,
	"type" text NOT NULL,
	"post_id" text COLLATE "C" NOT NULL,
	"post_title" text NOT NULL,
	"post_version" integer NOT NULL,
	"actor_id" text NOT NULL,
	"actor_name" text NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "activity_events_pkey" PRIMARY KEY("id"),
	CONSTRAINT "activity_events_type_check" CHECK ("activity_events"."type" IN ('created', 'updated', 'published', 'unpublished', 'archived', 'deleted', 'restored'))
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"claimed_at" timestamp (3) with time zone NOT NULL,
	"lease_until" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"response_status" integer,
	"response_headers" text,
	"response_body" text,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("user_id","key"),
	CONSTRAINT "idempotency_keys_state_check" CHECK ("idempotency_keys"."state" IN ('in_flight', 'completed')),
	CONSTRAINT "idempotency_keys_response_check" CHECK (("idempotency_keys"."state" = 'completed') = ("idempotency_keys"."response_status" IS NOT NULL AND "idempotency_keys"."response_headers" IS NOT NULL AND "idempotency_keys"."response_body" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "login_attempts" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "login_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"key" text NOT NULL,
	"attempted_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "login_attempts_pkey" PRIMARY KEY("id")
);
--> statement-breakpoint
CREATE TABLE "posts" (
	"id" text COLLATE "C" NOT NULL,
	"title" text COLLATE "C" NOT NULL,
	"slug" text COLLATE "C" NOT NULL,
	"excerpt" text NOT NULL,
	"body" text NOT NULL,
	"search_text" text NOT NULL,
	"tags" text[] NOT NULL,
	"status" text NOT NULL,
	"version" integer NOT NULL,
	"word_count" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"published_at" timestamp (3) with time zone,
	CONSTRAINT "posts_pkey" PRIMARY KEY("id"),
	CONSTRAINT "posts_slug_key" UNIQUE("slug"),
	CONSTRAINT "posts_status_check" CHECK ("posts"."status" IN ('draft', 'published', 'archived')),
	CONSTRAINT "posts_version_check" CHECK ("posts"."version" >= 1),
	CONSTRAINT "posts_word_count_check" CHECK ("posts"."word_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" text NOT NULL,
	"family_id" text NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"consumed_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY("id"),
	CONSTRAINT "refresh_tokens_token_hash_key" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "revisions" (
	"post_id" text COLLATE "C" NOT NULL,
	"version" integer NOT NULL,
	"title" text NOT NULL,
	"slug" text NOT NULL,
	"excerpt" text NOT NULL,
	"body" text NOT NULL,
	"tags" text[] NOT NULL,
	"status" text NOT NULL,
	"word_count" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"actor_id" text NOT NULL,
	"actor_name" text NOT NULL,
	CONSTRAINT "revisions_pkey" PRIMARY KEY("post_id","version"),
	CONSTRAINT "revisions_status_check" CHECK ("revisions"."status" IN ('draft', 'published', 'archived'))
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "users_pkey" PRIMARY KEY("id"),
	CONSTRAINT "users_email_key" UNIQUE("email")
);
--> statement-breakpoint
CREATE INDEX "activity_events_occurred_at_id_idx" ON "activity_events" USING btree ("occurred_at","id");--> statement-breakpoint
CREATE INDEX "activity_events_post_id_occurred_at_id_idx" ON "activity_events" USING btree ("post_id","occurred_at","id");--> statement-breakpoint
CREATE INDEX "activity_events_type_occurred_at_id_idx" ON "activity_events" USING btree ("type","occurred_at","id");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "login_attempts_key_attempted_at_idx" ON "login_attempts" USING btree ("key","attempted_at");--> statement-breakpoint
CREATE INDEX "login_attempts_attempted_at_idx" ON "login_attempts" USING btree ("attempted_at");--> statement-breakpoint
CREATE INDEX "posts_updated_at_id_idx" ON "posts" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "posts_created_at_id_idx" ON "posts" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "posts_published_at_asc_id_idx" ON "posts" USING btree ("published_at","id");--> statement-breakpoint
CREATE INDEX "posts_published_at_desc_id_idx" ON "posts" USING btree ("published_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "posts_title_id_idx" ON "posts" USING btree ("title","id");--> statement-breakpoint
CREATE INDEX "posts_status_idx" ON "posts" USING btree ("status");--> statement-breakpoint
CREATE INDEX "posts_tags_idx" ON "posts" USING gin ("tags");--> statement-breakpoint
CREATE INDEX "posts_search_text_trgm_idx" ON "posts" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "refresh_tokens_family_id_idx" ON "refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "refresh_tokens_user_id_idx" ON "refresh_tokens" USING btree ("user_id");