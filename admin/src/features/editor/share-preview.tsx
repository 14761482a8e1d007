import { useState, type FormEvent } from 'react';
import type { PreviewLink, PreviewLinkCreated } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { SecretPanel } from '../../components/secret-panel';
import { ApiProblem, unreachable } from '../../lib/problem';
import { DEFAULT_EXPIRY_DAYS, EXPIRY_CHOICES, useCreatePreviewLink, usePreviewLinks, useRevokePreviewLink } from './preview-links';

const STATUS_LABELS: Record<PreviewLink['status'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

const when = (iso: string) => new Date(iso).toLocaleString();

const asProblem = (error: unknown) => (error instanceof ApiProblem ? error : unreachable());

/** One link of the list: its times and status, and Revoke, which asks first. */
function LinkRow({ link, onRevoke }: { link: PreviewLink; onRevoke: (link: PreviewLink) => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const created = when(link.createdAt);
  return (
    <tr>
      <td>{created}</td>
      <td>{when(link.expiresAt)}</td>
      <td>{STATUS_LABELS[link.status]}</td>
      <td>
        {link.status === 'active' &&
          (confirming ? (
            <span className="actions" role="group" aria-label={`Revoke the link created ${created}?`}>
              <button
                type="button"
                disabled={busy}
                autoFocus
                onClick={() => {
                  setBusy(true);
                  void onRevoke(link).finally(() => {
                    setBusy(false);
                    setConfirming(false);
                  });
                }}
              >
                Yes, revoke it
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                Keep it
              </button>
            </span>
          ) : (
            <button
              type="button"
              className="secondary"
              onClick={() => setConfirming(true)}
              aria-label={`Revoke the link created ${created}`}
            >
              Revoke
            </button>
          ))}
      </td>
    </tr>
  );
}

/**
 * The "Share preview" section of a saved post, opened on demand (its links are asked for only
 * then). Not a named region: the body's preview pane is the one region named "Preview".
 */
export function SharePreview({ postId }: { postId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="share-preview">
      <h2 id="share-preview-title">
        <button
          type="button"
          className="secondary"
          aria-expanded={open}
          aria-controls="share-preview-body"
          onClick={() => setOpen((o) => !o)}
        >
          Share preview
        </button>
      </h2>
      {open && <PreviewLinks postId={postId} />}
    </section>
  );
}

/**
 * The preview links of a saved post: a link that shows the post as it is now, whatever its status,
 * to whoever has it, without signing in, until it expires or is revoked. The new link's URL is
 * shown once (the server keeps only a hash of its token) and forgotten when dismissed.
 */
function PreviewLinks({ postId }: { postId: string }) {
  const links = usePreviewLinks(postId);
  const create = useCreatePreviewLink(postId);
  const revoke = useRevokePreviewLink(postId);
  const [days, setDays] = useState<number>(DEFAULT_EXPIRY_DAYS);
  const [created, setCreated] = useState<PreviewLinkCreated | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [pending, setPending] = useState(false);
  const [status, setStatus] = useState('');

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setProblem(null);
    setCreated(null);
    try {
      setCreated(await create(days));
      setStatus('');
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setPending(false);
    }
  }

  async function revokeLink(link: PreviewLink) {
    setProblem(null);
    try {
      await revoke(link.id);
      setStatus(`Revoked the link created ${when(link.createdAt)}: its URL answers 404 from now on.`);
    } catch (error) {
      setProblem(asProblem(error));
    }
  }

  const items = links.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <div id="share-preview-body">
      <p className="hint">
        A preview link shows this post as it is at each visit, draft or not, to whoever has it, without signing in, until it expires or you
        revoke it.
      </p>
      <form onSubmit={(e) => void submit(e)} className="actions" aria-label="New preview link">
        <label htmlFor="preview-expiry">Expires after</label>
        <select id="preview-expiry" value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.days} value={choice.days}>
              {choice.label}
            </option>
          ))}
        </select>
        <button type="submit" disabled={pending}>
          {pending ? 'Creating…' : 'Create preview link'}
        </button>
      </form>
      {created && (
        <SecretPanel
          title="New preview link"
          label="Preview URL"
          value={created.url}
          note={`Works until ${when(created.expiresAt)}. Copy it now: it is not shown again.`}
          onDismiss={() => setCreated(null)}
        >
          <p>
            <a href={created.url} target="_blank" rel="noreferrer noopener">
              Open the preview<span className="visually-hidden"> (in a new tab)</span>
            </a>
          </p>
        </SecretPanel>
      )}
      {problem && <ProblemAlert error={problem} />}
      <p aria-live="polite">{status}</p>
      {links.error && <ProblemAlert error={asProblem(links.error)} />}
      {links.isSuccess && items.length === 0 && <p>No preview links yet.</p>}
      {items.length > 0 && (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Preview links of this post, the newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((link) => (
                <LinkRow key={link.id} link={link} onRevoke={revokeLink} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {links.hasNextPage && (
        <p>
          <button type="button" className="secondary" onClick={() => void links.fetchNextPage()} disabled={links.isFetchingNextPage}>
            {links.isFetchingNextPage ? 'Loading…' : 'Load older links'}
          </button>
        </p>
      )}
    </div>
  );
}
