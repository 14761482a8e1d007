// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { typeInBody } from '../../test/codemirror';
import { json, problem } from '../../test/fake-api';
import { AUTOSAVE_DELAY_MS } from './autosave';
import { openEditor, post, writes } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

/** Long enough for the delay and the save's answer on a busy machine. */
const AFTER_DELAY = { timeout: AUTOSAVE_DELAY_MS + 5000 };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BANNER = 'Someone else saved this post meanwhile';

describe('autosave in the editor', () => {
  it('a draft saves itself once typing stops: one PATCH with autosave=true and If-Match, "Saved." said', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, version: 4 }), { etag: '"4"' }));
    const api = await openEditor({}, { 'PATCH /posts/01A': patch.handler });
    typeInBody(' More');
    await pause(AUTOSAVE_DELAY_MS / 2);
    typeInBody(' words');
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();
    expect(await screen.findByText('Saved.', undefined, AFTER_DELAY)).toBeTruthy();
    expect(patch.seen).toEqual([{ ifMatch: '"3"', key: null, body: { body: 'Line one.\nLine two.\n More words' } }]);
    const patches = api.requests.filter((r) => r.method === 'PATCH');
    expect(patches.map((r) => r.url.search)).toEqual(['?autosave=true']);
  });

  it('a 412 on an autosave shows the conflict banner, and nothing more is sent by itself while it is there', async () => {
    const theirs = post({ body: 'Their body.\n', version: 5 });
    const patch = writes(() =>
      problem(412, 'precondition-failed', 'Precondition failed', 'The post has changed.', { current: theirs }, { etag: '"5"' }),
    );
    await openEditor({}, { 'PATCH /posts/01A': patch.handler });
    typeInBody(' Mine');
    expect(await screen.findByRole('alert', { name: BANNER }, AFTER_DELAY)).toBeTruthy();
    typeInBody(' and more');
    await pause(AUTOSAVE_DELAY_MS + 500);
    expect(patch.seen).toHaveLength(1);
  });

  it('a draft scheduled to go out within half an hour does not save itself: the scheduler would publish half an edit', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, version: 4 }), { etag: '"4"' }));
    await openEditor({ publishAt: new Date(Date.now() + 10 * 60_000).toISOString() }, { 'PATCH /posts/01A': patch.handler });
    typeInBody(' Half an edit');
    await pause(AUTOSAVE_DELAY_MS + 500);
    expect(patch.seen).toEqual([]);
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();
  });

  it('a published post does not save itself: its change waits for Save, kept in the local copy meanwhile', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, status: 'published', version: 4 }), { etag: '"4"' }));
    await openEditor({ status: 'published', publishedAt: '2026-01-02T10:00:00.000Z' }, { 'PATCH /posts/01A': patch.handler });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Excerpt'), ' More.');
    await pause(AUTOSAVE_DELAY_MS + 500);
    expect(patch.seen).toEqual([]);
    expect(screen.getByText('Unsaved changes.')).toBeTruthy();
    expect(localStorage.getItem('margincms:unsaved:01A')).toContain('A first post. More.');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
  });
});
