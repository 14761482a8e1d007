// @vitest-environment jsdom
import { File as NodeFile } from 'node:buffer';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, json, problem, renderApp, sessionOver } from '../../test/fake-api';

/** The media route is loaded on demand: its first render waits for the chunk. */
const LOAD = { timeout: 5000 };
const FILES = 'http://api.test/api/v1/content/media';

afterEach(cleanup);

/** A media as the API answers it; a 320-pixel WebP variant when wider than 320. */
function media(id: string, overrides: Record<string, unknown> = {}) {
  const width = (overrides.width as number | undefined) ?? 1200;
  return {
    id,
    url: `${FILES}/${id}/original.png`,
    contentType: 'image/png',
    width,
    height: 800,
    bytes: 48_000,
    sha256: 'a'.repeat(64),
    alt: '',
    caption: '',
    createdAt: '2026-12-01T10:00:00.000Z',
    variants:
      width > 320
        ? [
            { width: 320, height: 213, contentType: 'image/png', url: `${FILES}/${id}/320.png`, bytes: 9000 },
            { width: 320, height: 213, contentType: 'image/webp', url: `${FILES}/${id}/320.webp`, bytes: 6000 },
          ]
        : [],
    ...overrides,
  };
}

const ID_A = 'aaaaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'bbbbbbbbbbbbbbbbbbbbbbbbbb';
const ID_C = 'cccccccccccccccccccccccccc';

const pngFile = (name = 'sunset.png', type = 'image/png') =>
  new NodeFile([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])], name, { type }) as unknown as File;

async function openLibrary(routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi({
    'GET /media': (_request, url) =>
      url.searchParams.get('cursor') === 'next'
        ? json(200, { items: [media(ID_C, { width: 300, alt: 'A small one' })], nextCursor: null })
        : json(200, { items: [media(ID_A, { alt: 'A red sunset' }), media(ID_B)], nextCursor: 'next' }),
    ...routes,
  });
  renderApp('/media', sessionOver(api.fetch, 'access-1'));
  await screen.findByRole('heading', { level: 1, name: 'Media' }, LOAD);
  return api;
}

const card = (name: string) => screen.getByRole('listitem', { name });

describe('the media library', () => {
  it('shows each image as a lazy thumbnail with its width and height (the 320 WebP variant, else the original); Load more asks the next cursor', async () => {
    const api = await openLibrary();
    const sunset = await screen.findByRole('img', { name: 'A red sunset' });
    expect(sunset.getAttribute('src')).toBe(`${FILES}/${ID_A}/320.webp`);
    expect([sunset.getAttribute('width'), sunset.getAttribute('height'), sunset.getAttribute('loading')]).toEqual(['320', '213', 'lazy']);
    expect(within(card('A red sunset')).getByText('1200 × 800 · PNG · 47 KB')).toBeTruthy();

    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    const small = await screen.findByRole('img', { name: 'A small one' });
    expect(small.getAttribute('src')).toBe(`${FILES}/${ID_C}/original.png`);
    expect([small.getAttribute('width'), small.getAttribute('height')]).toEqual(['300', '800']);
    expect(api.calls('GET', '/media').map((call) => call.url.searchParams.get('cursor'))).toEqual([null, 'next']);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('uploads a chosen file as its raw bytes with its own type (201) and shows it in the library', async () => {
    const sent: { type: string | null; bytes: number }[] = [];
    let uploaded = false;
    const api = await openLibrary({
      'POST /media': async (request) => {
        sent.push({ type: request.headers.get('content-type'), bytes: (await request.arrayBuffer()).byteLength });
        uploaded = true;
        return json(201, media(ID_C, { alt: '' }));
      },
      'GET /media': () =>
        json(200, { items: uploaded ? [media(ID_C, { caption: 'Fresh' }), media(ID_A)] : [media(ID_A)], nextCursor: null }),
    });
    await userEvent.setup().upload(await screen.findByLabelText('Choose images'), pngFile());
    expect(await screen.findByText('Uploaded sunset.png.')).toBeTruthy();
    expect(sent).toEqual([{ type: 'image/png', bytes: 7 }]);
    expect(await screen.findByRole('listitem', { name: `Image ${ID_C}` })).toBeTruthy();
    expect(api.calls('GET', '/media')).toHaveLength(2);
  });

  it('415: a refused upload says in words which file and why, with the problem’s detail', async () => {
    await openLibrary({
      'POST /media': () =>
        problem(415, 'unsupported-media-type', 'Unsupported Media Type', 'The bytes are not a JPEG, PNG, WebP, AVIF or GIF image.'),
    });
    // The input's accept leaves SVG out, but a file dialog may still let one through.
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(await screen.findByLabelText('Choose images'), pngFile('drawing.svg', 'image/svg+xml'));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Could not upload drawing.svg')).toBeTruthy();
    expect(
      within(alert).getByText(
        'drawing.svg is not an image the library takes (JPEG, PNG, WebP, AVIF or GIF). The bytes are not a JPEG, PNG, WebP, AVIF or GIF image.',
      ),
    ).toBeTruthy();
  });

  it('422 too-many-pixels and 413 say so in words', async () => {
    let n = 0;
    await openLibrary({
      'POST /media': () =>
        ++n === 1
          ? problem(422, 'media-refused', 'Media refused', 'The image has 100000000 pixels; at most 50000000.', {
              reason: 'too-many-pixels',
            })
          : problem(413, 'payload-too-large', 'Payload Too Large', 'The body is over 20971520 bytes.'),
    });
    await userEvent.setup().upload(await screen.findByLabelText('Choose images'), [pngFile('bomb.png'), pngFile('huge.png')]);
    expect(await screen.findByText(/^bomb\.png has too many pixels to be stored\. The image has/)).toBeTruthy();
    expect(await screen.findByText('huge.png is too large to upload. The body is over 20971520 bytes.')).toBeTruthy();
  });

  it('saves an image’s alt text and caption with PATCH (200)', async () => {
    const patches: unknown[] = [];
    await openLibrary({
      [`PATCH /media/${ID_B}`]: async (request) => {
        const body = (await request.json()) as Record<string, string>;
        patches.push(body);
        return json(200, media(ID_B, body));
      },
    });
    const item = await screen.findByRole('listitem', { name: `Image ${ID_B}` });
    const user = userEvent.setup();
    await user.type(within(item).getByLabelText('Alt text'), 'A quiet harbour');
    await user.type(within(item).getByLabelText('Caption'), 'Morning');
    await user.click(within(item).getByRole('button', { name: 'Save texts' }));
    expect(await within(item).findByText('Saved.')).toBeTruthy();
    expect(patches).toEqual([{ alt: 'A quiet harbour', caption: 'Morning' }]);
  });

  it('409: a delete names the posts that show the image, linked; "Delete anyway" asks once more, then sends force=true (204)', async () => {
    const deletes: (string | null)[] = [];
    let deleted = false;
    const api = await openLibrary({
      [`DELETE /media/${ID_A}`]: (_request, url) => {
        deletes.push(url.searchParams.get('force'));
        if (url.searchParams.get('force') !== 'true')
          return problem(409, 'media-in-use', 'Media in use', 'The media is shown by 2 posts.', {
            posts: [
              { id: '01P', title: 'First light', slug: 'first-light' },
              { id: '02P', title: 'Harbour days', slug: 'harbour-days' },
            ],
          });
        deleted = true;
        return new Response(null, { status: 204 });
      },
      'GET /media': () =>
        json(200, { items: deleted ? [media(ID_B)] : [media(ID_A, { alt: 'A red sunset' }), media(ID_B)], nextCursor: null }),
    });
    const user = userEvent.setup();
    const item = await screen.findByRole('listitem', { name: 'A red sunset' });
    await user.click(within(item).getByRole('button', { name: 'Delete' }));
    const alert = await within(item).findByRole('alert');
    expect(within(alert).getByText('2 posts show this image')).toBeTruthy();
    expect(within(alert).getByRole('link', { name: 'First light' }).getAttribute('href')).toBe('/posts/01P');
    expect(within(alert).getByRole('link', { name: 'Harbour days' }).getAttribute('href')).toBe('/posts/02P');

    await user.click(within(alert).getByRole('button', { name: 'Delete anyway' }));
    expect(deletes).toEqual([null]);
    await user.click(within(alert).getByRole('button', { name: 'Yes, delete it' }));
    expect(await screen.findByText('Deleted A red sunset.')).toBeTruthy();
    expect(deletes).toEqual([null, 'true']);
    await waitFor(() => expect(screen.queryByRole('listitem', { name: 'A red sunset' })).toBeNull());
    expect(api.calls('GET', '/media').length).toBeGreaterThanOrEqual(2);
  });

  it('is in the main navigation', async () => {
    await openLibrary();
    expect(
      within(screen.getByRole('navigation', { name: 'Main' }))
        .getByRole('link', { name: 'Media' })
        .getAttribute('aria-current'),
    ).toBe('page');
  });
});
