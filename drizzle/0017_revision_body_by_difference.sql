ALTER TABLE "revisions" ALTER COLUMN "body" DROP NOT NULL;--> statement-breakpoint
-- By hand: a body is stored once (#32). A revision row's `body` is NULL when it is the same as the
-- next newer revision's body, or, for the newest, the post's current body. Reading resolves it:
-- the first non-null body among the newer revisions of the post, else the post's body
-- (revision-repository.ts). A recorded write therefore stores its revision without the body (a
-- create no longer writes its 1 KB twice, nor a title edit or a publish once more); when a post's
-- body changes, this trigger keeps the old one in the newest revision that left it out, in the
-- transaction of the change. The bound `version <= OLD.version` skips the revision of the change
-- itself: the recorded writes insert it in the same statement as the UPDATE, and an AFTER trigger
-- sees it. A post deleted without its history (the unrecorded delete; a recorded delete removes
-- the revisions in the same statement) leaves its body in the same way, so that its revisions still
-- resolve. Rows written before keep their bodies: a non-null body is always valid.
CREATE FUNCTION revision_body_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE revisions r SET body = OLD.body
  FROM (
    SELECT n.version FROM revisions n
    WHERE n.post_id = OLD.id AND n.version <= OLD.version
    ORDER BY n.version DESC LIMIT 1
  ) newest
  WHERE r.post_id = OLD.id AND r.version = newest.version AND r.body IS NULL;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER posts_revision_body_kept AFTER UPDATE OF body ON posts FOR EACH ROW
  WHEN (OLD.body IS DISTINCT FROM NEW.body) EXECUTE FUNCTION revision_body_kept();
--> statement-breakpoint
CREATE TRIGGER posts_revision_body_kept_delete AFTER DELETE ON posts FOR EACH ROW EXECUTE FUNCTION revision_body_kept();
