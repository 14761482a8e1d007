// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, json, postSummary, problem, renderApp, sessionOver } from '../../test/fake-api';

afterEach(cleanup);

const page = (items: ReturnType<typeof postSummary>[]) => json(200, { items, nextCursor: null, total: items.length, totalExact: true });
const drafts = [postSummary('01A', 'First draft'), postSummary('01B', 'Second draft'), postSummary('01C', 'Third draft')];

type Answer = (body: { action: string }) => Response;

/** The app on the drafts list, POST /posts/bulk answered by `answer` (its bodies kept), after the rows showed. */
async function onDrafts(answer: Answer = () => json(500, {})) {
  const bodies: unknown[] = [];
  const api = fakeApi({
    'GET /posts': () => page(drafts),
    'GET /tags': () => json(200, { items: [] }),
    'POST /posts/bulk': async (request) => {
      const body = (await request.json()) as { action: string };
      bodies.push(body);
      return answer(body);
    },
  });
  renderApp('/posts', sessionOver(api.fetch, 'access-1'));
  await screen.findByRole('cell', { name: 'First draft' });
  return { api, bodies, user: userEvent.setup() };
}

describe('the posts list, bulk actions', () => {
  it('a checkbox per row names its post; "select all" selects every row shown and the count says so', async () => {
    const { user } = await onDrafts();
    expect(screen.getByText('No post selected.')).toBeTruthy();
    await user.click(screen.getByRole('checkbox', { name: 'Select “Second draft”' }));
    expect(screen.getByText('1 post selected.')).toBeTruthy();
    await user.click(screen.getByRole('checkbox', { name: 'Select all 3 posts shown' }));
    expect(screen.getByText('3 posts selected.')).toBeTruthy();
    expect(screen.getAllByRole('checkbox', { checked: true })).toHaveLength(4);
    await user.click(screen.getByRole('checkbox', { name: 'Select all 3 posts shown' }));
    expect(screen.getByText('No post selected.')).toBeTruthy();
  });

  it('200 with one failure: Publish sends the selected ids, shows per post which was published and which failed and why, and refreshes the list', async () => {
    const { api, bodies, user } = await onDrafts(() =>
      json(200, {
        action: 'publish',
        succeeded: [{ id: '01A', version: 2 }],
        failed: [{ id: '01C', reason: 'version_conflict', detail: 'The post changed while the request ran; try again.' }],
      }),
    );
    await user.click(screen.getByRole('checkbox', { name: 'Select “First draft”' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select “Third draft”' }));
    await user.click(screen.getByRole('button', { name: 'Publish' }));

    const results = await screen.findByRole('region', { name: 'Results of the bulk action' });
    expect(within(results).getByText('1 of 2 published, 1 failed.')).toBeTruthy();
    expect(
      within(results)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '“First draft”: published (version 2).',
      '“Third draft”: not published. The post changed while the request ran; try again.',
    ]);
    expect(results.closest('[aria-live="polite"]')).toBeTruthy();
    expect(bodies).toEqual([{ ids: ['01A', '01C'], action: 'publish' }]);
    // The list is asked again; the failed post stays selected, to try again.
    expect(api.calls('GET', '/posts')).toHaveLength(2);
    expect(screen.getByText('1 post selected.')).toBeTruthy();
    expect((screen.getByRole('checkbox', { name: 'Select “Third draft”' }) as HTMLInputElement).checked).toBe(true);
  });

  it('Delete asks first: Cancel sends nothing and goes back to the button; confirming sends the delete', async () => {
    const { bodies, user } = await onDrafts(() => json(200, { action: 'delete', succeeded: [{ id: '01B', version: 1 }], failed: [] }));
    await user.click(screen.getByRole('checkbox', { name: 'Select “Second draft”' }));
    await user.click(screen.getByRole('button', { name: 'Delete…' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete 1 post? This cannot be undone here.' });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.keyboard('{Enter}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete…' }));
    expect(bodies).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Delete…' }));
    await user.click(screen.getByRole('button', { name: 'Delete 1 post' }));
    expect(await screen.findByText('“Second draft”: deleted.')).toBeTruthy();
    expect(bodies).toEqual([{ ids: ['01B'], action: 'delete' }]);
  });

  it('Add tag and Remove tag send the typed tag (trimmed) with the selected ids', async () => {
    const { bodies, user } = await onDrafts((body) =>
      json(200, { action: body.action, succeeded: [{ id: '01A', version: 3 }], failed: [] }),
    );
    await user.click(screen.getByRole('checkbox', { name: 'Select “First draft”' }));
    expect(screen.getByRole('button', { name: 'Add tag' }).getAttribute('aria-disabled')).toBe('true');
    await user.click(screen.getByRole('button', { name: 'Add tag' }));
    await user.type(within(screen.getByRole('group', { name: 'Bulk actions' })).getByLabelText('Tag'), ' news ');
    await user.click(screen.getByRole('button', { name: 'Add tag' }));
    expect(await screen.findByText('“First draft”: tagged “news” (version 3).')).toBeTruthy();
    await user.click(screen.getByRole('checkbox', { name: 'Select “First draft”' }));
    await user.click(screen.getByRole('button', { name: 'Remove tag' }));
    expect(await screen.findByText('“First draft”: untagged “news” (version 3).')).toBeTruthy();
    expect(bodies).toEqual([
      { ids: ['01A'], action: 'addTag', tag: 'news' },
      { ids: ['01A'], action: 'removeTag', tag: 'news' },
    ]);
  });

  it("422: the bulk request's problem is shown and no result is", async () => {
    const { user } = await onDrafts(() =>
      problem(422, 'validation-failed', 'Validation failed', 'tag must be at most 40 characters.', { errors: [] }),
    );
    await user.click(screen.getByRole('checkbox', { name: 'Select “First draft”' }));
    await user.click(screen.getByRole('button', { name: 'Archive' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('tag must be at most 40 characters.')).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Results of the bulk action' })).toBeNull();
  });
});
