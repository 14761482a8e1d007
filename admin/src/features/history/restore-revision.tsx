import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import type { Post } from '../../../../src/client/index.js';
import { ProblemAlert } from '../../components/problem-alert';
import { problemOf, unreachable, type ApiProblem } from '../../lib/problem';
import { postKeys } from '../../lib/query-keys';
import { useSession } from '../../lib/session';
import { revisionKeys } from './queries';

type Outcome = { kind: 'moved'; version: number } | { kind: 'problem'; problem: ApiProblem };

/**
 * Restores revision `version` after a confirmation: the API copies its title, excerpt, body, tags,
 * cover image and SEO fields into the post as a new version, under If-Match (src/client sends the ETag of the post this page
 * read). Done, the editor opens on the restored post; a 412 (someone saved meanwhile) refreshes
 * the post and its history and says so, and a second try restores over what is there now.
 */
export function RestoreRevision({ post, version }: { post: Post; version: number }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const opener = useRef<HTMLButtonElement>(null);
  /** Set by Cancel: the focus goes back to the button that opened the question, once it is back. */
  const refocus = useRef(false);
  useEffect(() => {
    if (confirming || !refocus.current) return;
    refocus.current = false;
    opener.current?.focus();
  }, [confirming]);

  if (version === post.version) return <p>Version {version} is the current version.</p>;

  function cancel() {
    refocus.current = true;
    setConfirming(false);
  }

  async function restore() {
    setPending(true);
    setOutcome(null);
    try {
      const result = await client.restoreRevision(post.id, version);
      if (result.error === undefined) {
        queryClient.setQueryData(postKeys.detail(post.id), result.data);
        void queryClient.invalidateQueries({ queryKey: postKeys.lists() });
        // Stale for the next visit, not fetched now: this page is leaving for the editor.
        void queryClient.invalidateQueries({ queryKey: revisionKeys.all(post.id), refetchType: 'none' });
        void navigate(`/posts/${post.id}`);
        return;
      }
      setConfirming(false);
      if (result.response.status === 412 && 'current' in result.error) {
        queryClient.setQueryData(postKeys.detail(post.id), result.error.current);
        void queryClient.invalidateQueries({ queryKey: revisionKeys.all(post.id) });
        setOutcome({ kind: 'moved', version: result.error.current.version });
      } else {
        setOutcome({ kind: 'problem', problem: problemOf(result.error, result.response) });
      }
    } catch {
      setOutcome({ kind: 'problem', problem: unreachable() });
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="restore">
      {outcome?.kind === 'moved' && (
        <div role="alert" className="notice">
          <p className="alert-title">Someone else saved this post meanwhile</p>
          <p>
            It is now at version {outcome.version}, and nothing was restored. The history and the diff above now show it; restore again if
            you still want version {version}.
          </p>
        </div>
      )}
      {outcome?.kind === 'problem' && <ProblemAlert error={outcome.problem} />}
      {confirming ? (
        <div role="alertdialog" aria-labelledby="restore-title" aria-describedby="restore-detail" className="notice">
          <p id="restore-title" className="alert-title">
            Restore version {version}?
          </p>
          <p id="restore-detail">
            Its title, excerpt, body, tags, cover image and search and sharing (SEO) fields become version {post.version + 1} of the post
            (the slug and status stay as they are). Nothing in the history is lost: version {post.version} stays there.
          </p>
          <div className="actions">
            <button type="button" onClick={() => void restore()} disabled={pending}>
              {pending ? 'Restoring…' : `Restore version ${version}`}
            </button>
            <button type="button" className="secondary" onClick={cancel} autoFocus>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" ref={opener} onClick={() => setConfirming(true)}>
          Restore version {version}…
        </button>
      )}
    </div>
  );
}
