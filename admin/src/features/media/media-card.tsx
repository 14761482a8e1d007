import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { Media } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { thumbnailOf } from '../../lib/media';
import { ApiProblem, unreachable } from '../../lib/problem';
import { useDeleteMedia, useUpdateMedia, type MediaUse } from './queries';

const KIB = 1024;
const sizeOf = (bytes: number) => (bytes < KIB * KIB ? `${Math.ceil(bytes / KIB)} KB` : `${(bytes / (KIB * KIB)).toFixed(1)} MB`);
const typeName = (contentType: string) => contentType.replace('image/', '').toUpperCase();

/** Where the delete of one image stands: nothing asked, posts still show it, or "delete anyway" to confirm. */
type Deleting = { step: 'idle' } | { step: 'in-use'; posts: MediaUse[] } | { step: 'confirm'; posts: MediaUse[] };

/**
 * One image of the library: its thumbnail (lazy, sized so nothing shifts), its size and type, a
 * form for its alt text and caption, copying its URL, and deleting it. A delete that posts still
 * show (409) lists them, linked, and offers "Delete anyway", which asks once more before it forces.
 */
export function MediaCard({ media, onDeleted }: { media: Media; onDeleted: (media: Media) => void }) {
  const update = useUpdateMedia();
  const remove = useDeleteMedia();
  const [alt, setAlt] = useState(media.alt);
  const [caption, setCaption] = useState(media.caption);
  const [status, setStatus] = useState('');
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Deleting>({ step: 'idle' });
  const thumb = thumbnailOf(media);
  const changed = alt !== media.alt || caption !== media.caption;
  const name = media.alt || `Image ${media.id}`;
  const prefix = `media-${media.id}`;

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const saved = await update(media.id, { alt, caption });
      setAlt(saved.alt);
      setCaption(saved.caption);
      setStatus('Saved.');
    } catch (error) {
      setProblem(error instanceof ApiProblem ? error : unreachable());
      setStatus('');
    } finally {
      setBusy(false);
    }
  }

  async function copyUrl() {
    try {
      await navigator.clipboard.writeText(media.url);
      setStatus('The URL is on the clipboard.');
    } catch {
      setStatus(`The clipboard refused: the URL is ${media.url}`);
    }
  }

  async function destroy(force: boolean) {
    setBusy(true);
    setProblem(null);
    const outcome = await remove(media.id, force);
    setBusy(false);
    if (outcome.kind === 'deleted') onDeleted(media);
    else if (outcome.kind === 'in-use') setDeleting({ step: 'in-use', posts: outcome.posts });
    else setProblem(outcome.problem);
  }

  return (
    <li className="media-card" aria-labelledby={`${prefix}-name`}>
      <a href={media.url} className="media-thumb" target="_blank" rel="noreferrer">
        <img src={thumb.url} width={thumb.width} height={thumb.height} alt={media.alt} loading="lazy" decoding="async" />
        <span className="visually-hidden"> (the original, in a new tab)</span>
      </a>
      <p id={`${prefix}-name`} className="media-name">
        {name}
      </p>
      <p className="hint">
        {media.width} × {media.height} · {typeName(media.contentType)} · {sizeOf(media.bytes)}
      </p>
      <form onSubmit={(e) => void save(e)} className="media-texts" aria-label={`Texts of ${name}`}>
        <label htmlFor={`${prefix}-alt`}>Alt text</label>
        <input id={`${prefix}-alt`} type="text" value={alt} onChange={(e) => setAlt(e.target.value)} />
        <label htmlFor={`${prefix}-caption`}>Caption</label>
        <input id={`${prefix}-caption`} type="text" value={caption} onChange={(e) => setCaption(e.target.value)} />
        <div className="actions">
          <button type="submit" disabled={busy || !changed}>
            Save texts
          </button>
          <button type="button" className="secondary" onClick={() => void copyUrl()}>
            Copy URL
          </button>
          <button type="button" className="secondary" onClick={() => void destroy(false)} disabled={busy}>
            Delete
          </button>
        </div>
      </form>
      <p aria-live="polite" className="hint">
        {status}
      </p>
      {problem && <ProblemAlert error={problem} />}
      {deleting.step !== 'idle' && (
        <div role="alert" className="alert">
          <p className="alert-title">
            {deleting.posts.length === 1 ? 'A post shows this image' : `${deleting.posts.length} posts show this image`}
          </p>
          <ul>
            {deleting.posts.map((post) => (
              <li key={post.id}>
                <Link to={`/posts/${post.id}`}>{post.title}</Link>
              </li>
            ))}
          </ul>
          {deleting.step === 'in-use' ? (
            <div className="actions">
              <button type="button" onClick={() => setDeleting({ step: 'confirm', posts: deleting.posts })}>
                Delete anyway
              </button>
              <button type="button" className="secondary" onClick={() => setDeleting({ step: 'idle' })}>
                Keep it
              </button>
            </div>
          ) : (
            <>
              <p>Deleted, it shows as a broken image in {deleting.posts.length === 1 ? 'that post' : 'those posts'}. Delete it?</p>
              <div className="actions">
                <button type="button" onClick={() => void destroy(true)} disabled={busy} autoFocus>
                  Yes, delete it
                </button>
                <button type="button" className="secondary" onClick={() => setDeleting({ step: 'idle' })}>
                  Keep it
                </button>
              </div>
            </>
          )}
        </div>
      )}
    </li>
  );
}
