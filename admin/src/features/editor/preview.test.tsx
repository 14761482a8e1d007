// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { typeInBody } from '../../test/codemirror';
import { json, problem } from '../../test/fake-api';
import { LOAD, openEditor } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

/** A fake renderer: the body it was sent, in a paragraph (as JSON, so the test sees exactly what came). */
const echo = async (request: Request) => {
  const { body } = (await request.json()) as { body: string };
  return json(200, { html: `<p class="rendered">${JSON.stringify(body)}</p>` });
};

describe('the preview beside the body', () => {
  it("shows the server's HTML of the body once typing pauses: one request for the opened body, one for a burst of typing", async () => {
    const api = await openEditor({}, { 'POST /preview': echo });
    const preview = screen.getByRole('region', { name: 'Preview' });
    await within(preview).findByText(JSON.stringify('Line one.\nLine two.\n'), undefined, LOAD);
    typeInBody('A');
    typeInBody('B');
    typeInBody('C');
    await within(preview).findByText(JSON.stringify('Line one.\nLine two.\nABC'), undefined, LOAD);
    expect(api.calls('POST', '/preview')).toHaveLength(2);
    expect(preview.querySelector('.rendered')).not.toBeNull();
  });

  it('a body the renderer cannot finish in time (422) is said in the preview, without interrupting as an alert', async () => {
    await openEditor(
      {},
      {
        'POST /preview': () =>
          problem(422, 'validation-failed', 'Validation failed', 'The body could not be rendered within 2000 ms.', {
            errors: [{ pointer: '/body/body', message: 'could not be rendered within 2000 ms' }],
          }),
      },
    );
    const preview = screen.getByRole('region', { name: 'Preview' });
    expect(await within(preview).findByText('The body could not be rendered within 2000 ms.', undefined, LOAD)).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('"Hide preview" hides it and says so (aria-expanded); "Show preview" brings it back', async () => {
    await openEditor({});
    const user = userEvent.setup();
    const toggle = screen.getByRole('button', { name: 'Hide preview' });
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(toggle.getAttribute('aria-controls')).toBe(screen.getByRole('region', { name: 'Preview' }).id);
    await user.click(toggle);
    expect(screen.queryByRole('region', { name: 'Preview' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Show preview' }).getAttribute('aria-expanded')).toBe('false');
    await user.click(screen.getByRole('button', { name: 'Show preview' }));
    expect(screen.getByRole('region', { name: 'Preview' })).toBeTruthy();
  });
});
