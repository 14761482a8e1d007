-- By hand (drizzle-kit has no option for it): image bytes are compressed already, so PostgreSQL
-- keeps them out of line without trying to compress them again (EXTERNAL, not EXTENDED).
ALTER TABLE "blobs" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;
