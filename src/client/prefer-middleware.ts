import type { Middleware } from 'openapi-fetch';

/**
 * The `Prefer` value for a request, or undefined to send none. Asked once per request that has no
 * `Prefer` of its own, just before it is sent, so a chooser can hand a value to one request only.
 */
export type PreferChooser = (request: Request) => string | undefined;

/** A request that went with a chosen `Prefer`, and what it was answered. */
export interface PreferAnswer {
  method: string;
  /** The operation's path in the contract (`/posts/{id}`). */
  path: string;
  prefer: string;
  /** The status, or null when no answer came (network error). */
  status: number | null;
}

export interface PreferOptions {
  /** Told of each request that was sent with a chosen value, once it is answered or has failed. */
  onAnswer?: (answer: PreferAnswer) => void;
}

/**
 * Adds `Prefer` to the requests `choose` picks, for the Prism mock (`make mock`): `code=412`
 * answers that status's example, `example=<Name>` a named example, `dynamic=true` generated data.
 * The server ignores the header, so this is for developing and testing a frontend against the
 * contract before a backend produces a state. A request that names its own `Prefer` keeps it and
 * does not ask `choose`. Add it with `client.api.use(preferMiddleware(choose))`.
 */
export function preferMiddleware(choose: PreferChooser, options: PreferOptions = {}): Middleware {
  const sent = new Map<string, PreferAnswer>();
  const report = (id: string, status: number | null): void => {
    const answer = sent.get(id);
    if (!answer) return;
    sent.delete(id);
    options.onAnswer?.({ ...answer, status });
  };
  return {
    onRequest({ request, schemaPath, id }) {
      if (request.headers.has('prefer')) return undefined;
      const prefer = choose(request);
      if (prefer === undefined || prefer === '') return undefined;
      request.headers.set('prefer', prefer);
      sent.set(id, { method: request.method, path: schemaPath, prefer, status: null });
      return request;
    },
    onResponse({ response, id }) {
      report(id, response.status);
      return undefined;
    },
    onError({ id }) {
      report(id, null);
    },
  };
}
