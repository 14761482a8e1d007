CREATE TABLE "post_tags" (
	"tag" text NOT NULL,
	"status" text NOT NULL,
	"post_id" text COLLATE "C" NOT NULL,
	CONSTRAINT "post_tags_pkey" PRIMARY KEY("tag","status","post_id")
);
--> statement-breakpoint
CREATE INDEX "post_tags_post_id_idx" ON "post_tags" USING btree ("post_id");--> statement-breakpoint
-- Written by hand below (drizzle-kit does not model functions and triggers): the trigger keeps
-- post_tags equal to the tags and status of every post, in the transaction that writes the post.
CREATE FUNCTION "post_tags_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM "post_tags" WHERE "post_id" = OLD."id";
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO "post_tags" ("tag", "status", "post_id")
    SELECT DISTINCT "tag", NEW."status", NEW."id" FROM unnest(NEW."tags") AS "tag";
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "posts_post_tags_sync" AFTER INSERT OR DELETE OR UPDATE OF "tags", "status" ON "posts"
  FOR EACH ROW EXECUTE FUNCTION "post_tags_sync"();
--> statement-breakpoint
INSERT INTO "post_tags" ("tag", "status", "post_id")
SELECT DISTINCT "tag", "status", "id" FROM "posts", unnest("tags") AS "tag";
