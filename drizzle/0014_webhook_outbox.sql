-- By hand (drizzle-kit does not write triggers): the transactional outbox of webhooks. Every write
-- to `posts` whose change `webhookEventOf(before, after)` (src/domain/webhooks.ts) names an event
-- writes, in its own transaction, the event with the post as it is after the change (as it was,
-- for a deletion) and one pending delivery per enabled subscription listening to the event's
-- type; nothing when none listens. The WHEN clauses keep the trigger from running at all for
-- drafts that stay drafts (the common write). A delivery never attempted is due at once
-- (`attempts` 0), so `next_attempt_at` is only the time of a retry.
CREATE FUNCTION webhook_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event_type text;
  post_row posts;
  occurred timestamptz;
  event_id text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    event_type := 'post.deleted';
    post_row := OLD;
    occurred := date_trunc('milliseconds', now());
  ELSE
    post_row := NEW;
    occurred := NEW.updated_at;
    IF NEW.status <> 'published' THEN
      event_type := 'post.unpublished';
    ELSIF TG_OP = 'UPDATE' AND OLD.status = 'published' THEN
      event_type := 'post.updated';
    ELSE
      event_type := 'post.published';
    END IF;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.enabled AND event_type = ANY (s.events)) THEN
    RETURN NULL;
  END IF;
  event_id := 'msg_' || replace(gen_random_uuid()::text, '-', '');
  INSERT INTO webhook_events (id, type, post_id, occurred_at, post)
  VALUES (event_id, event_type, post_row.id, occurred, to_jsonb(post_row) - 'search_text' - 'search');
  INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, post_id, status, attempts, next_attempt_at, created_at)
  SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), s.id, event_id, event_type, post_row.id, 'pending', 0, occurred, occurred
  FROM webhook_subscriptions s
  WHERE s.enabled AND event_type = ANY (s.events)
  ORDER BY s.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER posts_webhook_outbox_insert AFTER INSERT ON posts FOR EACH ROW
  WHEN (NEW.status = 'published') EXECUTE FUNCTION webhook_outbox();
--> statement-breakpoint
CREATE TRIGGER posts_webhook_outbox_update AFTER UPDATE ON posts FOR EACH ROW
  WHEN (OLD.status = 'published' OR NEW.status = 'published') EXECUTE FUNCTION webhook_outbox();
--> statement-breakpoint
CREATE TRIGGER posts_webhook_outbox_delete AFTER DELETE ON posts FOR EACH ROW
  EXECUTE FUNCTION webhook_outbox();
