import type { ApiProblem } from '../lib/problem';

/** Says for how long to wait, in the largest unit that reads well. */
function waitFor(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** A problem the API answered, where the user is looking: its title, its detail, and when to retry. */
export function ProblemAlert({ error }: { error: ApiProblem }) {
  return (
    <div role="alert" className="alert">
      <p className="alert-title">{error.problem.title}</p>
      <p>{error.problem.detail}</p>
      {error.retryAfterSeconds !== null && <p>Try again in {waitFor(error.retryAfterSeconds)}.</p>}
    </div>
  );
}
