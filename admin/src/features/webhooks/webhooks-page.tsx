import { useState } from 'react';
import type { WebhookSubscriptionWithSecret } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { SecretPanel } from '../../components/secret-panel';
import { useDocumentTitle } from '../../lib/page';
import { ApiProblem, unreachable } from '../../lib/problem';
import { useWebhookActions, useWebhooks } from './queries';
import { WebhookForm } from './webhook-form';
import { WebhookItem } from './webhook-item';
import './webhooks.css';

/** The new subscription's form; once created, its secret shown once until dismissed (then the form again). */
function NewSubscription() {
  const { create } = useWebhookActions();
  const [created, setCreated] = useState<WebhookSubscriptionWithSecret | null>(null);
  return (
    <section className="webhook-new" aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">New subscription</h2>
      {created ? (
        <SecretPanel
          title={`Signing secret of ${created.url}`}
          label="Secret"
          value={created.secret}
          note="Store it with the receiver now: it is not shown again. The receiver verifies each delivery’s webhook-signature with it (any Standard Webhooks library does)."
          onDismiss={() => setCreated(null)}
        />
      ) : (
        <WebhookForm
          prefix="new-webhook"
          label="New subscription"
          submitLabel="Create subscription"
          onSubmit={async (body) => setCreated(await create(body))}
        />
      )}
    </section>
  );
}

/** Settings → Webhooks (`/webhooks`): who is told when posts change, and how the deliveries went. */
export default function WebhooksPage() {
  useDocumentTitle('Webhooks');
  const hooks = useWebhooks();
  const items = hooks.data ?? [];
  const [gone, setGone] = useState('');
  return (
    <>
      <h1>Webhooks</h1>
      <p>
        A subscription receives a signed POST (Standard Webhooks) for each change of a post it subscribed to, in order, retried for over a
        day when the receiver fails.
      </p>
      <NewSubscription />
      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Subscriptions</h2>
        <p aria-live="polite">{gone}</p>
        {hooks.error && <ProblemAlert error={hooks.error instanceof ApiProblem ? hooks.error : unreachable()} />}
        {hooks.isPending && <p aria-live="polite">Loading the subscriptions…</p>}
        {hooks.isSuccess && items.length === 0 && <p>No subscriptions yet.</p>}
        <ul className="webhooks">
          {items.map((hook) => (
            <WebhookItem key={hook.id} hook={hook} onDeleted={(url) => setGone(`Deleted the subscription of ${url}.`)} />
          ))}
        </ul>
      </section>
    </>
  );
}
