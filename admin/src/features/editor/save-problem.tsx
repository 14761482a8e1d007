import { useEffect, useState } from 'react';
import { ProblemAlert } from '../../components/problem-alert';
import type { ApiProblem } from '../../lib/problem';

/** Whole seconds left of `seconds`, counted down once a second from the first render (key the component per answer). */
function useCountdown(seconds: number): number {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    const started = Date.now();
    const timer = setInterval(() => {
      const next = Math.max(0, seconds - Math.floor((Date.now() - started) / 1000));
      setLeft(next);
      if (next === 0) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [seconds]);
  return left;
}

/**
 * A save the server could not take now (429: too many requests; 503: unavailable): the problem's
 * title and detail, how long Retry-After asks to wait (counted down), and Retry. Any other
 * problem is shown as it is, without Retry.
 */
export function SaveProblem({ error, onRetry, retrying }: { error: ApiProblem; onRetry: () => void; retrying: boolean }) {
  const transient = error.status === 429 || error.status === 503;
  const left = useCountdown(error.retryAfterSeconds ?? 0);
  if (!transient) return <ProblemAlert error={error} />;
  return (
    <div role="alert" className="alert">
      <p className="alert-title">{error.problem.title}</p>
      <p>{error.problem.detail}</p>
      <p className="actions">
        {/* Not re-announced every second: the alert said it once. */}
        <span aria-live="off">{left > 0 ? `Try again in ${left} s.` : 'You can try again now.'}</span>
        <button type="button" onClick={onRetry} disabled={retrying}>
          {retrying ? 'Retrying…' : 'Retry'}
        </button>
      </p>
    </div>
  );
}
