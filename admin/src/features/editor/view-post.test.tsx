// @vitest-environment jsdom
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { json } from '../../test/fake-api';
import { LOAD, openEditor, post, writes } from './editor-test-kit';
import { postUrlOf } from './view-post';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const SITE = { title: 'Margin blog', url: 'https://blog.example.com', postUrlTemplate: 'https://blog.example.com/blog/{slug}/' };
const site = { 'GET /site': () => json(200, SITE) };

describe('View post in the editor', () => {
  it("links a published post to its page on the public site (the server's template with its slug), in a new tab", async () => {
    await openEditor({ status: 'published', publishedAt: '2026-01-02T10:00:00.000Z' }, site);
    const link = await screen.findByRole('link', { name: /^View post/ }, LOAD);
    // Chromium names it "View post (in a new tab)"; jsdom's name leaves out the space before the hidden part.
    expect(link.textContent).toBe('View post (in a new tab)');
    expect(link.getAttribute('href')).toBe('https://blog.example.com/blog/hello/');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noreferrer noopener');
  });

  it('offers no View post for a draft, and does not ask for the site', async () => {
    const api = await openEditor({}, site);
    expect(screen.getByRole('link', { name: 'History' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: /View post/ })).toBeNull();
    expect(api.calls('GET', '/site')).toHaveLength(0);
  });

  it('offers View post once a draft is saved as published, at its saved slug', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, slug: 'hello-world', status: 'published', version: 4 }), { etag: '"4"' }));
    await openEditor({}, { ...site, 'PATCH /posts/01A': patch.handler });
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Status'), 'published');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const link = await screen.findByRole('link', { name: /^View post/ }, LOAD);
    expect(link.getAttribute('href')).toBe('https://blog.example.com/blog/hello-world/');
  });

  it('percent-encodes the slug into the template', () => {
    expect(postUrlOf('https://blog.example.com/{slug}', 'été/2026')).toBe('https://blog.example.com/%C3%A9t%C3%A9%2F2026');
  });
});
