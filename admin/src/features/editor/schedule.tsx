import type { FieldProps } from '../../components/field';

/** The author's IANA time zone, as the browser knows it (e.g. `Europe/Paris`). */
function authorTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The UTC offset the author's zone has at `at` (summer time counted), as `UTC+01:00`. */
export function utcOffsetAt(at: Date): string {
  const minutes = -at.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** An API timestamp as a datetime-local value in the author's zone (`2026-12-24T18:30`). */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (the author's wall-clock time) as the API's UTC timestamp; null if incomplete. */
export function fromLocalInput(value: string): string | null {
  // A date-time without an offset is local time (ECMA-262 Date.parse).
  const d = new Date(value);
  return value === '' || Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The next whole hour but one: a scheduled time that is in the future when the author saves. */
export function defaultPublishAt(now = new Date()): string {
  const d = new Date(now);
  d.setMinutes(0, 0, 0);
  d.setHours(d.getHours() + 2);
  return d.toISOString();
}

/** An instant in the author's words and zone: `Thursday, 24 December 2026 at 18:30 CET`. */
export function localTime(iso: string): string {
  // dateStyle and timeStyle do not combine with timeZoneName: the parts are named one by one.
  return new Intl.DateTimeFormat(undefined, {
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(iso));
}

/** The label of the publish time: it says which zone the time is in, with its offset then. */
export function publishAtLabel(publishAt: string | null): string {
  return `Publish at (${authorTimeZone()}, ${utcOffsetAt(publishAt ? new Date(publishAt) : new Date())})`;
}

/** The datetime-local control of a scheduled draft's publish time, in the author's zone. */
export function PublishAtInput({ field, publishAt, onChange }: { field: FieldProps; publishAt: string; onChange: (iso: string) => void }) {
  return (
    <input
      id={field.id}
      type="datetime-local"
      value={toLocalInput(publishAt)}
      onChange={(e) => {
        const iso = fromLocalInput(e.target.value);
        if (iso !== null) onChange(iso);
      }}
      aria-describedby={field.describedBy}
      aria-invalid={field.invalid || undefined}
    />
  );
}
