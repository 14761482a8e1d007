-- A revision of an autosave burst (#41 item 4): when the burst began, NULL for any other write. A
-- burst's next autosave moves its row to the new version in the statement of the write
-- (post-repository.ts, updateRecorded); the body trigger of 0017 then finds the revision before the
-- burst as the newest at or below the old version and keeps the old body there, as for any change.
-- A server of an earlier release writes NULL here (no burst) and reads history as before, so no
-- schema_requirements row.
ALTER TABLE "revisions" ADD COLUMN "autosave_since" timestamp (3) with time zone;
