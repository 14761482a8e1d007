import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import {
  FixedClock,
  MediaInUseError,
  MediaRefusedError,
  NotFoundError,
  SequentialIds,
  ValidationError,
  VARIANT_WIDTHS,
  type BlobStore,
  type IdGenerator,
  type ImageFile,
  type ImageProcessor,
  type MediaRepository,
  type Store,
} from '../domain/index.js';
import { MediaFileCache } from './media-file-cache.js';
import { deleteMedia, getMedia, listMedia, readMediaFile, updateMedia, uploadMedia, type MediaDeps } from './media.js';
import { createPostUseCases } from './post-use-cases.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A stand-in for sharp that reads "images" written as text: `png 2000x1000` (or `jpeg …`, with
 * ` exif` when it carries metadata to remove; anything else is refused as unsupported). It keeps a
 * clean upload byte for byte and "re-encodes" one with metadata (the words without ` exif`), and
 * makes a variant at each width below the original's, in WebP and the original's type.
 */
function fakeImages(): ImageProcessor & { calls: number } {
  const fake = {
    calls: 0,
    async process(bytes: Uint8Array) {
      fake.calls++;
      const text = decoder.decode(bytes);
      const match = /^(png|jpeg) (\d+)x(\d+)( exif)?$/.exec(text);
      if (match === null) throw new MediaRefusedError('unsupported-type', 'not an image');
      const [, kind, w, h, exif] = match;
      const contentType = `image/${kind}` as 'image/png' | 'image/jpeg';
      const width = Number(w);
      const height = Number(h);
      const original: ImageFile = {
        contentType,
        width,
        height,
        bytes: exif === undefined ? bytes : encoder.encode(`${kind} ${width}x${height}`),
      };
      const variants = VARIANT_WIDTHS.filter((v) => v < width).flatMap((v): ImageFile[] =>
        (['image/webp', contentType] as const).map((type) => ({
          contentType: type,
          width: v,
          height: Math.round((height * v) / width),
          bytes: encoder.encode(`${type} ${v}`),
        })),
      );
      return { sourceSha256: await sha256(bytes), original, variants: variants.reverse() };
    },
    inspect(): Promise<never> {
      throw new Error('an upload decodes: it reads no header alone');
    },
  };
  return fake;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Media-shaped ids (`[a-z2-7]{26}`) in order: `aaa…a`, `aaa…b`, … */
function mediaIds(): IdGenerator {
  let n = 0;
  const base32 = 'abcdefghijklmnopqrstuvwxyz234567';
  return {
    next: () =>
      [...(n++).toString(32)]
        .map((digit) => base32[parseInt(digit, 32)])
        .join('')
        .padStart(26, 'a'),
  };
}

/** `target` with some methods replaced (a class instance's others stay bound to it). */
function overriding<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get: (object, name) => {
      if (name in overrides) return overrides[name as keyof T];
      const value: unknown = Reflect.get(object, name, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

function setup(wrap: (media: MediaRepository, blobs: BlobStore) => Partial<MediaDeps> = () => ({})) {
  const store = createMemoryStore();
  const clock = new FixedClock(new Date('2026-12-01T10:00:00.000Z'));
  const images = fakeImages();
  const deps: MediaDeps = { media: store.media, blobs: store.blobs, images, ids: mediaIds(), clock, ...wrap(store.media, store.blobs) };
  return { store, clock, images, deps };
}

const image = (text: string) => encoder.encode(text);

async function postLinking(store: Store, title: string, body: string) {
  const posts = createPostUseCases({
    store,
    clock: new FixedClock(new Date()),
    ids: new SequentialIds(1),
    idempotency: { leaseMs: 1, ttlMs: 1 },
  });
  const outcome = await posts.writes.create({ title, excerpt: '', body, tags: [], status: 'draft' }, { id: 'U1', name: 'Ada' });
  if (outcome.replayed) throw new Error('no key, no replay');
  return outcome.result;
}

describe('uploadMedia', () => {
  it('stores the original and a WebP and same-type variant at each width below it, original first then by width, with their bytes', async () => {
    const { deps, store } = setup();
    const { media, created } = await uploadMedia(deps, image('png 2000x1000'), { alt: 'A chart', caption: 'Sales' });
    expect(created).toBe(true);
    expect(media).toMatchObject({
      id: 'a'.repeat(26),
      contentType: 'image/png',
      width: 2000,
      height: 1000,
      alt: 'A chart',
      caption: 'Sales',
    });
    expect(media.bytes).toBe('png 2000x1000'.length);
    expect(media.sha256).toBe(await sha256(image('png 2000x1000')));
    expect(media.sourceSha256).toBe(media.sha256);
    expect(media.createdAt.toISOString()).toBe('2026-12-01T10:00:00.000Z');
    expect(media.files.map((f) => f.name)).toEqual([
      'original.png',
      '320.png',
      '320.webp',
      '640.png',
      '640.webp',
      '1024.png',
      '1024.webp',
      '1600.png',
      '1600.webp',
    ]);
    for (const file of media.files) {
      const blob = await store.blobs.get(`media/${media.id}/${file.name}`);
      expect(blob?.contentType).toBe(file.contentType);
      expect(file.sha256).toBe(await sha256(blob!.bytes));
      expect(file.bytes).toBe(blob!.bytes.byteLength);
    }
    expect(await store.media.get(media.id)).toEqual(media);
  });

  it('keeps the hash of the bytes as uploaded apart from the served original, which lost its metadata', async () => {
    const { deps } = setup();
    const { media } = await uploadMedia(deps, image('jpeg 300x200 exif'));
    expect(media.sourceSha256).toBe(await sha256(image('jpeg 300x200 exif')));
    expect(media.sha256).toBe(await sha256(image('jpeg 300x200')));
    expect(media.files.map((f) => f.name)).toEqual(['original.jpg']);
  });

  it('answers an identical upload with the stored media (created false, first alt kept) without decoding it again', async () => {
    const { deps, images, store } = setup();
    const first = await uploadMedia(deps, image('png 800x600'), { alt: 'First' });
    const again = await uploadMedia(deps, image('png 800x600'), { alt: 'Second' });
    expect(again).toEqual({ media: first.media, created: false });
    expect(images.calls).toBe(1);
    expect(await store.blobs.keys('media/', 100)).toHaveLength(first.media.files.length);
  });

  it('answers an upload of a served original with the media it came from, writing no files', async () => {
    const { deps, store } = setup();
    const first = await uploadMedia(deps, image('jpeg 300x200 exif'));
    const again = await uploadMedia(deps, image('jpeg 300x200'));
    expect(again).toEqual({ media: first.media, created: false });
    expect(await store.blobs.keys('media/', 100)).toEqual([`media/${first.media.id}/original.jpg`]);
  });

  it('deletes the files it wrote when an identical upload was stored meanwhile (the repository answers created false)', async () => {
    // Both uploads miss findByHash, as two processes racing would; the repository decides.
    const { deps, store } = setup((media) => ({ media: overriding(media, { findByHash: async () => null }) }));
    const first = await uploadMedia(deps, image('png 700x700'));
    const second = await uploadMedia(deps, image('png 700x700'));
    expect(second.created).toBe(false);
    expect(second.media.id).toBe(first.media.id);
    const keys = await store.blobs.keys('media/', 100);
    expect(keys.every((key) => key.startsWith(`media/${first.media.id}/`))).toBe(true);
    expect(keys).toHaveLength(first.media.files.length);
  });

  it('lets the refusal of the processor through and stores nothing', async () => {
    const { deps, store } = setup();
    const refused = uploadMedia(deps, image('<svg onload="alert(1)"/>'));
    await expect(refused).rejects.toBeInstanceOf(MediaRefusedError);
    await expect(refused).rejects.toMatchObject({ reason: 'unsupported-type' });
    expect(await store.blobs.keys('', 100)).toEqual([]);
    expect((await store.media.list({ limit: 10 })).items).toEqual([]);
  });

  it('removes the files it wrote and rethrows when one write fails', async () => {
    const { deps, store } = setup((_media, blobs) => ({
      blobs: overriding(blobs, {
        put: (key, bytes, type) => (key.endsWith('640.webp') ? Promise.reject(new Error('disk full')) : blobs.put(key, bytes, type)),
      }),
    }));
    await expect(uploadMedia(deps, image('png 1000x500'))).rejects.toThrow('disk full');
    expect(await store.blobs.keys('', 100)).toEqual([]);
    expect((await store.media.list({ limit: 10 })).items).toEqual([]);
  });

  it('writes its files one after another, so that an upload holds one connection of the store', async () => {
    let writing = 0;
    let most = 0;
    const { deps, store } = setup((_media, blobs) => ({
      blobs: overriding(blobs, {
        put: async (key, bytes, type) => {
          writing += 1;
          most = Math.max(most, writing);
          await new Promise((resolve) => setTimeout(resolve, 1));
          await blobs.put(key, bytes, type);
          writing -= 1;
        },
      }),
    }));
    const { media } = await uploadMedia(deps, image('png 2000x1000'));
    expect(await store.blobs.keys('media/', 100)).toHaveLength(media.files.length);
    expect(media.files.length).toBeGreaterThan(2);
    expect(most).toBe(1);
  });

  it('refuses an alt over 1000 and a caption over 2000 characters, and NUL, before decoding anything', async () => {
    const { deps, images } = setup();
    const long = uploadMedia(deps, image('png 10x10'), { alt: 'a'.repeat(1001), caption: 'c'.repeat(2001) });
    await expect(long).rejects.toBeInstanceOf(ValidationError);
    await expect(long).rejects.toMatchObject({ issues: [{ pointer: '/alt' }, { pointer: '/caption' }] });
    await expect(uploadMedia(deps, image('png 10x10'), { alt: 'a\u0000' })).rejects.toMatchObject({ issues: [{ pointer: '/alt' }] });
    expect(images.calls).toBe(0);
    const fits = await uploadMedia(deps, image('png 10x10'), { alt: 'a'.repeat(1000), caption: 'c'.repeat(2000) });
    expect(fits.created).toBe(true);
  });
});

describe('getMedia and listMedia', () => {
  it('answers a media by id, and NotFoundError for an unknown or malformed id', async () => {
    const { deps } = setup();
    const { media } = await uploadMedia(deps, image('png 100x100'));
    expect(await getMedia(deps, media.id)).toEqual(media);
    await expect(getMedia(deps, 'b'.repeat(26))).rejects.toBeInstanceOf(NotFoundError);
    await expect(getMedia(deps, '../etc')).rejects.toMatchObject({ entity: 'media' });
  });

  it('lists the library newest first in cursor pages', async () => {
    const { deps, clock } = setup();
    const ids: string[] = [];
    for (const size of [100, 200, 300]) {
      ids.push((await uploadMedia(deps, image(`png ${size}x${size}`))).media.id);
      clock.advance(1000);
    }
    const first = await listMedia(deps, { limit: 2 });
    expect(first.items.map((m) => m.id)).toEqual([ids[2], ids[1]]);
    const second = await listMedia(deps, { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((m) => m.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeNull();
  });
});

describe('updateMedia', () => {
  it('changes the alt text and keeps the caption when it is absent', async () => {
    const { deps } = setup();
    const { media } = await uploadMedia(deps, image('png 100x100'), { alt: 'Old', caption: 'Kept' });
    const updated = await updateMedia(deps, media.id, { alt: 'New' });
    expect(updated).toMatchObject({ id: media.id, alt: 'New', caption: 'Kept' });
    expect(await getMedia(deps, media.id)).toEqual(updated);
  });

  it('refuses an alt over 1000 or a caption over 2000 characters and changes nothing', async () => {
    const { deps } = setup();
    const { media } = await uploadMedia(deps, image('png 100x100'), { alt: 'Old' });
    await expect(updateMedia(deps, media.id, { alt: 'a'.repeat(1001) })).rejects.toMatchObject({ issues: [{ pointer: '/alt' }] });
    await expect(updateMedia(deps, media.id, { caption: 'c'.repeat(2001) })).rejects.toMatchObject({ issues: [{ pointer: '/caption' }] });
    expect((await getMedia(deps, media.id)).alt).toBe('Old');
  });

  it('throws NotFoundError for an unknown id', async () => {
    const { deps } = setup();
    await expect(updateMedia(deps, 'c'.repeat(26), { alt: 'x' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('deleteMedia', () => {
  it('refuses to delete a media a post links to, naming the post, and keeps its record and files', async () => {
    const { deps, store } = setup();
    const { media } = await uploadMedia(deps, image('png 400x400'));
    const post = await postLinking(
      store,
      'With a picture',
      `![A chart](https://api.example.com/api/v1/content/media/${media.id}/original.png)`,
    );
    const refused = deleteMedia(deps, media.id);
    await expect(refused).rejects.toBeInstanceOf(MediaInUseError);
    await expect(refused).rejects.toMatchObject({
      mediaId: media.id,
      posts: [{ postId: post.id, title: 'With a picture', slug: post.slug }],
    });
    expect(await getMedia(deps, media.id)).toEqual(media);
    expect(await store.blobs.keys(`media/${media.id}/`, 100)).toHaveLength(media.files.length);
  });

  it('deletes a media in use with force, its record and every file', async () => {
    const { deps, store } = setup();
    const { media } = await uploadMedia(deps, image('png 700x400'));
    await postLinking(store, 'With a picture', `![x](/api/v1/content/media/${media.id}/320.webp)`);
    await deleteMedia(deps, media.id, { force: true });
    await expect(getMedia(deps, media.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.blobs.keys('media/', 100)).toEqual([]);
  });

  it('deletes a media no post shows without force, and throws NotFoundError the second time', async () => {
    const { deps, store } = setup();
    const { media } = await uploadMedia(deps, image('png 100x100'));
    await deleteMedia(deps, media.id);
    expect(await store.blobs.keys('media/', 100)).toEqual([]);
    await expect(deleteMedia(deps, media.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('readMediaFile', () => {
  it('answers a file of a media with its record and bytes', async () => {
    const { deps } = setup();
    const { media } = await uploadMedia(deps, image('png 700x400'));
    const read = await readMediaFile(deps, media.id, '320.webp');
    expect(read.file).toEqual(media.files.find((f) => f.name === '320.webp'));
    expect(decoder.decode(read.bytes!)).toBe('image/webp 320');
  });

  it('does not read the bytes when the client copy is current', async () => {
    let reads = 0;
    const { deps } = setup((_media, blobs) => ({
      blobs: overriding(blobs, {
        get: (key) => {
          reads++;
          return blobs.get(key);
        },
      }),
    }));
    const { media } = await uploadMedia(deps, image('png 100x100'));
    const read = await readMediaFile(deps, media.id, 'original.png', { notModified: (file) => file.sha256 === media.sha256 });
    expect(read).toEqual({ file: media.files[0], bytes: null });
    expect(reads).toBe(0);
  });

  it('throws NotFoundError for an unknown media, a name none of its files has, and a name with a path in it', async () => {
    const { deps } = setup();
    const { media } = await uploadMedia(deps, image('png 100x100'));
    await expect(readMediaFile(deps, 'd'.repeat(26), 'original.png')).rejects.toBeInstanceOf(NotFoundError);
    await expect(readMediaFile(deps, media.id, '320.webp')).rejects.toBeInstanceOf(NotFoundError);
    await expect(readMediaFile(deps, media.id, '../original.png')).rejects.toBeInstanceOf(NotFoundError);
    await expect(readMediaFile(deps, media.id, 'original.jpg')).rejects.toBeInstanceOf(NotFoundError);
  });

  /** A setup whose store counts the media records and the file bytes it reads, with `files` as the cache. */
  function countingReads(files: MediaFileCache) {
    const counts = { reads: 0, records: 0 };
    const { deps } = setup((media, blobs) => ({
      media: overriding(media, {
        get: (id) => {
          counts.records++;
          return media.get(id);
        },
      }),
      blobs: overriding(blobs, {
        get: (key) => {
          counts.reads++;
          return blobs.get(key);
        },
      }),
      files,
    }));
    return { deps, counts };
  }

  it('serves a file read once from the cache, without reading its bytes again, and the record still every time', async () => {
    const { deps, counts } = countingReads(new MediaFileCache(1024));
    const { media } = await uploadMedia(deps, image('png 700x400'));
    for (let i = 0; i < 3; i++) expect(decoder.decode((await readMediaFile(deps, media.id, '320.webp')).bytes!)).toBe('image/webp 320');
    expect(counts).toEqual({ reads: 1, records: 3 });
  });

  it('answers NotFoundError for a file of a deleted media whose bytes were cached, by this process or another', async () => {
    const files = new MediaFileCache(1024);
    const { deps, store } = setup(() => ({ files }));
    const first = (await uploadMedia(deps, image('png 700x400'))).media;
    const second = (await uploadMedia(deps, image('png 800x400'))).media;
    await readMediaFile(deps, first.id, '320.webp');
    await readMediaFile(deps, second.id, '320.webp');
    await deleteMedia(deps, first.id);
    expect(files.get(`media/${first.id}/320.webp`)).toBeUndefined();
    await expect(readMediaFile(deps, first.id, '320.webp')).rejects.toBeInstanceOf(NotFoundError);
    // Deleted by another process: this one's cache still holds the bytes, the record says no.
    await store.media.delete(second.id);
    expect(files.get(`media/${second.id}/320.webp`)).toBeDefined();
    await expect(readMediaFile(deps, second.id, '320.webp')).rejects.toBeInstanceOf(NotFoundError);
  });

  it("reads neither record nor bytes again for a cached file when the process is its store's only one, and still forgets a media it deletes", async () => {
    const { deps, counts } = countingReads(new MediaFileCache(1024, true));
    const { media } = await uploadMedia(deps, image('png 700x400'));
    for (let i = 0; i < 3; i++) expect(decoder.decode((await readMediaFile(deps, media.id, '320.webp')).bytes!)).toBe('image/webp 320');
    const notModified = await readMediaFile(deps, media.id, '320.webp', { notModified: () => true });
    expect(notModified.bytes).toBeNull();
    expect(notModified.file.name).toBe('320.webp');
    expect(counts).toEqual({ reads: 1, records: 1 });
    await deleteMedia(deps, media.id, { force: true });
    await expect(readMediaFile(deps, media.id, '320.webp')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('throws NotFoundError when the record names a file whose bytes are gone', async () => {
    const { deps, store } = setup();
    const { media } = await uploadMedia(deps, image('png 100x100'));
    await store.blobs.delete([`media/${media.id}/original.png`]);
    await expect(readMediaFile(deps, media.id, 'original.png')).rejects.toBeInstanceOf(NotFoundError);
  });
});
