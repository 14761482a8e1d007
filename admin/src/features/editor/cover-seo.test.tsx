// @vitest-environment jsdom
import { File as NodeFile } from 'node:buffer';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyEditor, bodyText } from '../../test/codemirror';
import { fakeApi, json, problem, renderApp, sessionOver } from '../../test/fake-api';
import { LOAD, openEditor, post, writes } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const FILES = 'http://api.test/api/v1/content/media';
const SUNSET = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
const HARBOUR = 'bbbbbbbbbbbbbbbbbbbbbbbbbb';

function media(id: string, alt: string) {
  return {
    id,
    url: `${FILES}/${id}/original.jpg`,
    contentType: 'image/jpeg',
    width: 1600,
    height: 1000,
    bytes: 200_000,
    sha256: 'b'.repeat(64),
    alt,
    caption: '',
    createdAt: '2026-12-01T10:00:00.000Z',
    variants: [
      { width: 320, height: 200, contentType: 'image/webp', url: `${FILES}/${id}/320.webp`, bytes: 8000 },
      { width: 320, height: 200, contentType: 'image/jpeg', url: `${FILES}/${id}/320.jpg`, bytes: 9000 },
    ],
  };
}

const library = () => json(200, { items: [media(SUNSET, 'A red sunset'), media(HARBOUR, '')], nextCursor: null });
const saved = (body: Record<string, unknown>) => json(200, post({ ...body, version: 4 }), { etag: '"4"' });

describe('the cover image of a post', () => {
  it('200: a cover chosen from the library shows its 320 thumbnail, is an unsaved change, and saves as { mediaId, alt } with If-Match', async () => {
    const patch = writes((_n, body) => saved(body));
    await openEditor({}, { 'PATCH /posts/01A': patch.handler, 'GET /media': library });
    const user = userEvent.setup();
    const cover = screen.getByRole('group', { name: 'Cover image' });
    expect(within(cover).getByText('No cover image.')).toBeTruthy();
    await user.click(within(cover).getByRole('button', { name: 'Choose a cover' }));
    await user.click(await within(cover).findByRole('button', { name: 'Use A red sunset' }));

    const thumb = within(cover).getByRole('img', { name: 'A red sunset' });
    expect([thumb.getAttribute('src'), thumb.getAttribute('width'), thumb.getAttribute('height')]).toEqual([
      `${FILES}/${SUNSET}/320.webp`,
      '320',
      '200',
    ]);
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();
    const alt = within(cover).getByLabelText('Alt text of the cover');
    await user.clear(alt);
    await user.type(alt, 'The sun going down over the bay');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    expect(patch.seen).toEqual([
      { ifMatch: '"3"', key: null, body: { coverImage: { mediaId: SUNSET, alt: 'The sun going down over the bay' } } },
    ]);
  });

  it('200: a post’s cover is shown from its media; "Remove the cover" saves coverImage: null', async () => {
    const patch = writes((_n, body) => saved(body));
    await openEditor(
      { coverImage: { mediaId: HARBOUR, alt: 'The harbour' } },
      { 'PATCH /posts/01A': patch.handler, [`GET /media/${HARBOUR}`]: () => json(200, media(HARBOUR, '')) },
    );
    const cover = screen.getByRole('group', { name: 'Cover image' });
    expect((await within(cover).findByRole('img', { name: 'The harbour' })).getAttribute('src')).toBe(`${FILES}/${HARBOUR}/320.webp`);
    const user = userEvent.setup();
    await user.click(within(cover).getByRole('button', { name: 'Remove the cover' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    expect(patch.bodies()).toEqual([{ coverImage: null }]);
  });

  it('422: an unknown media is said beside the cover (/body/coverImage/mediaId)', async () => {
    const patch = writes(() =>
      problem(422, 'validation-failed', 'Validation failed', 'The post has 1 invalid field.', {
        errors: [{ pointer: '/body/coverImage/mediaId', message: 'names no media' }],
      }),
    );
    await openEditor({}, { 'PATCH /posts/01A': patch.handler, 'GET /media': library });
    const user = userEvent.setup();
    const cover = screen.getByRole('group', { name: 'Cover image' });
    await user.click(within(cover).getByRole('button', { name: 'Choose a cover' }));
    await user.click(
      await within(cover).findByRole('button', { name: `Use image uploaded ${new Date('2026-12-01T10:00:00.000Z').toLocaleString()}` }),
    );
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await within(cover).findByText('The cover image names no media.')).toBeTruthy();
    expect(patch.bodies()).toEqual([{ coverImage: { mediaId: HARBOUR, alt: '' } }]);
  });
});

describe('the SEO fields of a post', () => {
  it('200: counts characters against 200 and 500 and saves the three fields, an empty one as null', async () => {
    const patch = writes((_n, body) => saved(body));
    await openEditor({}, { 'PATCH /posts/01A': patch.handler });
    const user = userEvent.setup();
    const seo = screen.getByRole('group', { name: 'Search and sharing (SEO)' });
    expect(within(seo).getByText('0 / 200 characters. Empty: the post’s title.')).toBeTruthy();
    await user.type(within(seo).getByLabelText('SEO headline'), 'Hello, world');
    expect(within(seo).getByText('12 / 200 characters. Empty: the post’s title.')).toBeTruthy();
    await user.click(within(seo).getByLabelText('SEO description'));
    await user.paste('x'.repeat(501));
    expect(within(seo).getByText('501 / 500 characters: 1 too many. Empty: the post’s excerpt.')).toBeTruthy();
    expect(within(seo).getByLabelText('SEO description').getAttribute('aria-invalid')).toBe('true');
    await user.clear(within(seo).getByLabelText('SEO description'));
    await user.type(within(seo).getByLabelText('Canonical URL'), 'https://old.example.org/hello');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    expect(patch.bodies()).toEqual([{ seo: { title: 'Hello, world', description: null, canonicalUrl: 'https://old.example.org/hello' } }]);
  });

  it('422: the pointer /body/seo/canonicalUrl puts its message beside the canonical URL', async () => {
    const patch = writes(() =>
      problem(422, 'validation-failed', 'Validation failed', 'The post has 1 invalid field.', {
        errors: [{ pointer: '/body/seo/canonicalUrl', message: 'must start with http:// or https://' }],
      }),
    );
    await openEditor({}, { 'PATCH /posts/01A': patch.handler });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Canonical URL'), 'ftp://nope');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Canonical URL must start with http:// or https://.')).toBeTruthy();
    expect(screen.getByLabelText('Canonical URL').getAttribute('aria-invalid')).toBe('true');
  });

  it('a change of the SEO headline alone is an unsaved change: leaving asks first, and the browser keeps a copy with it', async () => {
    await openEditor({}, { 'GET /posts': () => json(200, { items: [], nextCursor: null }) });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('SEO headline'), 'Better');
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();
    expect(JSON.parse(localStorage.getItem('margincms:unsaved:01A')!)).toMatchObject({ fields: { seo: { title: 'Better' } } });
    await user.click(screen.getByRole('link', { name: 'Back to the posts' }));
    expect(await screen.findByRole('alertdialog', { name: 'Leave without saving?' })).toBeTruthy();
  });

  it('201: a new post sends its cover and SEO fields with the create', async () => {
    const create = writes((_n, body) => json(201, post({ ...body, id: '01N', version: 1 }), { etag: '"1"' }));
    const api = fakeApi({
      'POST /posts': create.handler,
      'GET /posts/01N': () => json(200, post({ id: '01N', version: 1 }), { etag: '"1"' }),
      'GET /tags': () => json(200, { items: [] }),
      'POST /preview': () => json(200, { html: '' }),
      'GET /media': library,
    });
    renderApp('/posts/new', sessionOver(api.fetch, 'access-1'));
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Title', undefined, LOAD), 'Covered');
    await user.click(screen.getByRole('button', { name: 'Choose a cover' }));
    await user.click(await screen.findByRole('button', { name: 'Use A red sunset' }));
    await user.type(screen.getByLabelText('SEO description'), 'A post with a cover.');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(create.bodies()).toHaveLength(1));
    expect(create.bodies()[0]).toMatchObject({
      title: 'Covered',
      coverImage: { mediaId: SUNSET, alt: 'A red sunset' },
      seo: { title: null, description: 'A post with a cover.', canonicalUrl: null },
    });
  });
});

/** Pastes `files` into the body at the cursor, as a browser hands them to the editor. */
function pasteInBody(files: File[]): void {
  const event = new Event('paste', { bubbles: true, cancelable: true });
  Object.defineProperty(event, 'clipboardData', { value: { files, types: ['Files'], getData: () => '' } });
  bodyEditor().contentDOM.dispatchEvent(event);
}

const image = (name: string, type = 'image/png') =>
  new NodeFile([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type }) as unknown as File;

describe('an image pasted into the body', () => {
  it('201: is uploaded with its type, marked while it uploads, then inserted at the cursor as ![file name](url) on a line of its own, blank lines around it', async () => {
    let answer: (response: Response) => void = () => undefined;
    const types: (string | null)[] = [];
    await openEditor(
      {},
      {
        'POST /media': (request) => {
          types.push(request.headers.get('content-type'));
          return new Promise<Response>((resolve) => {
            answer = resolve;
          });
        },
      },
    );
    bodyEditor().dispatch({ selection: { anchor: 'Line one.\n'.length } });
    pasteInBody([image('harbour view.png')]);
    expect(await screen.findByText('Uploading harbour view.png…', { selector: '.cm-upload-pending' })).toBeTruthy();
    expect(bodyText()).toBe('Line one.\nLine two.\n');

    answer(json(201, media(HARBOUR, '')));
    await waitFor(() => expect(bodyText()).toBe(`Line one.\n\n![harbour view](${FILES}/${HARBOUR}/original.jpg)\n\nLine two.\n`));
    expect(types).toEqual(['image/png']);
    expect(screen.queryByText('Uploading harbour view.png…', { selector: '.cm-upload-pending' })).toBeNull();
    expect(screen.getByText('Inserted harbour view.png.')).toBeTruthy();
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();
  });

  it('200: an image the library holds already is inserted with its alt text', async () => {
    await openEditor({}, { 'POST /media': () => json(200, media(SUNSET, 'A red [evening] sunset')) });
    bodyEditor().dispatch({ selection: { anchor: 0 } });
    pasteInBody([image('IMG_0001.png')]);
    await waitFor(() =>
      expect(bodyText()).toBe(`![A red \\[evening\\] sunset](${FILES}/${SUNSET}/original.jpg)\n\nLine one.\nLine two.\n`),
    );
  });

  it('never runs into the text around it: a heading after it stays a heading, a line split in two becomes two paragraphs, a blank line already there is kept', async () => {
    await openEditor(
      { body: 'Intro\n## Why another CMS\n\nA sentence cut here.' },
      { 'POST /media': () => json(201, media(HARBOUR, 'Harbour')) },
    );
    const markdown = `![Harbour](${FILES}/${HARBOUR}/original.jpg)`;
    bodyEditor().dispatch({ selection: { anchor: 'Intro\n'.length } });
    pasteInBody([image('a.png')]);
    await waitFor(() => expect(bodyText()).toBe(`Intro\n\n${markdown}\n\n## Why another CMS\n\nA sentence cut here.`));
    bodyEditor().dispatch({ selection: { anchor: bodyText().indexOf(' here.') } });
    pasteInBody([image('b.png')]);
    await waitFor(() => expect(bodyText()).toBe(`Intro\n\n${markdown}\n\n## Why another CMS\n\nA sentence cut\n\n${markdown}\n\n here.`));
    bodyEditor().dispatch({ selection: { anchor: bodyText().indexOf('\n\nA sentence') } });
    pasteInBody([image('c.png')]);
    await waitFor(() => expect(bodyText()).toMatch(/## Why another CMS\n\n!\[Harbour\]\([^)]+\)\n\nA sentence cut/));
  });

  it('415: a refused image inserts nothing and says in words why', async () => {
    await openEditor(
      {},
      { 'POST /media': () => problem(415, 'unsupported-media-type', 'Unsupported Media Type', 'The bytes are not an accepted image.') },
    );
    pasteInBody([image('logo.svg', 'image/svg+xml')]);
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Could not upload logo.svg')).toBeTruthy();
    expect(
      within(alert).getByText(
        'logo.svg is not an image the library takes (JPEG, PNG, WebP, AVIF or GIF). The bytes are not an accepted image.',
      ),
    ).toBeTruthy();
    expect(bodyText()).toBe('Line one.\nLine two.\n');
    expect(screen.queryByText('Unsaved changes.')).toBeNull();
  });
});
