import { useState } from 'react';
import { useSession } from '../../lib/session';

/** Ends the session on the server (src/client's logout) and forgets the tokens, whatever it answers. */
export function SignOutButton() {
  const { client } = useSession();
  const [pending, setPending] = useState(false);
  async function signOut() {
    setPending(true);
    try {
      await client.logout();
    } catch {
      // The tokens are forgotten even when the server could not be told (src/client's logout).
    } finally {
      setPending(false);
    }
  }
  return (
    <button type="button" className="secondary" onClick={() => void signOut()} disabled={pending}>
      Sign out
    </button>
  );
}
