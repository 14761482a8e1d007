import { useState, type FormEvent } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Field } from '../../components/field';
import { ProblemAlert } from '../../components/problem-alert';
import { ApiProblem, problemOf, unreachable } from '../../lib/problem';
import { useDocumentTitle } from '../../lib/page';
import { useSession } from '../../lib/session';

/** Where the sign-in page returns to: the page that sent the user here, else the posts. */
function returnPath(state: unknown): string {
  const from = (state as { from?: unknown } | null)?.from;
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('/sign-in') ? from : '/posts';
}

/** Email and password, through src/client's login; the API's problem shown as it says it. */
export function SignInPage() {
  const { client, signedIn } = useSession();
  const location = useLocation();
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [pending, setPending] = useState(false);
  useDocumentTitle('Sign in');

  if (signedIn) return <Navigate to={returnPath(location.state)} replace />;

  async function signIn(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setProblem(null);
    try {
      const result = await client.login(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
      // On success the session holds the tokens, and this page re-renders into the redirect.
      if (result.error !== undefined) setProblem(problemOf(result.error, result.response));
    } catch {
      setProblem(unreachable());
    } finally {
      setPending(false);
    }
  }

  const emailError = problem?.fieldError('/body/email');
  const passwordError = problem?.fieldError('/body/password');
  return (
    <main id="main" className="page sign-in" tabIndex={-1}>
      <h1>Sign in to MarginCMS</h1>
      <form onSubmit={(event) => void signIn(event)} noValidate aria-describedby={problem ? 'sign-in-problem' : undefined}>
        <div id="sign-in-problem">{problem && <ProblemAlert error={problem} />}</div>
        <Field id="email" label="Email" error={emailError}>
          {(field) => (
            <input
              id={field.id}
              name="email"
              type="email"
              autoComplete="username"
              required
              aria-invalid={field.invalid || undefined}
              aria-describedby={field.describedBy}
            />
          )}
        </Field>
        <Field id="password" label="Password" error={passwordError}>
          {(field) => (
            <input
              id={field.id}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              aria-invalid={field.invalid || undefined}
              aria-describedby={field.describedBy}
            />
          )}
        </Field>
        <button type="submit" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
