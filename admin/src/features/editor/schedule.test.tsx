// @vitest-environment jsdom
import { cleanup, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { json } from '../../test/fake-api';
import { openEditor, post, writes } from './editor-test-kit';
import { fromLocalInput, toLocalInput, utcOffsetAt } from './schedule';

// The author is in New York (Node applies TZ as it changes): 08:30 UTC in January is 03:30 there, at UTC-05:00.
process.env.TZ = 'America/New_York';

afterEach(() => {
  cleanup();
  localStorage.clear();
});

const AT = '2027-01-15T08:30:00.000Z';
/** The label names the author's zone and its offset at the publish time. */
const LABEL = 'Publish at (America/New_York, UTC-05:00)';

describe('scheduling in the author’s time zone', () => {
  it('a scheduled draft opens as "Scheduled" with its publish time in local time, labelled with the zone, and the saved time said back', async () => {
    await openEditor({ publishAt: AT });
    expect(screen.getByLabelText<HTMLSelectElement>('Status').value).toBe('scheduled');
    const input = screen.getByLabelText<HTMLInputElement>(LABEL);
    expect(input.type).toBe('datetime-local');
    expect(input.value).toBe('2027-01-15T03:30');
    expect(screen.getByText(/^Saved: publishes Friday, January 15, 2027 at 3:30\sAM EST\.$/)).toBeTruthy();
  });

  it('a new local time is sent as the UTC instant it stands for, and only that field', async () => {
    const patch = writes((_n, body) => json(200, post({ ...body, version: 4 }), { etag: '"4"' }));
    await openEditor({ publishAt: AT }, { 'PATCH /posts/01A': patch.handler });
    fireEvent.change(screen.getByLabelText(LABEL), { target: { value: '2027-03-01T10:15' } });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    // 10:15 in New York on 1 March is 15:15 UTC (EST, UTC-05:00).
    expect(patch.bodies()).toEqual([{ publishAt: '2027-03-01T15:15:00.000Z' }]);
  });

  it('"Scheduled" on a draft offers a future time and sends it; "Published" on a scheduled draft sends the status and no publish time', async () => {
    const patch = writes((n, body) => json(200, post({ ...body, version: 3 + n }), { etag: `"${3 + n}"` }));
    await openEditor({}, { 'PATCH /posts/01A': patch.handler });
    const user = userEvent.setup();
    expect(screen.queryByLabelText(LABEL)).toBeNull();
    await user.selectOptions(screen.getByLabelText('Status'), 'scheduled');
    expect(screen.getByText('Publishes itself at this time once saved.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 4.')).toBeTruthy();
    const sent = patch.bodies()[0]!.publishAt as string;
    expect(Object.keys(patch.bodies()[0]!)).toEqual(['publishAt']);
    expect(Date.parse(sent)).toBeGreaterThan(Date.now());

    await user.selectOptions(screen.getByLabelText('Status'), 'published');
    expect(screen.queryByLabelText(LABEL)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved: version 5.')).toBeTruthy();
    expect(patch.bodies()[1]).toEqual({ status: 'published', publishAt: null });
  });
});

describe('local times', () => {
  it('round-trip between a datetime-local value and the UTC instant, in the author’s zone', () => {
    expect(toLocalInput(AT)).toBe('2027-01-15T03:30');
    expect(fromLocalInput('2027-01-15T03:30')).toBe(AT);
    expect(fromLocalInput('')).toBeNull();
  });

  it('name the offset in force at that instant: summer time in July', () => {
    expect(utcOffsetAt(new Date(AT))).toBe('UTC-05:00');
    expect(utcOffsetAt(new Date('2027-07-15T08:30:00.000Z'))).toBe('UTC-04:00');
  });
});
