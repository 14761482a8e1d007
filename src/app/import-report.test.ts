import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../adapters/memory/store.js';
import { FixedClock, SequentialIds } from '../domain/index.js';
import { summaryOf } from './import-report.js';
import { createPostUseCases } from './post-use-cases.js';
import type { ImportFile, ImportedPost } from './site-import.js';

const draft = { status: 'draft', publishAt: null } as const;
const published = { status: 'published', publishAt: null } as const;
const archived = { status: 'archived', publishAt: null } as const;

describe('summaryOf', () => {
  it('says what status a created post gets, a scheduled draft with its time', () => {
    expect(summaryOf({ post: 'create', as: draft }, 'dry-run')).toBe('Will be created as a draft.');
    expect(summaryOf({ post: 'create', as: archived }, 'dry-run')).toBe('Will be created as an archived post.');
    expect(summaryOf({ post: 'create', as: published }, 'apply')).toBe('Created as a published post.');
    const scheduled = { status: 'draft', publishAt: new Date('2026-06-01T09:00:00.000Z') } as const;
    expect(summaryOf({ post: 'create', as: scheduled }, 'dry-run')).toBe(
      'Will be created as a draft scheduled for 2026-06-01T09:00:00.000Z.',
    );
  });

  it('says what status an updated post goes to from the one it has, and what else changes, in words', () => {
    expect(summaryOf({ post: 'update', from: published, as: draft, changed: ['status'] }, 'dry-run')).toBe(
      'Will become a draft (now published).',
    );
    expect(summaryOf({ post: 'update', from: draft, as: archived, changed: ['status', 'body'] }, 'dry-run')).toBe(
      'Will become an archived post (now a draft); its body changes.',
    );
    expect(summaryOf({ post: 'update', from: published, as: published, changed: ['title', 'tags', 'coverImage'] }, 'dry-run')).toBe(
      'Will stay a published post; its title, tags and cover change.',
    );
    expect(summaryOf({ post: 'update', from: published, as: published, changed: ['seo'] }, 'dry-run')).toBe(
      'Will stay a published post; its SEO fields change.',
    );
    expect(summaryOf({ post: 'update', from: archived, as: published, changed: ['status', 'body'] }, 'apply')).toBe(
      'Became a published post (was archived); its body changed.',
    );
  });

  it('says an unchanged post keeps its status, and what becomes of an image or a skipped file', () => {
    expect(summaryOf({ post: 'unchanged', as: archived }, 'dry-run')).toBe('Will stay an archived post; nothing changes.');
    expect(summaryOf({ post: 'unchanged', as: draft }, 'apply')).toBe('Unchanged: still a draft.');
    expect(summaryOf({ image: 'create' }, 'dry-run')).toBe('Will be stored in the media library.');
    expect(summaryOf({ image: 'unchanged' }, 'apply')).toBe('Already in the media library.');
    expect(summaryOf({ skip: true }, 'dry-run')).toBe('Will not be imported.');
  });
});

function setup() {
  const store = createMemoryStore();
  const posts = createPostUseCases({
    store,
    clock: new FixedClock(new Date('2026-01-01T00:00:00.000Z')),
    ids: new SequentialIds(1),
    idempotency: { leaseMs: 30_000, ttlMs: 86_400_000 },
  });
  return { store, posts };
}

const imported = (slug: string, status: ImportedPost['status'], body = 'Body'): ImportedPost => ({
  id: null,
  title: slug,
  slug,
  excerpt: '',
  body,
  tags: [],
  status,
  createdAt: null,
  updatedAt: null,
  publishedAt: null,
  publishAt: null,
});

async function* filesOf(files: ImportFile[]) {
  yield* files;
}

describe('SiteImport: the summary of each item', () => {
  it('a dry run says in words what each post will become, and carries the note of a file read otherwise than its manifest lists', async () => {
    const { posts } = setup();
    const actor = { id: 'U1', name: 'Ada' };
    await posts.imports.run(filesOf([{ path: 'was-published.md', post: imported('was-published', 'published') }]), 'apply', actor);
    await posts.imports.run(filesOf([{ path: 'kept.md', post: imported('kept', 'archived') }]), 'apply', actor);
    const note = 'The file is not what the manifest lists (…): read by its own front matter.';
    const report = await posts.imports.run(
      filesOf([
        { path: 'was-published.md', post: imported('was-published', 'draft', 'Edited'), note },
        { path: 'kept.md', post: imported('kept', 'archived') },
        { path: 'new.md', post: imported('new', 'archived') },
        { path: 'bad.md', skip: { reason: 'invalid_post', detail: '/title: must NOT have fewer than 1 characters' } },
      ]),
      'dry-run',
      actor,
    );
    expect(report.items.map(({ path, action, summary, detail }) => ({ path, action, summary, detail }))).toEqual([
      { path: 'was-published.md', action: 'update', summary: 'Will become a draft (now published); its body changes.', detail: note },
      { path: 'kept.md', action: 'unchanged', summary: 'Will stay an archived post; nothing changes.', detail: null },
      { path: 'new.md', action: 'create', summary: 'Will be created as an archived post.', detail: null },
      { path: 'bad.md', action: 'skip', summary: 'Will not be imported.', detail: '/title: must NOT have fewer than 1 characters' },
    ]);
    const applied = await posts.imports.run(filesOf([{ path: 'new.md', post: imported('new', 'archived') }]), 'apply', actor);
    expect(applied.items[0]).toMatchObject({ action: 'create', summary: 'Created as an archived post.', detail: null });
  });
});
