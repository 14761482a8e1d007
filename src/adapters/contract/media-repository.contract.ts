import { describe, expect, it } from 'vitest';
import { encodeCursor, postCursorScope } from '../../domain/cursor.js';
import { DuplicateIdError, InvalidCursorError } from '../../domain/errors.js';
import type { Media, MediaFile } from '../../domain/media.js';
import type { MediaRepository } from '../../domain/ports/media-repository.js';
import { type MakeStore, minute, newPost, rejectionOf, times, ulid, useStore } from './fixtures.js';

/** A media id (26 characters of `[a-z2-7]`); ids sort (in byte order) by `n`. */
function mediaId(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 26 ** 4) throw new RangeError(`mediaId(${n})`);
  const letters = [3, 2, 1, 0].map((p) => String.fromCharCode(97 + (Math.floor(n / 26 ** p) % 26)));
  return `mmmmmmmmmmmmmmmmmmmmmm${letters.join('')}`;
}

/** 64 hex digits, distinct per `kind` and `n`. */
function hash(kind: 'a' | 'b' | 'c', n: number): string {
  return `${kind}${'0'.repeat(59)}${String(n).padStart(4, '0')}`;
}

function file(name: string, contentType: MediaFile['contentType'], width: number, n: number): MediaFile {
  return { name, contentType, width, height: Math.round(width * 0.75), bytes: width * 100 + n, sha256: hash('c', width + n) };
}

/** A JPEG with two widths of variants, hashes of its own, created at `minute(n % 60)`. */
function newMedia(n: number, overrides: Partial<Media> = {}): Media {
  return {
    id: mediaId(n),
    contentType: 'image/jpeg',
    width: 800,
    height: 600,
    bytes: 80_000 + n,
    sha256: hash('a', n),
    sourceSha256: hash('b', n),
    alt: `Alt ${n}`,
    caption: `Caption ${n}`,
    createdAt: minute(n % 60),
    // Not in name order: the order stored is the order answered.
    files: [
      file('original.jpg', 'image/jpeg', 800, n),
      file('320.webp', 'image/webp', 320, n),
      file('320.jpg', 'image/jpeg', 320, n),
      file('640.webp', 'image/webp', 640, n),
      file('640.jpg', 'image/jpeg', 640, n),
    ],
    ...overrides,
  };
}

const mediaUrl = (id: string, name = 'original.jpg') => `https://blog.example/api/v1/content/media/${id}/${name}`;

export function describeMediaRepositoryContract(make: MakeStore): void {
  describe('MediaRepository', () => {
    const store = useStore(make);
    const media = (): MediaRepository => store().media;

    async function walk(limit: number, between?: (page: number) => Promise<void>): Promise<{ ids: string[]; sizes: number[] }> {
      const ids: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const page = await media().list({ limit, cursor });
        ids.push(...page.items.map((m) => m.id));
        sizes.push(page.items.length);
        cursor = page.nextCursor;
        if (sizes.length > 50) throw new Error('the walk does not end');
        if (cursor !== null && between !== undefined) await between(sizes.length);
      } while (cursor !== null);
      return { ids, sizes };
    }

    describe('create', () => {
      it('stores a media as given and answers it with created: true, as get answers it', async () => {
        const input = newMedia(1);
        expect(await media().create(input)).toStrictEqual({ media: newMedia(1), created: true });
        expect(await media().get(mediaId(1))).toStrictEqual(newMedia(1));
      });

      it('answers the existing media and stores nothing for an identical upload (same sourceSha256)', async () => {
        await media().create(newMedia(1));
        const again = await media().create(newMedia(2, { sourceSha256: hash('b', 1), alt: 'Other alt', caption: 'Other' }));
        expect(again).toStrictEqual({ media: newMedia(1), created: false });
        expect(await media().get(mediaId(2))).toBeNull();
        expect((await media().list({ limit: 10 })).items.map((m) => m.id)).toEqual([mediaId(1)]);
      });

      it('answers the existing media and stores nothing for an upload whose served original is the same (same sha256)', async () => {
        await media().create(newMedia(1));
        const again = await media().create(newMedia(2, { sha256: hash('a', 1) }));
        expect(again).toStrictEqual({ media: newMedia(1), created: false });
        expect(await media().get(mediaId(2))).toBeNull();
      });

      it('answers the media with the same sourceSha256 when another one has the same sha256', async () => {
        await media().create(newMedia(1));
        await media().create(newMedia(2));
        const again = await media().create(newMedia(3, { sha256: hash('a', 1), sourceSha256: hash('b', 2) }));
        expect(again).toStrictEqual({ media: newMedia(2), created: false });
        expect(await media().get(mediaId(3))).toBeNull();
      });

      it('stores one media for N concurrent identical creates, and all N answer it', async () => {
        const answers = await Promise.all(
          times(12, (i) => media().create(newMedia(10 + i, { sha256: hash('a', 1), sourceSha256: hash('b', 1) }))),
        );
        expect(answers.filter((a) => a.created)).toHaveLength(1);
        const stored = (await media().list({ limit: 100 })).items;
        expect(stored).toHaveLength(1);
        for (const answer of answers) expect(answer.media).toStrictEqual(stored[0]);
      });

      it('throws DuplicateIdError and stores nothing for an id another media holds, with neither hash the same', async () => {
        await media().create(newMedia(1));
        const error = await rejectionOf(media().create(newMedia(2, { id: mediaId(1) })));
        expect(error).toBeInstanceOf(DuplicateIdError);
        expect(await media().findByHash(hash('a', 2))).toBeNull();
        expect(await media().findByHash(hash('b', 2))).toBeNull();
        expect(await media().get(mediaId(1))).toStrictEqual(newMedia(1));
      });
    });

    describe('reads', () => {
      it('findByHash answers the media whose sourceSha256 or whose sha256 is the hash, else null', async () => {
        await media().create(newMedia(1));
        expect(await media().findByHash(hash('b', 1))).toStrictEqual(newMedia(1));
        expect(await media().findByHash(hash('a', 1))).toStrictEqual(newMedia(1));
        expect(await media().findByHash(hash('a', 2))).toBeNull();
        expect(await media().findByHash(hash('a', 1).toUpperCase())).toBeNull();
      });

      it('findByHash answers the media whose sourceSha256 is the hash before the one whose sha256 is', async () => {
        // Media 3 was uploaded as the very bytes media 2 serves (an export imported again).
        await media().create(newMedia(2));
        await media().create(newMedia(3, { sourceSha256: hash('a', 2) }));
        expect((await media().findByHash(hash('a', 2)))?.id).toBe(mediaId(3));
        expect((await media().findByHash(hash('b', 2)))?.id).toBe(mediaId(2));
      });

      it('get answers null for an unknown id; ids compare exactly, case included', async () => {
        await media().create(newMedia(1));
        expect(await media().get(mediaId(2))).toBeNull();
        expect(await media().get(mediaId(1).toUpperCase())).toBeNull();
        expect(await media().get(`${mediaId(1)} `)).toBeNull();
      });

      it('getMany answers the media of the ids that exist, as get does, in the order named, each once', async () => {
        expect(await media().getMany([])).toEqual([]);
        for (const n of [1, 2, 3]) await media().create(newMedia(n));
        const got = await media().getMany([mediaId(3), mediaId(4), mediaId(1).toUpperCase(), mediaId(1), mediaId(3), mediaId(2)]);
        expect(got).toEqual([await media().get(mediaId(3)), await media().get(mediaId(1)), await media().get(mediaId(2))]);
        expect(await media().getMany([mediaId(4)])).toEqual([]);
      });

      it('getMany reads at most 100 distinct ids at once: a RangeError beyond, however often they are named', async () => {
        const hundred = Array.from({ length: 100 }, (_, i) => mediaId(i + 1));
        await media().create(newMedia(7));
        expect((await media().getMany([...hundred, ...hundred])).map((m) => m.id)).toEqual([mediaId(7)]);
        await expect(media().getMany([...hundred, mediaId(101)])).rejects.toThrow(RangeError);
      });

      it('keeps millisecond precision of createdAt on every read', async () => {
        const createdAt = new Date('2026-12-31T23:59:59.999Z');
        const created = await media().create(newMedia(1, { createdAt }));
        const reads = [
          created.media,
          await media().get(mediaId(1)),
          await media().findByHash(hash('a', 1)),
          (await media().list({ limit: 1 })).items[0],
          await media().update(mediaId(1), { alt: 'x' }),
        ];
        for (const m of reads) expect(m?.createdAt.toISOString()).toBe('2026-12-31T23:59:59.999Z');
      });

      it('answers files in the order stored, each field as given', async () => {
        const files = [...newMedia(1).files].reverse();
        await media().create(newMedia(1, { files }));
        expect((await media().get(mediaId(1)))?.files).toStrictEqual(files);
        expect((await media().list({ limit: 1 })).items[0]?.files).toStrictEqual(files);
      });

      it('answers copies: changing what went in or what came out changes nothing stored', async () => {
        const input = newMedia(1);
        const { media: answered } = await media().create(input);
        input.files[0]!.width = 1;
        input.createdAt.setTime(0);
        answered.files.pop();
        answered.alt = 'changed';
        const read = await media().get(mediaId(1));
        read!.files[1]!.name = 'x';
        expect(await media().get(mediaId(1))).toStrictEqual(newMedia(1));
      });
    });

    describe('list', () => {
      it('lists newest first with cursor pages: createdAt descending, then id descending', async () => {
        // minute 5 three times (ties by id), then 9, 1, 7; inserted in neither order.
        const minutes: Record<number, number> = { 1: 5, 2: 9, 3: 5, 4: 1, 5: 7, 6: 5, 7: 1 };
        for (const n of [3, 7, 1, 5, 6, 2, 4]) await media().create(newMedia(n, { createdAt: minute(minutes[n]!) }));
        const expected = [2, 5, 6, 3, 1, 7, 4].map(mediaId);
        expect(await walk(3)).toEqual({ ids: expected, sizes: [3, 3, 1] });
        expect((await walk(1)).ids).toEqual(expected);
        expect(await walk(100)).toEqual({ ids: expected, sizes: [7] });
      });

      it('answers an empty page with a null cursor for an empty library', async () => {
        expect(await media().list({ limit: 10 })).toStrictEqual({ items: [], nextCursor: null });
        expect(await media().list({ limit: 10, cursor: null })).toStrictEqual({ items: [], nextCursor: null });
      });

      it('answers a null cursor on a last page that is exactly full', async () => {
        for (const n of [1, 2, 3]) await media().create(newMedia(n));
        expect(await walk(3)).toEqual({ ids: [3, 2, 1].map(mediaId), sizes: [3] });
      });

      it('walks on from its cursor when media are created or deleted between pages', async () => {
        for (const n of [1, 2, 3, 4, 5, 6]) await media().create(newMedia(n));
        const { ids } = await walk(2, async (page) => {
          if (page !== 1) return;
          await media().create(newMedia(50)); // newer than every page: not in this walk
          await media().delete(mediaId(5)); // already answered
          await media().delete(mediaId(3)); // not reached yet
        });
        expect(ids).toEqual([6, 5, 4, 2, 1].map(mediaId));
      });

      it('refuses a limit that is not an integer from 1 to 100 with RangeError', async () => {
        for (const limit of [0, 101, 1.5, -1]) expect(await rejectionOf(media().list({ limit })), String(limit)).toBeInstanceOf(RangeError);
      });

      it('refuses a cursor that is not one of its own with InvalidCursorError', async () => {
        await media().create(newMedia(1));
        const postCursor = encodeCursor(postCursorScope({ sort: { key: 'createdAt', direction: 'desc' } }), [
          minute(1).toISOString(),
          ulid(1),
        ]);
        for (const cursor of ['', 'garbage', postCursor])
          expect(await rejectionOf(media().list({ limit: 10, cursor })), cursor).toBeInstanceOf(InvalidCursorError);
      });
    });

    describe('update and delete', () => {
      it('update changes alt and caption only and answers the media as stored; an absent field keeps its value', async () => {
        await media().create(newMedia(1));
        expect(await media().update(mediaId(1), { alt: 'New alt' })).toStrictEqual(newMedia(1, { alt: 'New alt' }));
        const both = await media().update(mediaId(1), { caption: '', alt: 'Ünïcödé 😀' });
        expect(both).toStrictEqual(newMedia(1, { alt: 'Ünïcödé 😀', caption: '' }));
        expect(await media().update(mediaId(1), {})).toStrictEqual(both);
        expect(await media().get(mediaId(1))).toStrictEqual(both);
      });

      it('update answers null for an unknown id and stores nothing', async () => {
        expect(await media().update(mediaId(1), { alt: 'x' })).toBeNull();
        expect(await media().get(mediaId(1))).toBeNull();
      });

      it('delete removes the record and answers whether it existed; its hashes are free again', async () => {
        await media().create(newMedia(1));
        await media().create(newMedia(2));
        expect(await media().delete(mediaId(1))).toBe(true);
        expect(await media().delete(mediaId(1))).toBe(false);
        expect(await media().delete(mediaId(9))).toBe(false);
        expect(await media().get(mediaId(1))).toBeNull();
        expect(await media().findByHash(hash('b', 1))).toBeNull();
        expect((await media().list({ limit: 10 })).items.map((m) => m.id)).toEqual([mediaId(2)]);
        expect((await media().create(newMedia(3, { sha256: hash('a', 1), sourceSha256: hash('b', 1) }))).created).toBe(true);
      });
    });

    describe('uses', () => {
      it('answers the posts whose cover it is and those whose body links it, by post id', async () => {
        const id = mediaId(1);
        await media().create(newMedia(1));
        const posts = store().posts;
        await posts.create(newPost(5, { title: 'Body', body: `Look: ![a photo](${mediaUrl(id, '640.webp')})`, status: 'published' }));
        await posts.create(newPost(2, { title: 'Cover', coverImage: { mediaId: id, alt: 'A cover' }, status: 'archived' }));
        await posts.create(newPost(9, { title: 'Both', body: `<img src="${mediaUrl(id)}">`, coverImage: { mediaId: id, alt: 'x' } }));
        await posts.create(newPost(3, { title: 'Other', body: mediaUrl(mediaId(2)), coverImage: { mediaId: mediaId(2), alt: 'x' } }));
        await posts.create(newPost(4, { title: 'None', body: 'No image.' }));
        expect(await media().uses(id, 10)).toStrictEqual([
          { postId: ulid(2), title: 'Cover', slug: 'post-2' },
          { postId: ulid(5), title: 'Body', slug: 'post-5' },
          { postId: ulid(9), title: 'Both', slug: 'post-9' },
        ]);
      });

      it('matches the path /media/<id>/ exactly: a longer id, another case or the id alone are no use', async () => {
        const id = mediaId(1);
        await media().create(newMedia(1));
        const posts = store().posts;
        await posts.create(newPost(1, { body: `/media/${id}x/original.jpg` }));
        await posts.create(newPost(2, { body: `/media/${id.toUpperCase()}/original.jpg` }));
        await posts.create(newPost(3, { body: `the id ${id} alone, or media/${id}` }));
        await posts.create(newPost(4, { body: `/MEDIA/${id}/original.jpg` }));
        await posts.create(newPost(5, { body: `relative: /media/${id}/320.webp` }));
        expect((await media().uses(id, 10)).map((u) => u.postId)).toEqual([ulid(5)]);
        // An id is whatever it is, capitals included: the post that links it in its case uses it.
        expect((await media().uses(id.toUpperCase(), 10)).map((u) => u.postId)).toEqual([ulid(2)]);
      });

      it('treats the id literally: LIKE metacharacters in an id match nothing else', async () => {
        const posts = store().posts;
        await posts.create(newPost(1, { body: `/media/${mediaId(1)}/original.jpg` }));
        expect(await media().uses('%', 10)).toEqual([]);
        expect(await media().uses(`${mediaId(1).slice(0, 25)}_`, 10)).toEqual([]);
        expect(await media().uses(`${mediaId(1).slice(0, 20)}%`, 10)).toEqual([]);
      });

      it('answers at most limit posts, the first by id, and refuses a limit that is not a positive integer', async () => {
        const id = mediaId(1);
        for (const n of [4, 1, 3, 2]) await store().posts.create(newPost(n, { body: mediaUrl(id) }));
        expect((await media().uses(id, 2)).map((u) => u.postId)).toEqual([ulid(1), ulid(2)]);
        expect(await media().uses(id, 1000)).toHaveLength(4);
        for (const limit of [0, -1, 1.5]) expect(await rejectionOf(media().uses(id, limit)), String(limit)).toBeInstanceOf(RangeError);
      });

      it('answers an empty list for a media no post shows, or an unknown id', async () => {
        await media().create(newMedia(1));
        await store().posts.create(newPost(1, { body: 'Nothing here.' }));
        expect(await media().uses(mediaId(1), 10)).toEqual([]);
        expect(await media().uses(mediaId(7), 10)).toEqual([]);
      });

      it('follows the posts as they are now: an edit that drops the link or the cover, or a deleted post, is no use', async () => {
        const id = mediaId(1);
        const posts = store().posts;
        await posts.create(newPost(1, { body: mediaUrl(id) }));
        await posts.create(newPost(2, { coverImage: { mediaId: id, alt: 'x' } }));
        await posts.create(newPost(3, { body: mediaUrl(id) }));
        await posts.update(ulid(1), 1, { body: 'Gone.' }, minute(30));
        await posts.update(ulid(2), 1, { coverImage: null }, minute(30));
        expect((await media().uses(id, 10)).map((u) => u.postId)).toEqual([ulid(3)]);
        await posts.delete(ulid(3), 1);
        expect(await media().uses(id, 10)).toEqual([]);
        await posts.update(ulid(2), 2, { title: 'Renamed', body: `![](${mediaUrl(id, '320.jpg')})` }, minute(31));
        expect(await media().uses(id, 10)).toStrictEqual([{ postId: ulid(2), title: 'Renamed', slug: 'post-2' }]);
      });
    });
  });
}
