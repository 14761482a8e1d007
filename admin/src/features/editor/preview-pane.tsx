import { useEffect, useState } from 'react';
import { ApiProblem, unreachable } from '../../lib/problem';
import { usePreview } from './queries';

/** How long typing must pause before the body is sent to be previewed, in ms. */
const PREVIEW_DEBOUNCE_MS = 400;

/** `value` once it has stayed the same for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The body as readers will see it, rendered by the server a moment after typing pauses. */
export function PreviewPane({ id, body }: { id: string; body: string }) {
  const settled = useDebounced(body, PREVIEW_DEBOUNCE_MS);
  const preview = usePreview(settled);
  const error = preview.error ? (preview.error instanceof ApiProblem ? preview.error : unreachable()) : null;
  const html = preview.data ?? '';
  return (
    <section id={id} className="preview" aria-labelledby={`${id}-title`} aria-busy={preview.isFetching}>
      <h2 id={`${id}-title`} className="preview-title">
        Preview
      </h2>
      {/* Not an alert: the preview is beside the work, and a failed one must not interrupt the typing. */}
      {error && (
        <div className="notice">
          <p className="alert-title">{error.problem.title}</p>
          <p>{error.problem.detail}</p>
        </div>
      )}
      {!error && html === '' && <p className="hint">{preview.isFetching ? 'Rendering…' : 'Nothing to preview yet.'}</p>}
      <div
        className="preview-html"
        // Safe to insert: this is the server's output, never the author's text as typed. POST /preview
        // renders the body with the Content API's own markdown renderer and sanitise-html allow-list
        // (no script, no event handler, no javascript: URL), the very HTML readers get; React cannot
        // render markup any other way, and the page's CSP refuses inline scripts besides.
        dangerouslySetInnerHTML={{ __html: error ? '' : html }}
      />
    </section>
  );
}
