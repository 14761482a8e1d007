CREATE TABLE "blobs" (
	"key" text COLLATE "C" NOT NULL,
	"part" integer NOT NULL,
	"content_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "blobs_pkey" PRIMARY KEY("key","part")
);
--> statement-breakpoint
CREATE TABLE "media" (
	"id" text COLLATE "C" NOT NULL,
	"content_type" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"bytes" bigint NOT NULL,
	"sha256" text COLLATE "C" NOT NULL,
	"source_sha256" text COLLATE "C" NOT NULL,
	"alt" text NOT NULL,
	"caption" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"files" jsonb NOT NULL,
	CONSTRAINT "media_pkey" PRIMARY KEY("id"),
	CONSTRAINT "media_sha256_key" UNIQUE("sha256"),
	CONSTRAINT "media_source_sha256_key" UNIQUE("source_sha256")
);
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "cover_media_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "cover_alt" text;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "seo_title" text;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "seo_description" text;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "seo_canonical_url" text;--> statement-breakpoint
ALTER TABLE "revisions" ADD COLUMN "cover_media_id" text;--> statement-breakpoint
ALTER TABLE "revisions" ADD COLUMN "cover_alt" text;--> statement-breakpoint
ALTER TABLE "revisions" ADD COLUMN "seo_title" text;--> statement-breakpoint
ALTER TABLE "revisions" ADD COLUMN "seo_description" text;--> statement-breakpoint
ALTER TABLE "revisions" ADD COLUMN "seo_canonical_url" text;--> statement-breakpoint
CREATE INDEX "media_created_at_id_idx" ON "media" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "posts_cover_media_id_idx" ON "posts" USING btree ("cover_media_id") WHERE "posts"."cover_media_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_cover_check" CHECK (("posts"."cover_media_id" IS NULL) = ("posts"."cover_alt" IS NULL));