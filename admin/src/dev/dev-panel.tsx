import { useId, useState, useSyncExternalStore, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { preferMiddleware } from '../../../src/client/index.js';
import type { Session } from '../lib/session';
import { createPreferSwitch, SCOPES, type PreferScope, type PreferSwitch } from './prefer-switch';
import './dev-panel.css';

declare global {
  interface ImportMetaEnv {
    /** Where the dev server's /api goes (admin/vite.config.ts): `mock` or `server`. */
    readonly ADMIN_API?: string;
  }
}

/** The example names of the contract (keys only: no file is read), for `example=<Name>`. */
const EXAMPLES = Object.keys(import.meta.glob('../../../openapi/components/examples/*.yaml'))
  .map((path) => /([^/]+)\.yaml$/.exec(path)?.[1] ?? '')
  .filter((name) => name !== '');

/** The states the admin shows for a status, as the mock answers them with `code=`. */
const CODES: [string, string][] = [
  ['code=412', 'someone else saved first'],
  ['code=409', 'the slug is taken'],
  ['code=422', 'the fields are invalid'],
  ['code=429', 'too many requests'],
  ['code=503', 'the service is unavailable'],
  ['dynamic=true', 'generated data, not the examples'],
];

function describeArmed(armed: { value: string; scope: PreferScope } | null): string {
  return armed ? `Prefer: ${armed.value} goes with ${SCOPES[armed.scope]}.` : 'Nothing armed: requests go as they are.';
}

/**
 * The development panel (`make dev` only; never in a build): arms a `Prefer` header, which the
 * Prism mock reads (`code=412` answers that status's example, `example=<Name>` a named one), for
 * the next change, the next request or every request, so each state of the admin can be seen
 * before a backend produces it. It lists the requests that went with it and their statuses.
 */
export function DevPanel({ prefer, api }: { prefer: PreferSwitch; api: string }) {
  const { armed, log } = useSyncExternalStore(prefer.subscribe, prefer.snapshot);
  const [value, setValue] = useState('code=412');
  const [scope, setScope] = useState<PreferScope>('next-change');
  const id = useId();
  const arm = (event: FormEvent) => {
    event.preventDefault();
    prefer.arm(value, scope);
  };
  return (
    <aside className="dev-panel" aria-label="Development panel">
      <details>
        <summary>Dev{armed ? `: Prefer ${armed.value}` : ''}</summary>
        <p className="dev-panel-api">
          API: {api === 'mock' ? 'the Prism mock (ADMIN_API=mock)' : 'the dev server (ADMIN_API=server), which ignores Prefer'}
        </p>
        <form onSubmit={arm}>
          <label htmlFor={`${id}-value`}>Prefer</label>
          <input
            id={`${id}-value`}
            list={`${id}-values`}
            value={value}
            onChange={(event) => setValue(event.target.value)}
            aria-describedby={`${id}-hint`}
            spellCheck={false}
            autoComplete="off"
          />
          <datalist id={`${id}-values`}>
            {CODES.map(([code, label]) => (
              <option key={code} value={code} label={label} />
            ))}
            {EXAMPLES.map((name) => (
              <option key={name} value={`example=${name}`} />
            ))}
          </datalist>
          <p id={`${id}-hint`} className="dev-panel-hint">
            code=412, 409, 422, 429 or 503; example=&lt;Name&gt;; dynamic=true
          </p>
          <fieldset>
            <legend>Send it with</legend>
            {(Object.keys(SCOPES) as PreferScope[]).map((key) => (
              <label key={key}>
                <input type="radio" name={`${id}-scope`} value={key} checked={scope === key} onChange={() => setScope(key)} />
                {SCOPES[key]}
              </label>
            ))}
          </fieldset>
          <button type="submit">Arm</button>{' '}
          <button type="button" onClick={prefer.clear} disabled={!armed}>
            Clear
          </button>
        </form>
        <p role="status">{describeArmed(armed)}</p>
        {log.length > 0 && (
          <>
            <h2>Sent with Prefer</h2>
            <ol className="dev-panel-log">
              {log.map((entry, index) => (
                <li key={`${log.length - index}`}>
                  {entry.method} {entry.path} ({entry.prefer}): {entry.status ?? 'no answer'}
                </li>
              ))}
            </ol>
          </>
        )}
      </details>
    </aside>
  );
}

/** Puts the panel beside the app, its own React root, and its `Prefer` on the session's client. */
export function mountDevPanel(session: Session): void {
  const prefer = createPreferSwitch();
  session.client.api.use(preferMiddleware(prefer.choose, { onAnswer: prefer.answered }));
  const host = document.createElement('div');
  host.id = 'dev-panel';
  document.body.append(host);
  createRoot(host).render(<DevPanel prefer={prefer} api={import.meta.env.ADMIN_API ?? 'mock'} />);
}
