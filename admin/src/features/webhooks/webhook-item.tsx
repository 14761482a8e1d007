import { useState } from 'react';
import type { WebhookSubscription } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { SecretPanel } from '../../components/secret-panel';
import { ApiProblem, unreachable } from '../../lib/problem';
import { DeliveriesLog } from './deliveries-log';
import { useWebhookActions } from './queries';
import { WebhookForm } from './webhook-form';

/** What the item asks before doing: nothing, rotating the secret, or deleting the subscription. */
type Asking = 'rotate' | 'delete' | null;

const ASKS: Record<Exclude<Asking, null>, { question: string; yes: string }> = {
  rotate: {
    question:
      'Rotate the signing secret? The new one is shown once. For 24 hours every delivery is signed with both the old and the new secret, so the receiver can switch without losing an event; after that only the new one signs.',
    yes: 'Yes, rotate it',
  },
  delete: {
    question: 'Delete this subscription? Nothing more is sent to it, and its delivery log goes with it.',
    yes: 'Yes, delete it',
  },
};

/** A question about a subscription, answered by a button that does it (focused) or one that keeps it. */
function Confirm({ asking, busy, onYes, onNo }: { asking: Exclude<Asking, null>; busy: boolean; onYes: () => void; onNo: () => void }) {
  return (
    <div className="alert" role="group" aria-label={ASKS[asking].yes}>
      <p>{ASKS[asking].question}</p>
      <div className="actions">
        <button type="button" onClick={onYes} disabled={busy} autoFocus>
          {ASKS[asking].yes}
        </button>
        <button type="button" className="secondary" onClick={onNo}>
          Keep it
        </button>
      </div>
    </div>
  );
}

/** How the item calls the API: each action says what it did in `status` or shows its problem. */
function useItemActions(hook: WebhookSubscription, onDeleted: (url: string) => void) {
  const actions = useWebhookActions();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [status, setStatus] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  async function run(action: () => Promise<string>) {
    setBusy(true);
    setProblem(null);
    try {
      setStatus(await action());
    } catch (error) {
      setProblem(error instanceof ApiProblem ? error : unreachable());
      setStatus('');
    } finally {
      setBusy(false);
    }
  }
  return {
    busy,
    problem,
    status,
    secret,
    forgetSecret: () => setSecret(null),
    actions,
    toggle: (enabled: boolean) =>
      run(async () => {
        await actions.update(hook.id, { enabled });
        return enabled ? 'Enabled: pending deliveries go out now.' : 'Disabled: nothing is sent until it is enabled again.';
      }),
    rotate: () =>
      run(async () => {
        setSecret(await actions.update(hook.id, { rotateSecret: true }));
        return 'Rotated the secret.';
      }),
    remove: () =>
      run(async () => {
        await actions.remove(hook.id);
        onDeleted(hook.url);
        return '';
      }),
  };
}

/**
 * One subscription: its URL, events and state (the server's reason, when it disabled it, as a
 * warning), the enabled switch, Edit, Rotate secret and Delete (both asked first), and its
 * delivery log on demand.
 */
export function WebhookItem({ hook, onDeleted }: { hook: WebhookSubscription; onDeleted: (url: string) => void }) {
  const prefix = `webhook-${hook.id}`;
  const item = useItemActions(hook, onDeleted);
  const [editing, setEditing] = useState(false);
  const [asking, setAsking] = useState<Asking>(null);
  const [showLog, setShowLog] = useState(false);

  return (
    <li className="webhook" aria-labelledby={`${prefix}-url`}>
      <h3 id={`${prefix}-url`} className="webhook-url">
        {hook.url}
      </h3>
      {hook.description && <p>{hook.description}</p>}
      <p className="hint">Events: {hook.events.join(', ')}</p>
      {hook.disabledReason && (
        <div className="alert" id={`${prefix}-reason`}>
          <p className="alert-title">The server disabled this subscription</p>
          <p>{hook.disabledReason}</p>
          <p>Fix the receiver, then enable it: the pending deliveries go out in order.</p>
        </div>
      )}
      <p className="choice">
        <input
          id={`${prefix}-enabled`}
          type="checkbox"
          role="switch"
          checked={hook.enabled}
          disabled={item.busy}
          onChange={(e) => void item.toggle(e.target.checked)}
          aria-describedby={hook.disabledReason ? `${prefix}-reason` : undefined}
        />
        <label htmlFor={`${prefix}-enabled`}>Enabled</label>
      </p>
      {editing ? (
        <WebhookForm
          prefix={`${prefix}-edit`}
          label={`Edit ${hook.url}`}
          initial={{ url: hook.url, events: hook.events, description: hook.description }}
          submitLabel="Save changes"
          onSubmit={async (body) => {
            await item.actions.update(hook.id, body);
            setEditing(false);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <div className="actions">
          <button type="button" className="secondary" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" className="secondary" onClick={() => setAsking('rotate')}>
            Rotate secret
          </button>
          <button type="button" className="secondary" onClick={() => setAsking('delete')}>
            Delete
          </button>
          <button
            type="button"
            className="secondary"
            aria-expanded={showLog}
            aria-controls={showLog ? `${prefix}-deliveries` : undefined}
            onClick={() => setShowLog((shown) => !shown)}
          >
            Deliveries
          </button>
        </div>
      )}
      {asking && (
        <Confirm
          asking={asking}
          busy={item.busy}
          onNo={() => setAsking(null)}
          onYes={() => void (asking === 'rotate' ? item.rotate() : item.remove()).finally(() => setAsking(null))}
        />
      )}
      <p aria-live="polite">{item.status}</p>
      {item.problem && <ProblemAlert error={item.problem} />}
      {item.secret && (
        <SecretPanel
          title="New signing secret"
          label="Secret"
          value={item.secret}
          note="Copy it now: it is not shown again. Deliveries carry a signature with the old secret too for the next 24 hours."
          onDismiss={item.forgetSecret}
        />
      )}
      {showLog && <DeliveriesLog id={hook.id} prefix={prefix} />}
    </li>
  );
}
