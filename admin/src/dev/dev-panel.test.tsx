// @vitest-environment jsdom
import { act, cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { DevPanel } from './dev-panel';
import { createPreferSwitch } from './prefer-switch';

const get = new Request('http://localhost/api/v1/posts');
const patch = new Request('http://localhost/api/v1/posts/1', { method: 'PATCH' });

afterEach(cleanup);

describe('the development panel', () => {
  it('arms a Prefer by keyboard alone, says so in its summary and status, and Clear disarms it', async () => {
    const user = userEvent.setup();
    const prefer = createPreferSwitch();
    render(<DevPanel prefer={prefer} api="mock" />);
    const panel = screen.getByRole('complementary', { name: 'Development panel' });
    expect(within(panel).getByText('API: the Prism mock (ADMIN_API=mock)')).toBeTruthy();

    await user.tab();
    await user.keyboard('{Enter}'); // opens the <details>
    await user.tab();
    await user.keyboard('{Control>}a{/Control}code=422');
    expect((within(panel).getByLabelText('Prefer') as HTMLInputElement).value).toBe('code=422');
    await user.tab(); // the scope radios, the next change checked
    await user.tab();
    await user.keyboard('{Enter}');

    expect(within(panel).getByRole('status').textContent).toBe(
      'Prefer: code=422 goes with the next change (POST, PATCH, PUT or DELETE), once.',
    );
    expect(panel.querySelector('summary')?.textContent).toBe('Dev: Prefer code=422');
    await user.click(within(panel).getByRole('button', { name: 'Clear' }));
    expect(within(panel).getByRole('status').textContent).toBe('Nothing armed: requests go as they are.');
    expect(prefer.choose(patch)).toBeUndefined();

    await user.click(within(panel).getByLabelText('every request, until cleared'));
    await user.click(within(panel).getByRole('button', { name: 'Arm' }));
    expect([prefer.choose(get), prefer.choose(get)]).toEqual(['code=422', 'code=422']);
  });

  it('lists the requests that went with a Prefer and what they were answered', () => {
    const prefer = createPreferSwitch();
    render(<DevPanel prefer={prefer} api="server" />);
    expect(screen.getByText('API: the dev server (ADMIN_API=server), which ignores Prefer')).toBeTruthy();
    act(() => prefer.answered({ method: 'PATCH', path: '/posts/{id}', prefer: 'code=412', status: 412 }));
    expect(screen.getByRole('listitem', { hidden: true }).textContent).toBe('PATCH /posts/{id} (code=412): 412');
  });
});

describe('the development panel’s Prefer switch', () => {
  it('hands a value armed for the next change to the first change only, letting GETs go without it', () => {
    const prefer = createPreferSwitch();
    prefer.arm('code=412', 'next-change');
    expect(prefer.choose(get)).toBeUndefined();
    expect(prefer.choose(patch)).toBe('code=412');
    expect(prefer.choose(patch)).toBeUndefined();
    expect(prefer.snapshot().armed).toBeNull();
  });

  it('hands a value armed for the next request to whatever request comes next, once', () => {
    const prefer = createPreferSwitch();
    prefer.arm(' example=PostPublished ', 'next-request');
    expect(prefer.choose(get)).toBe('example=PostPublished');
    expect(prefer.choose(get)).toBeUndefined();
  });

  it('keeps a value armed for every request until it is cleared', () => {
    const prefer = createPreferSwitch();
    prefer.arm('code=503', 'every-request');
    expect([prefer.choose(get), prefer.choose(patch)]).toEqual(['code=503', 'code=503']);
    prefer.clear();
    expect(prefer.choose(get)).toBeUndefined();
  });

  it('keeps the latest answers first', () => {
    const prefer = createPreferSwitch();
    prefer.answered({ method: 'PATCH', path: '/posts/{id}', prefer: 'code=412', status: 412 });
    prefer.answered({ method: 'GET', path: '/posts', prefer: 'code=503', status: 503 });
    expect(prefer.snapshot().log.map((answer) => answer.status)).toEqual([503, 412]);
  });
});
