// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { REFRESH_TOKEN_KEY } from '../../lib/session';
import { fakeApi, json, problem, renderApp, sessionOver } from '../../test/fake-api';

/** The webhooks route is loaded on demand: its first render waits for the chunk. */
const LOAD = { timeout: 5000 };
const SECRET = 'whsec_iI3FlKeccAiLL2YqinBaHmH7QpKZbM4EhBNzUiZvRNM=';
const ID_A = '01JEWB4K7Q2M9X3T5V8N6R1HZA';
const ID_B = '01JEWB4K7Q2M9X3T5V8N6R1HZB';
const REASON =
  'Disabled at 2026-12-06T10:00:00.000Z after the delivery msg_56b9 failed 8 attempts over 27 hours; the last answer was HTTP 500.';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

function hook(id: string, overrides: Record<string, unknown> = {}) {
  return {
    id,
    url: `https://hooks.example.com/${id.slice(-1).toLowerCase()}`,
    events: ['post.published'],
    description: '',
    enabled: true,
    disabledReason: null,
    createdAt: '2026-12-01T10:00:00.000Z',
    updatedAt: '2026-12-01T10:00:00.000Z',
    ...overrides,
  };
}

function delivery(n: number, overrides: Record<string, unknown> = {}) {
  return {
    id: `dlv_${String(n).padStart(32, '0')}`,
    eventId: `msg_${String(n).padStart(32, '0')}`,
    eventType: 'post.published',
    postId: '01JDQ7W3E5R7T9Y1V3N5Q7P9AS',
    status: 'failed',
    attempts: 8,
    nextAttemptAt: null,
    lastAttemptAt: '2026-12-06T10:00:00.000Z',
    responseStatus: 500,
    error: 'HTTP 500',
    latencyMs: 42,
    createdAt: '2026-12-05T10:00:00.000Z',
    ...overrides,
  };
}

type Routes = Parameters<typeof fakeApi>[0];

async function openWebhooks(routes: Routes = {}) {
  const api = fakeApi({
    'GET /webhooks': () =>
      json(200, { items: [hook(ID_A, { enabled: false, disabledReason: REASON, description: 'The site’s build hook' })] }),
    ...routes,
  });
  renderApp('/webhooks', sessionOver(api.fetch, 'access-1'));
  await screen.findByRole('heading', { level: 1, name: 'Webhooks' }, LOAD);
  await screen.findByRole('listitem', { name: 'https://hooks.example.com/a' });
  return { api, user: userEvent.setup() };
}

const item = (url: string) => screen.getByRole('listitem', { name: url });

describe('the webhooks page', () => {
  it('lists each subscription with its events and state, and the server’s disabledReason as a warning beside the switch', async () => {
    await openWebhooks();
    const a = item('https://hooks.example.com/a');
    expect(within(a).getByText('The server disabled this subscription')).toBeTruthy();
    expect(within(a).getByText(REASON)).toBeTruthy();
    expect(within(a).getByText('Events: post.published')).toBeTruthy();
    const toggle = within(a).getByRole('switch', { name: 'Enabled' }) as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(toggle.getAttribute('aria-describedby')).toBe(`webhook-${ID_A}-reason`);
    expect(screen.getByRole('navigation', { name: 'Main' }).querySelector('a[href="/webhooks"]')?.getAttribute('aria-current')).toBe(
      'page',
    );
  });

  it('creates a subscription with the checked events and shows its secret once, until dismissed, never in storage', async () => {
    let created = false;
    const sent: unknown[] = [];
    const { api, user } = await openWebhooks({
      'GET /webhooks': () =>
        json(200, { items: created ? [hook(ID_A), hook(ID_B, { events: ['post.published', 'post.deleted'] })] : [hook(ID_A)] }),
      'POST /webhooks': async (request) => {
        sent.push(await request.json());
        created = true;
        return json(201, { ...hook(ID_B, { events: ['post.published', 'post.deleted'], description: 'Netlify' }), secret: SECRET });
      },
    });
    const form = screen.getByRole('form', { name: 'New subscription' });
    await user.type(within(form).getByLabelText('URL'), 'https://hooks.example.com/b');
    await user.click(within(form).getByLabelText('post.deleted'));
    await user.type(within(form).getByLabelText('Description'), 'Netlify');
    await user.click(within(form).getByRole('button', { name: 'Create subscription' }));

    const panel = await screen.findByRole('region', { name: 'Signing secret of https://hooks.example.com/b' });
    expect((within(panel).getByLabelText('Secret') as HTMLInputElement).value).toBe(SECRET);
    expect(within(panel).getByText(/it is not shown again/)).toBeTruthy();
    expect(sent).toEqual([{ url: 'https://hooks.example.com/b', events: ['post.published', 'post.deleted'], description: 'Netlify' }]);
    expect(await screen.findByRole('listitem', { name: 'https://hooks.example.com/b' })).toBeTruthy();
    expect(api.calls('GET', '/webhooks')).toHaveLength(2);

    await user.click(within(panel).getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    await user.click(within(panel).getByRole('button', { name: 'Dismiss' }));
    expect(document.body.innerHTML).not.toContain(SECRET);
    expect(screen.getByRole('form', { name: 'New subscription' })).toBeTruthy();
    // Nothing but the session's refresh token is kept in storage.
    expect(Object.keys(localStorage)).toEqual([REFRESH_TOKEN_KEY]);
    expect(sessionStorage.length).toBe(0);
    expect(window.location.href).not.toContain(SECRET);
  });

  it('422: the /body/url message sits beside the URL field, which is marked invalid', async () => {
    const { user } = await openWebhooks({
      'POST /webhooks': () =>
        problem(422, 'validation-failed', 'Validation failed', 'The request has 1 invalid field.', {
          errors: [{ pointer: '/body/url', message: 'address 127.0.0.1 is not public' }],
        }),
    });
    const form = screen.getByRole('form', { name: 'New subscription' });
    const url = within(form).getByLabelText('URL');
    await user.type(url, 'http://127.0.0.1:9000/hook');
    await user.click(within(form).getByRole('button', { name: 'Create subscription' }));
    const message = await within(form).findByText('address 127.0.0.1 is not public');
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(url.getAttribute('aria-describedby')?.split(' ')).toContain(message.id);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('409 webhook-limit-reached shows the problem alert', async () => {
    const { user } = await openWebhooks({
      'POST /webhooks': () => problem(409, 'webhook-limit-reached', 'Webhook limit reached', 'A server holds at most 50 subscriptions.'),
    });
    const form = screen.getByRole('form', { name: 'New subscription' });
    await user.type(within(form).getByLabelText('URL'), 'https://hooks.example.com/c');
    await user.click(within(form).getByRole('button', { name: 'Create subscription' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('A server holds at most 50 subscriptions.')).toBeTruthy();
  });

  it('the switch enables a disabled subscription (PATCH enabled: true); Edit saves the changed events', async () => {
    const patches: unknown[] = [];
    const { user } = await openWebhooks({
      'PATCH /webhooks/01JEWB4K7Q2M9X3T5V8N6R1HZA': async (request) => {
        patches.push(await request.json());
        return json(200, hook(ID_A));
      },
    });
    const a = item('https://hooks.example.com/a');
    await user.click(within(a).getByRole('switch', { name: 'Enabled' }));
    expect(await within(a).findByText('Enabled: pending deliveries go out now.')).toBeTruthy();
    await user.click(within(a).getByRole('button', { name: 'Edit' }));
    const form = within(a).getByRole('form', { name: 'Edit https://hooks.example.com/a' });
    await user.click(within(form).getByLabelText('post.updated'));
    await user.click(within(form).getByRole('button', { name: 'Save changes' }));
    await within(a).findByRole('button', { name: 'Edit' });
    expect(patches).toEqual([
      { enabled: true },
      { url: 'https://hooks.example.com/a', events: ['post.published', 'post.updated'], description: 'The site’s build hook' },
    ]);
  });

  it('Rotate secret asks first (the 24 h overlap), then shows the new secret once; Delete asks first too', async () => {
    const patches: unknown[] = [];
    const { api, user } = await openWebhooks({
      'PATCH /webhooks/01JEWB4K7Q2M9X3T5V8N6R1HZA': async (request) => {
        patches.push(await request.json());
        return json(200, { ...hook(ID_A), secret: SECRET });
      },
      'DELETE /webhooks/01JEWB4K7Q2M9X3T5V8N6R1HZA': () => new Response(null, { status: 204 }),
    });
    const a = item('https://hooks.example.com/a');
    await user.click(within(a).getByRole('button', { name: 'Rotate secret' }));
    expect(within(a).getByText(/For 24 hours every delivery is signed with both/)).toBeTruthy();
    expect(patches).toEqual([]);
    await user.click(within(a).getByRole('button', { name: 'Yes, rotate it' }));
    const panel = await within(a).findByRole('region', { name: 'New signing secret' });
    expect((within(panel).getByLabelText('Secret') as HTMLInputElement).value).toBe(SECRET);
    expect(patches).toEqual([{ rotateSecret: true }]);
    await user.click(within(panel).getByRole('button', { name: 'Dismiss' }));
    expect(document.body.innerHTML).not.toContain(SECRET);

    await user.click(within(a).getByRole('button', { name: 'Delete' }));
    expect(api.calls('DELETE', `/webhooks/${ID_A}`)).toHaveLength(0);
    await user.click(within(a).getByRole('button', { name: 'Yes, delete it' }));
    expect(await screen.findByText('Deleted the subscription of https://hooks.example.com/a.')).toBeTruthy();
    expect(api.calls('DELETE', `/webhooks/${ID_A}`)).toHaveLength(1);
    expect(api.calls('GET', '/webhooks').length).toBeGreaterThan(1);
  });

  it('the deliveries log: newest first with attempts, response, latency and error; Load more by cursor; the status filter; Redeliver calls the operation', async () => {
    const { api, user } = await openWebhooks({
      'GET /webhooks/01JEWB4K7Q2M9X3T5V8N6R1HZA/deliveries': (_request, url) =>
        url.searchParams.get('cursor') === 'next'
          ? json(200, { items: [delivery(1, { eventType: 'post.deleted' })], nextCursor: null })
          : json(200, { items: [delivery(2)], nextCursor: url.searchParams.get('status') ? null : 'next' }),
      'POST /webhooks/01JEWB4K7Q2M9X3T5V8N6R1HZA/deliveries/dlv_00000000000000000000000000000002/redeliver': () =>
        json(202, delivery(2, { status: 'pending', attempts: 0, nextAttemptAt: '2026-12-06T10:00:00.000Z' })),
    });
    const a = item('https://hooks.example.com/a');
    await user.click(within(a).getByRole('button', { name: 'Deliveries' }));
    const table = await within(a).findByRole('table', { name: 'Deliveries, the newest first' });
    const first = within(table).getAllByRole('row')[1]!;
    expect(
      within(first)
        .getAllByRole('cell')
        .map((cell) => cell.textContent)
        .slice(1, 8),
    ).toEqual(['post.published', '01JDQ7W3E5R7T9Y1V3N5Q7P9AS', 'Failed', '8', '500', '42 ms', 'HTTP 500']);
    await user.click(within(a).getByRole('button', { name: 'Load more' }));
    expect(await within(a).findByText('post.deleted')).toBeTruthy();

    await user.click(within(first).getByRole('button', { name: /^Redeliver post.published/ }));
    expect(await within(a).findByText(/goes out again/)).toBeTruthy();
    expect(api.calls('POST', `/webhooks/${ID_A}/deliveries/dlv_00000000000000000000000000000002/redeliver`)).toHaveLength(1);

    await user.selectOptions(within(a).getByLabelText('Show deliveries'), 'failed');
    await within(a).findByRole('table');
    const asked = api.calls('GET', `/webhooks/${ID_A}/deliveries`).map((call) => call.url.searchParams.get('status'));
    expect(asked).toContain('failed');
  });
});
