-- The workers' queue by lane: a post's pending deliveries to one subscription, in order (claims take
-- the oldest of each lane, so one post's failing event holds back no other post's). Data unchanged:
-- a server of an earlier release still claims correctly here (one per subscription), only without
-- its index, so no schema_requirements row. The outbox triggers (0014, 0016) need no change: they
-- write a change's deliveries under the post's row lock, so a later change of a post gets a later seq.
DROP INDEX "webhook_deliveries_pending_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_lane_idx" ON "webhook_deliveries" USING btree ("subscription_id","post_id","seq") WHERE "webhook_deliveries"."status" = 'pending';