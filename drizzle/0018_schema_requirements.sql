CREATE TABLE "schema_requirements" (
	"migration" text COLLATE "C" NOT NULL,
	"reason" text NOT NULL,
	CONSTRAINT "schema_requirements_pkey" PRIMARY KEY("migration")
);
--> statement-breakpoint
-- By hand: 0017 stores a revision's body by difference (NULL when the same as the next newer one's);
-- a server from before it reads those NULLs as missing bodies, shows empty history and restores
-- empty posts. Servers from this migration on refuse to start against a database that requires a
-- migration they do not know (servers from before it cannot: see the README on rollbacks).
INSERT INTO "schema_requirements" ("migration", "reason") VALUES (
  '0017_revision_body_by_difference',
  'revision bodies are stored by difference: an older server reads them as missing'
);
