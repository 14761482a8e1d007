-- A post's row holds its body and its search text (title, excerpt and body, lowercased): a post
-- of 1 KB of markdown is a row over 2 KB, which PostgreSQL compresses by default (TOAST, pglz),
-- and every `q` search then decompresses the search text of each row it reads (measured at
-- 100,000 posts: 5.0 ms to count the first 1,001 matches of a word, 2.9 ms without). Rows of up
-- to 8,160 bytes (a page) now stay inline and uncompressed; longer posts are compressed as
-- before. Rows written earlier keep their layout until they are next written.
ALTER TABLE "posts" SET (toast_tuple_target = 8160);
