import { useState, type FormEvent } from 'react';
import type { CreateWebhookRequest, WebhookEventType } from '../../../../src/client/index.js';
import { Field } from '../../components/field';
import { ProblemAlert } from '../../components/problem-alert';
import { ApiProblem, unreachable } from '../../lib/problem';

/** The four kinds of event, each with what it means for a receiver. */
const EVENTS: { type: WebhookEventType; hint: string }[] = [
  { type: 'post.published', hint: 'A post went live: published directly, by the scheduler at its time, by a bulk action or an import.' },
  { type: 'post.unpublished', hint: 'A published post became a draft or was archived.' },
  { type: 'post.updated', hint: 'A published post changed and stayed published.' },
  { type: 'post.deleted', hint: 'A post of any status was deleted.' },
];

/** The fields a problem's pointers name, and what is shown beside each. */
const POINTERS = { url: '/body/url', events: '/body/events', description: '/body/description' } as const;

const messagesAt = (problem: ApiProblem | null, pointer: string): string | undefined =>
  problem?.problem.errors
    ?.filter((error) => error.pointer === pointer)
    .map((error) => error.message)
    .join(' ') || undefined;

/**
 * The form of a subscription (new, or the one being edited): its URL, the events it wants, a
 * description. A 422's field errors show beside their fields; any other problem above the buttons.
 */
export function WebhookForm(props: {
  prefix: string;
  label: string;
  initial?: CreateWebhookRequest;
  submitLabel: string;
  onSubmit: (body: CreateWebhookRequest) => Promise<void>;
  onCancel?: () => void;
}) {
  const { prefix, initial } = props;
  const [url, setUrl] = useState(initial?.url ?? '');
  const [events, setEvents] = useState<WebhookEventType[]>(initial?.events ?? ['post.published']);
  const [description, setDescription] = useState(initial?.description ?? '');
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setProblem(null);
    try {
      // The order of the list above, whatever the order of the clicks.
      await props.onSubmit({ url: url.trim(), events: EVENTS.map((e) => e.type).filter((t) => events.includes(t)), description });
    } catch (error) {
      setProblem(error instanceof ApiProblem ? error : unreachable());
    } finally {
      setPending(false);
    }
  }

  const toggle = (type: WebhookEventType, on: boolean) => setEvents((list) => (on ? [...list, type] : list.filter((t) => t !== type)));
  const errorOf = (name: keyof typeof POINTERS) => messagesAt(problem, POINTERS[name]);
  const placed = Object.values(POINTERS).some((pointer) => messagesAt(problem, pointer) !== undefined);
  const eventsError = errorOf('events');

  return (
    <form className="webhook-form" onSubmit={(e) => void submit(e)} noValidate aria-label={props.label}>
      <Field
        id={`${prefix}-url`}
        label="URL"
        hint="Where each event is POSTed: https:// (or http://) to a public address."
        error={errorOf('url')}
      >
        {(p) => (
          <input
            id={p.id}
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            required
            spellCheck={false}
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || undefined}
          />
        )}
      </Field>
      <fieldset className="webhook-events" aria-describedby={eventsError ? `${prefix}-events-error` : undefined}>
        <legend>Events</legend>
        {EVENTS.map(({ type, hint }) => (
          <div className="choice" key={type}>
            <input
              id={`${prefix}-${type}`}
              type="checkbox"
              checked={events.includes(type)}
              onChange={(e) => toggle(type, e.target.checked)}
              aria-describedby={`${prefix}-${type}-hint`}
            />
            <label htmlFor={`${prefix}-${type}`}>{type}</label>
            <span />
            <span id={`${prefix}-${type}-hint`} className="hint">
              {hint}
            </span>
          </div>
        ))}
        {eventsError && (
          <p id={`${prefix}-events-error`} className="field-error">
            {eventsError}
          </p>
        )}
      </fieldset>
      <Field
        id={`${prefix}-description`}
        label="Description"
        hint="A note for people: what the receiver is."
        error={errorOf('description')}
      >
        {(p) => (
          <input
            id={p.id}
            type="text"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            aria-describedby={p.describedBy}
            aria-invalid={p.invalid || undefined}
          />
        )}
      </Field>
      {problem && !placed && <ProblemAlert error={problem} />}
      <div className="actions">
        <button type="submit" disabled={pending}>
          {pending ? 'Saving…' : props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
