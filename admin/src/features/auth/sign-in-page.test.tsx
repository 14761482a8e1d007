// @vitest-environment jsdom
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, json, postSummary, problem, renderApp, sessionOver, tokenPair } from '../../test/fake-api';

afterEach(cleanup);

const LIST = () =>
  json(200, { items: [postSummary('01JDQ7W3E5R7T9Y1V3N5Q7P9AA', 'Hello world')], nextCursor: null, total: 1, totalExact: true });

async function signIn(email: string, password: string) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('the sign-in page', () => {
  it('labels its fields, and a signed-out visit to the posts lands on it', async () => {
    const api = fakeApi({});
    renderApp('/posts', sessionOver(api.fetch));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to MarginCMS' })).toBeTruthy();
    expect(screen.getByLabelText('Email').getAttribute('type')).toBe('email');
    expect(screen.getByLabelText('Password').getAttribute('type')).toBe('password');
    expect(screen.getByRole('main')).toBeTruthy();
    expect(document.title).toBe('Sign in · MarginCMS');
    expect(api.requests).toEqual([]);
  });

  it('200: signs in through src/client and opens the posts list with the new token', async () => {
    const api = fakeApi({ 'POST /auth/login': () => json(200, tokenPair('access-1')), 'GET /posts': LIST });
    renderApp('/sign-in', sessionOver(api.fetch));
    await signIn('ada@example.com', 'correct horse battery staple');
    expect(await screen.findByRole('heading', { level: 1, name: 'Posts' })).toBeTruthy();
    expect(await screen.findByRole('cell', { name: 'Hello world' })).toBeTruthy();
    expect(api.calls('GET', '/posts')[0]?.authorization).toBe('Bearer access-1');
    // Another page: its title, and focus on its main landmark, as after a page load.
    expect(document.title).toBe('Posts: drafts · MarginCMS');
    expect(document.activeElement).toBe(screen.getByRole('main'));
  });

  it("401: shows the problem's title and detail, and stays on the page", async () => {
    const api = fakeApi({
      'POST /auth/login': () => problem(401, 'invalid-credentials', 'Invalid credentials', 'The email or the password is wrong.'),
    });
    renderApp('/sign-in', sessionOver(api.fetch));
    await signIn('ada@example.com', 'wrong password');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Invalid credentials')).toBeTruthy();
    expect(within(alert).getByText('The email or the password is wrong.')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to MarginCMS' })).toBeTruthy();
    expect(api.calls('POST', '/auth/login')).toHaveLength(1);
  });

  it('429: shows the detail and when to try again, from Retry-After', async () => {
    const api = fakeApi({
      'POST /auth/login': () =>
        problem(429, 'too-many-attempts', 'Too many attempts', 'Too many failed logins for this account.', {}, { 'retry-after': '42' }),
    });
    renderApp('/sign-in', sessionOver(api.fetch));
    await signIn('ada@example.com', 'guess');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Too many attempts')).toBeTruthy();
    expect(within(alert).getByText('Too many failed logins for this account.')).toBeTruthy();
    expect(within(alert).getByText('Try again in 42 seconds.')).toBeTruthy();
  });

  it("422: the problem's field error is shown at the field its pointer names", async () => {
    const api = fakeApi({
      'POST /auth/login': () =>
        problem(422, 'validation-failed', 'Validation failed', 'The request is not valid.', {
          errors: [{ pointer: '/body/email', message: 'must be an email address' }],
        }),
    });
    renderApp('/sign-in', sessionOver(api.fetch));
    await signIn('ada', 'x');
    const email = screen.getByLabelText('Email');
    expect((await screen.findByText('must be an email address')).id).toBe(email.getAttribute('aria-describedby'));
    expect(email.getAttribute('aria-invalid')).toBe('true');
  });

  it('signs out: the server is told (the refresh token revoked) and the sign-in page shows', async () => {
    const api = fakeApi({ 'GET /posts': LIST, 'POST /auth/logout': () => new Response(null, { status: 204 }) });
    renderApp('/posts', sessionOver(api.fetch, 'access-1'));
    await screen.findByRole('cell', { name: 'Hello world' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in to MarginCMS' })).toBeTruthy();
    expect(api.calls('POST', '/auth/logout')).toHaveLength(1);
  });
});
