// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { json, problem } from '../../test/fake-api';
import { openEditor, post, writes } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

async function saveTitle(patch: ReturnType<typeof writes>) {
  await openEditor({}, { 'PATCH /posts/01A': patch.handler });
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Title'), '!');
  await user.click(screen.getByRole('button', { name: 'Save' }));
  return { user, alert: await screen.findByRole('alert') };
}

describe('a save the server cannot take now', () => {
  it('503: the problem’s title and detail, "Try again in 3 s." from Retry-After, and Retry sends the same change again', async () => {
    const patch = writes((n, body) =>
      n === 1
        ? problem(
            503,
            'service-unavailable',
            'Service unavailable',
            'The database is not answering; retry shortly.',
            {},
            { 'retry-after': '3' },
          )
        : json(200, post({ ...body, version: 4 }), { etag: '"4"' }),
    );
    const { user, alert } = await saveTitle(patch);
    expect(alert.textContent).toContain('Service unavailable');
    expect(alert.textContent).toContain('The database is not answering; retry shortly.');
    expect(alert.textContent).toContain('Try again in 3 s.');
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(patch.bodies()).toEqual([{ title: 'Hello!' }, { title: 'Hello!' }]);
  });

  it('429: Retry-After is counted down each second', async () => {
    const patch = writes(() =>
      problem(429, 'rate-limited', 'Too many requests', 'This address sent too many requests.', {}, { 'retry-after': '12' }),
    );
    const { alert } = await saveTitle(patch);
    expect(alert.textContent).toContain('Try again in 12 s.');
    expect(await screen.findByText('Try again in 11 s.', undefined, { timeout: 2500 })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('any other problem (500) is shown without Retry', async () => {
    const patch = writes(() => problem(500, 'internal-error', 'Internal server error', 'Something broke.', { requestId: 'r1' }));
    const { alert } = await saveTitle(patch);
    expect(alert.textContent).toContain('Something broke.');
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });
});
