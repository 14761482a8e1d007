ALTER TABLE "activity_events" DROP CONSTRAINT "activity_events_type_check";--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "publish_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "posts_publish_at_id_idx" ON "posts" USING btree ("publish_at","id") WHERE "posts"."publish_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "activity_events" ADD CONSTRAINT "activity_events_type_check" CHECK ("activity_events"."type" IN ('created', 'updated', 'published', 'unpublished', 'archived', 'deleted', 'restored', 'scheduled', 'unscheduled'));--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_publish_at_check" CHECK ("posts"."publish_at" IS NULL OR "posts"."status" = 'draft');