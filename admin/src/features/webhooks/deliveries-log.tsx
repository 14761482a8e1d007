import { useState } from 'react';
import { Link } from 'react-router';
import type { WebhookDelivery } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { ApiProblem, unreachable } from '../../lib/problem';
import { useDeliveries, useWebhookActions, type DeliveryFilter } from './queries';

const FILTERS: { value: DeliveryFilter; label: string }[] = [
  { value: '', label: 'Any status' },
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
];

const STATUS_LABELS: Record<WebhookDelivery['status'], string> = { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' };

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

const asProblem = (error: unknown) => (error instanceof ApiProblem ? error : unreachable());

/** One delivery: what was sent about which post, how its attempts went, and Redeliver. */
function DeliveryRow({ delivery, onRedeliver }: { delivery: WebhookDelivery; onRedeliver: (delivery: WebhookDelivery) => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <tr>
      <td>
        <time dateTime={delivery.createdAt}>{when(delivery.createdAt)}</time>
      </td>
      <td>{delivery.eventType}</td>
      <td>
        <Link to={`/posts/${delivery.postId}`}>{delivery.postId}</Link>
      </td>
      <td>{STATUS_LABELS[delivery.status]}</td>
      <td className="number">{delivery.attempts}</td>
      <td className="number">{delivery.responseStatus ?? '—'}</td>
      <td className="number">{delivery.latencyMs === null ? '—' : `${delivery.latencyMs} ms`}</td>
      <td>{delivery.error ?? ''}</td>
      <td>{delivery.status === 'pending' ? when(delivery.nextAttemptAt) : '—'}</td>
      <td>
        <button
          type="button"
          className="secondary"
          disabled={busy}
          aria-label={`Redeliver ${delivery.eventType} of ${when(delivery.createdAt)}`}
          onClick={() => {
            setBusy(true);
            void onRedeliver(delivery).finally(() => setBusy(false));
          }}
        >
          Redeliver
        </button>
      </td>
    </tr>
  );
}

/** A subscription's delivery log: newest first, a status filter, "Load more", and Redeliver on each. */
export function DeliveriesLog({ id, prefix }: { id: string; prefix: string }) {
  const [filter, setFilter] = useState<DeliveryFilter>('');
  const deliveries = useDeliveries(id, filter);
  const { redeliver } = useWebhookActions();
  const [status, setStatus] = useState('');
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const items = deliveries.data?.pages.flatMap((page) => page.items) ?? [];

  async function again(delivery: WebhookDelivery) {
    setProblem(null);
    try {
      await redeliver(id, delivery.id);
      setStatus(`${delivery.eventType} of ${when(delivery.createdAt)} goes out again.`);
    } catch (error) {
      setProblem(asProblem(error));
    }
  }

  return (
    <div className="deliveries" id={`${prefix}-deliveries`}>
      <p>
        <label htmlFor={`${prefix}-filter`}>Show deliveries</label>{' '}
        <select id={`${prefix}-filter`} value={filter} onChange={(e) => setFilter(e.target.value as DeliveryFilter)}>
          {FILTERS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
      </p>
      <p aria-live="polite">{status}</p>
      {problem && <ProblemAlert error={problem} />}
      {deliveries.error && <ProblemAlert error={asProblem(deliveries.error)} />}
      {deliveries.isPending && <p aria-live="polite">Loading the deliveries…</p>}
      {deliveries.isSuccess && items.length === 0 && <p>No deliveries{filter ? ` with this status` : ''} yet.</p>}
      {items.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Deliveries, the newest first</caption>
            <thead>
              <tr>
                <th scope="col">Recorded</th>
                <th scope="col">Event</th>
                <th scope="col">Post</th>
                <th scope="col">Status</th>
                <th scope="col" className="number">
                  Attempts
                </th>
                <th scope="col" className="number">
                  Response
                </th>
                <th scope="col" className="number">
                  Latency
                </th>
                <th scope="col">Error</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((delivery) => (
                <DeliveryRow key={delivery.id} delivery={delivery} onRedeliver={again} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {deliveries.hasNextPage && (
        <p>
          <button
            type="button"
            className="secondary"
            onClick={() => void deliveries.fetchNextPage()}
            disabled={deliveries.isFetchingNextPage}
          >
            {deliveries.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </p>
      )}
    </div>
  );
}
