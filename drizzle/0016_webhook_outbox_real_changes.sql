-- By hand: only a change to a post is an event. Every write of the post repositories bumps the
-- version; a write that does not (the search backfill filling `search` after migration 0015, or
-- any future maintenance) is no change to subscribers and must not send `post.updated`.
DROP TRIGGER posts_webhook_outbox_update ON posts;
--> statement-breakpoint
CREATE TRIGGER posts_webhook_outbox_update AFTER UPDATE ON posts FOR EACH ROW
  WHEN ((OLD.status = 'published' OR NEW.status = 'published') AND OLD.version IS DISTINCT FROM NEW.version)
  EXECUTE FUNCTION webhook_outbox();
