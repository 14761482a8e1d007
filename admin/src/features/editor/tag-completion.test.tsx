// @vitest-environment jsdom
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { json } from '../../test/fake-api';
import { openEditor } from './editor-test-kit';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

/** The values the tag field's datalist offers, in order. */
function offered(): string[] {
  const input = screen.getByLabelText<HTMLInputElement>('Tags');
  const list = document.getElementById(input.getAttribute('list') ?? '');
  return [...(list?.querySelectorAll('option') ?? [])].map((option) => option.value);
}

describe('the tag field', () => {
  it("completes from GET /tags: the datalist offers the API's tags in its order, less those the post already has", async () => {
    const api = await openEditor(
      { tags: ['intro'] },
      {
        'GET /tags': () =>
          json(200, {
            items: [
              { name: 'travel', count: 5 },
              { name: 'intro', count: 2 },
              { name: 'recipes', count: 1 },
            ],
          }),
      },
    );
    await waitFor(() => expect(offered()).toEqual(['travel', 'recipes']));
    expect(api.calls('GET', '/tags')).toHaveLength(1);
  });
});
