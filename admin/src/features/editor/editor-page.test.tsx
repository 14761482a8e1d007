// @vitest-environment jsdom
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyEditor, bodyText, typeInBody } from '../../test/codemirror';
import { fakeApi, json, problem, renderApp, sessionOver } from '../../test/fake-api';
import { LOAD, post, writes } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const opened = (patch: ReturnType<typeof writes>['handler'], body?: string) =>
  fakeApi({
    'GET /posts/01A': () => json(200, post(body === undefined ? {} : { body }), { etag: '"3"' }),
    'PATCH /posts/01A': patch,
    'GET /tags': () => json(200, { items: [{ name: 'intro', count: 2 }] }),
  });

async function openEditor(patch: ReturnType<typeof writes>['handler'], body?: string) {
  const api = opened(patch, body);
  renderApp('/posts/01A', sessionOver(api.fetch, 'access-1'));
  const title = await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD);
  return { api, title };
}

describe('the editor of a post', () => {
  it('200: a save sends only the changed field with If-Match of the ETag the post came with, and says the new version', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, version: 4 }), { etag: '"4"' }));
    const { title } = await openEditor(patch.handler);
    expect(title.value).toBe('Hello');
    expect(bodyText()).toBe('Line one.\nLine two.\n');
    expect(screen.getByText('4 words')).toBeTruthy();
    const user = userEvent.setup();
    await user.clear(title);
    await user.type(title, 'Hello again');
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    expect(patch.seen).toEqual([{ ifMatch: '"3"', key: null, body: { title: 'Hello again' } }]);
  });

  it('Ctrl+S saves as the button does; the word count follows the body', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, version: 4 }), { etag: '"4"' }));
    await openEditor(patch.handler);
    typeInBody('And a third line');
    expect(await screen.findByText('8 words')).toBeTruthy();
    fireEvent.keyDown(bodyEditor().contentDOM, { key: 's', ctrlKey: true });
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    expect(patch.seen.map((w) => w.body)).toEqual([{ body: 'Line one.\nLine two.\nAnd a third line' }]);
  });

  it('while a save is under way the Save button keeps the focus: marked aria-disabled, never disabled (which drops the focus to the page); a second press sends nothing', async () => {
    let answer: () => void = () => undefined;
    let calls = 0;
    const held = () => {
      calls += 1;
      return new Promise<Response>((resolve) => {
        answer = () => resolve(json(200, post({ title: 'Hello again', version: 4 }), { etag: '"4"' }));
      });
    };
    const { title } = await openEditor(held);
    const user = userEvent.setup();
    await user.type(title, ' again');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const saving = await screen.findByRole('button', { name: 'Saving…' });
    expect([saving.hasAttribute('disabled'), saving.getAttribute('aria-disabled'), document.activeElement]).toEqual([
      false,
      'true',
      saving,
    ]);
    await user.click(saving);
    answer();
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    expect(calls).toBe(1);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Save' }));
  });

  it('counts words by the server’s rule: a link or image counts its text, not its URL; code blocks count nothing', async () => {
    const body = [
      'See [the docs](https://example.com/docs/getting-started) now.',
      '',
      '![a red fox](http://localhost:8080/api/v1/content/media/abcdefghijklmnopqrstuvwxyz/original.png)',
      '',
      '```sh',
      'npm run build --workspace=admin',
      '```',
    ].join('\n');
    await openEditor(writes(() => json(200, post())).handler, body);
    expect(screen.getByText('7 words')).toBeTruthy();
  });

  it("422: the pointer's message sits beside the field it names as a sentence (/body/title → “Title must not be empty.”), and the problem's detail above the form", async () => {
    const patch = writes(() =>
      problem(422, 'validation-failed', 'Validation failed', 'The post has 1 invalid field.', {
        errors: [{ pointer: '/body/title', message: 'must not be empty' }],
      }),
    );
    const { title } = await openEditor(patch.handler);
    const user = userEvent.setup();
    await user.clear(title);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Title must not be empty.')).toBeTruthy();
    expect(title.getAttribute('aria-invalid')).toBe('true');
    const described = (title.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent);
    expect(described).toContain('Title must not be empty.');
    expect(within(screen.getByRole('alert')).getByText('The post has 1 invalid field.')).toBeTruthy();
    expect(screen.getByLabelText('Slug').getAttribute('aria-invalid')).toBeNull();
  });

  it('422 with two errors of one field and one of a tag: one sentence per field, each naming it as the form does', async () => {
    const patch = writes(() =>
      problem(422, 'validation-failed', 'Validation failed', 'The request has 2 invalid fields.', {
        errors: [
          { pointer: '/body/slug', message: 'must be at most 100 characters long' },
          { pointer: '/body/slug', message: 'may contain only lowercase letters, digits and single hyphens between them' },
          { pointer: '/body/tags/1', message: 'must be at most 40 characters long' },
        ],
      }),
    );
    const { title } = await openEditor(patch.handler);
    await userEvent.setup().type(title, '!');
    fireEvent.keyDown(title, { key: 's', ctrlKey: true });
    expect(
      await screen.findByText(
        'Slug must be at most 100 characters long and may contain only lowercase letters, digits and single hyphens between them.',
      ),
    ).toBeTruthy();
    expect(screen.getByText('Tag 2 must be at most 40 characters long.')).toBeTruthy();
    expect(within(screen.getByRole('alert')).getByText('The request has 2 invalid fields.')).toBeTruthy();
  });

  it('412: the conflict banner shows the fields that differ (title; the body line by line); "Apply mine on top" resends my change with the new ETag', async () => {
    const theirs = post({ title: 'Their title', body: 'Line one.\nTheir line two.\n', version: 5 });
    const patch = writes((n, body) =>
      n === 1
        ? problem(
            412,
            'precondition-failed',
            'Precondition failed',
            'The post has changed since version 3.',
            { current: theirs },
            { etag: '"5"' },
          )
        : json(200, { ...theirs, ...body, version: 6 }, { etag: '"6"' }),
    );
    const { title } = await openEditor(patch.handler);
    const user = userEvent.setup();
    await user.clear(title);
    await user.type(title, 'My title');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const banner = await screen.findByRole('alert', { name: 'Someone else saved this post meanwhile' });
    expect(within(banner).getByText(/version 5/)).toBeTruthy();
    const terms = within(banner)
      .getAllByRole('term')
      .map((dt) => dt.textContent);
    expect(terms).toEqual(['Title', 'Body']);
    expect(within(banner).getByText('Their title')).toBeTruthy();
    expect(within(banner).getByText('My title')).toBeTruthy();
    const body = within(banner).getByRole('list', { name: 'Body, line by line' });
    expect(body.querySelector('del')?.textContent).toBe('Only in theirs: Their line two.');
    expect(body.querySelector('ins')?.textContent).toBe('Only in yours: Line two.');
    expect(screen.getAllByRole('alert')).toEqual([banner]);

    await user.click(within(banner).getByRole('button', { name: 'Apply mine on top' }));
    expect(await screen.findByText('Saved: version 6.', undefined, LOAD)).toBeTruthy();
    expect(screen.queryByRole('alert', { name: 'Someone else saved this post meanwhile' })).toBeNull();
    expect(patch.seen).toEqual([
      { ifMatch: '"3"', key: null, body: { title: 'My title' } },
      { ifMatch: '"5"', key: null, body: { title: 'My title' } },
    ]);
    // Their body, which I had not touched, stays.
    expect(bodyText()).toBe('Line one.\nTheir line two.\n');
    expect(title.value).toBe('My title');
  });

  it('412 then "Keep theirs": the form holds their version and the next save is measured from it', async () => {
    const theirs = post({ title: 'Their title', version: 5 });
    const patch = writes((n, body) =>
      n === 1
        ? problem(412, 'precondition-failed', 'Precondition failed', 'The post has changed.', { current: theirs }, { etag: '"5"' })
        : json(200, { ...theirs, ...body, version: 6 }, { etag: '"6"' }),
    );
    const { title } = await openEditor(patch.handler);
    const user = userEvent.setup();
    await user.type(title, '!');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await user.click(await screen.findByRole('button', { name: 'Keep theirs' }));
    expect(title.value).toBe('Their title');
    expect(screen.getByText('Loaded their version 5.')).toBeTruthy();
    await user.type(screen.getByLabelText('Excerpt'), ' More.');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 6.')).toBeTruthy();
    expect(patch.seen[1]).toEqual({ ifMatch: '"5"', key: null, body: { excerpt: 'A first post. More.' } });
  });
});

describe('the body in CodeMirror', () => {
  it('a body replaced from outside ("Keep theirs") is not an edit of the author: the status says their version and nothing is unsaved', async () => {
    const theirs = post({ title: 'Their title', body: 'Their body.\n', version: 5 });
    const patch = writes(() =>
      problem(412, 'precondition-failed', 'Precondition failed', 'The post has changed.', { current: theirs }, { etag: '"5"' }),
    );
    const { title } = await openEditor(patch.handler);
    const user = userEvent.setup();
    await user.type(title, '!');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await user.click(await screen.findByRole('button', { name: 'Keep theirs' }));
    expect(bodyText()).toBe('Their body.\n');
    expect(screen.getByText('Loaded their version 5.')).toBeTruthy();
    expect(screen.queryByText('Unsaved changes.')).toBeNull();
  });
});

describe('leaving the editor', () => {
  /** Post 01A in the editor, whose save answers version 4, over an API that also lists the posts (where leaving goes). */
  async function openWithTheList() {
    const patch = writes((_n, body) => json(200, post({ ...body, version: 4 }), { etag: '"4"' }));
    const api = fakeApi({
      'GET /posts/01A': () => json(200, post(), { etag: '"3"' }),
      'PATCH /posts/01A': patch.handler,
      'GET /tags': () => json(200, { items: [] }),
      'GET /posts': () => json(200, { items: [], nextCursor: null, total: 0, totalExact: true }),
    });
    renderApp('/posts/01A', sessionOver(api.fetch, 'access-1'));
    const title = await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD);
    return { patch, title };
  }

  it('with unsaved changes asks first (focus on staying): "Stay and keep editing" keeps the edit, "Leave without saving" goes and drops the local copy', async () => {
    const { patch, title } = await openWithTheList();
    const user = userEvent.setup();
    await user.type(title, ' there');

    await user.click(screen.getByRole('link', { name: 'Back to the posts' }));
    const guard = await screen.findByRole('alertdialog', { name: 'Leave without saving?' });
    expect(document.activeElement).toBe(within(guard).getByRole('button', { name: 'Stay and keep editing' }));
    await user.click(within(guard).getByRole('button', { name: 'Stay and keep editing' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('Hello there');

    await user.click(screen.getByRole('link', { name: 'Back to the posts' }));
    await user.click(await screen.findByRole('button', { name: 'Leave without saving' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Posts' })).toBeTruthy();
    expect(patch.seen).toEqual([]);
    // Leaving without saving is a choice: the local copy goes with it.
    expect(localStorage.getItem('margincms:unsaved:01A')).toBeNull();
  });

  it('after a save, leaving asks nothing', async () => {
    const { title } = await openWithTheList();
    const user = userEvent.setup();
    await user.type(title, ' there');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved: version 4.');
    await user.click(screen.getByRole('link', { name: 'Back to the posts' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Posts' })).toBeTruthy();
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});

describe('the local copy of unsaved work', () => {
  const kept = () =>
    JSON.parse(localStorage.getItem('margincms:unsaved:01A') ?? 'null') as { fields: { title: string }; baseVersion: number } | null;

  it('is kept in localStorage while the form has changes; a later visit (a closed tab) offers it, "Restore it" puts it back, and the save removes it', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, version: 4 }), { etag: '"4"' }));
    const first = await openEditor(patch.handler);
    const user = userEvent.setup();
    await user.type(first.title, ' world');
    expect(kept()).toMatchObject({ fields: { title: 'Hello world', body: 'Line one.\nLine two.\n' }, baseVersion: 3 });
    cleanup();

    const { title } = await openEditor(patch.handler);
    expect(title.value).toBe('Hello');
    const notice = screen.getByRole('region', { name: /^Unsaved work from / });
    await user.click(within(notice).getByRole('button', { name: 'Restore it' }));
    expect(title.value).toBe('Hello world');
    expect(screen.queryByRole('region', { name: /^Unsaved work from / })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved: version 4.');
    expect(patch.seen.map((w) => w.body)).toEqual([{ title: 'Hello world' }]);
    expect(kept()).toBeNull();
  });

  it('"Discard it" removes the copy and leaves the post as the server has it; a copy equal to the post is not offered', async () => {
    localStorage.setItem(
      'margincms:unsaved:01A',
      JSON.stringify({ fields: { ...post(), title: 'Lost title', tags: ['intro'] }, baseVersion: 2, keptAt: '2026-01-02T09:00:00.000Z' }),
    );
    const patch = writes(() => json(500, {}));
    await openEditor(patch.handler);
    const notice = screen.getByRole('region', { name: /^Unsaved work from / });
    expect(within(notice).getByText(/made on version 2; the post is now at version 3/)).toBeTruthy();
    await userEvent.setup().click(within(notice).getByRole('button', { name: 'Discard it' }));
    expect(kept()).toBeNull();
    expect(screen.getByLabelText<HTMLInputElement>('Title').value).toBe('Hello');
    cleanup();

    const { title, body, excerpt, tags, status, slug } = post();
    localStorage.setItem(
      'margincms:unsaved:01A',
      JSON.stringify({ fields: { title, body, excerpt, tags, status, slug }, baseVersion: 3, keptAt: '' }),
    );
    await openEditor(patch.handler);
    expect(screen.queryByRole('region', { name: /^Unsaved work from / })).toBeNull();
  });
});

describe('a new post', () => {
  it("409: the slug suggested from the title is taken; the server's suggestedSlug is offered, and the create with it opens the post", async () => {
    const create = writes((n, body) =>
      n === 1
        ? problem(409, 'slug-taken', 'Slug taken', 'Another post has the slug "hello-world".', { suggestedSlug: 'hello-world-2' })
        : json(201, post({ ...body, id: '01N', version: 1 }), { etag: '"1"', location: '/api/v1/posts/01N' }),
    );
    const api = fakeApi({
      'POST /posts': create.handler,
      'GET /posts/01N': () => json(200, post({ id: '01N', title: 'Hello World', slug: 'hello-world-2', version: 1 }), { etag: '"1"' }),
      'GET /tags': () => json(200, { items: [] }),
    });
    renderApp('/posts/new', sessionOver(api.fetch, 'access-1'));
    const title = await screen.findByLabelText<HTMLInputElement>('Title', undefined, LOAD);
    expect(screen.getByRole('heading', { level: 1, name: 'New post' })).toBeTruthy();
    const user = userEvent.setup();
    await user.type(title, 'Hello World');
    expect(screen.getByLabelText<HTMLInputElement>('Slug').value).toBe('hello-world');
    await user.type(screen.getByLabelText('Tags'), 'News, Notes{Enter}');
    expect(
      within(screen.getByRole('list', { name: 'Tags of the post' }))
        .getAllByRole('listitem')
        .map((chip) => chip.firstChild?.textContent),
    ).toEqual(['news', 'notes']);
    await user.click(screen.getByRole('button', { name: 'Save' }));

    await user.click(await screen.findByRole('button', { name: 'Use “hello-world-2”' }));
    expect(screen.getByLabelText<HTMLInputElement>('Slug').value).toBe('hello-world-2');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Edit post' })).toBeTruthy();

    expect(create.seen.map((w) => w.body)).toEqual([
      { title: 'Hello World', slug: 'hello-world', excerpt: '', body: '', tags: ['news', 'notes'], status: 'draft' },
      { title: 'Hello World', slug: 'hello-world-2', excerpt: '', body: '', tags: ['news', 'notes'], status: 'draft' },
    ]);
    const [first, second] = create.seen.map((w) => w.key);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).not.toBe(first);
  });
});
