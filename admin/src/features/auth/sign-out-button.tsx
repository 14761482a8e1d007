import { useRef, useState } from 'react';
import { dropLocalDrafts, localDraftCount } from '../../lib/local-drafts';
import { useSession } from '../../lib/session';

/**
 * Ends the session on the server (src/client's logout) and forgets the tokens, whatever it answers;
 * then drops the unsaved work this browser kept, so the next person to sign in here is offered none.
 * With such work kept, it asks first; focus starts on staying, the safe choice.
 */
export function SignOutButton() {
  const { client } = useSession();
  const [pending, setPending] = useState(false);
  const [unsaved, setUnsaved] = useState(0);
  const button = useRef<HTMLButtonElement>(null);

  async function signOut() {
    setUnsaved(0);
    setPending(true);
    try {
      await client.logout();
    } catch {
      // The tokens are forgotten even when the server could not be told (src/client's logout).
    } finally {
      dropLocalDrafts();
      setPending(false);
    }
  }

  function stay() {
    setUnsaved(0);
    button.current?.focus();
  }

  return (
    <>
      <button
        ref={button}
        type="button"
        className="secondary"
        onClick={() => {
          const count = localDraftCount();
          if (count > 0) setUnsaved(count);
          else void signOut();
        }}
        disabled={pending}
      >
        Sign out
      </button>
      {unsaved > 0 && (
        <div
          role="alertdialog"
          aria-labelledby="sign-out-title"
          aria-describedby="sign-out-detail"
          className="alert sign-out-guard"
          onKeyDown={(event) => {
            if (event.key === 'Escape') stay();
          }}
        >
          <p id="sign-out-title" className="alert-title">
            Sign out and discard unsaved changes?
          </p>
          <p id="sign-out-detail">
            {unsaved === 1 ? 'One post has' : `${unsaved} posts have`} changes that are not saved. Signing out removes them from this
            browser.
          </p>
          <div className="actions">
            <button type="button" onClick={stay} autoFocus>
              Stay signed in
            </button>
            <button type="button" className="secondary" onClick={() => void signOut()}>
              Sign out and discard
            </button>
          </div>
        </div>
      )}
    </>
  );
}
