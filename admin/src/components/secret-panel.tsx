import { useId, useRef, useState, type ReactNode } from 'react';

/**
 * A secret the API answers once (a webhook's signing secret, a preview link's URL): shown in a
 * read-only field that selects itself on focus (the fallback where the clipboard is refused), a
 * Copy button, a note that it will not be shown again, and Dismiss. The value lives only in the
 * state of whoever renders this and is dropped there on dismiss: never in storage, the admin's
 * URL or the query cache.
 */
export function SecretPanel(props: {
  title: string;
  label: string;
  value: string;
  note: string;
  onDismiss: () => void;
  children?: ReactNode;
}) {
  const { title, label, value, note, onDismiss } = props;
  const id = useId();
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.focus();
      field.current?.select();
      setCopied('The clipboard refused: the text is selected, press Ctrl+C (⌘C) to copy it.');
    }
  }

  return (
    <section className="notice secret-panel" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <label htmlFor={`${id}-value`}>{label}</label>
      <input
        id={`${id}-value`}
        ref={field}
        className="secret-value"
        type="text"
        readOnly
        value={value}
        spellCheck={false}
        autoComplete="off"
        onFocus={(event) => event.target.select()}
        aria-describedby={`${id}-note`}
      />
      <p id={`${id}-note`} className="hint">
        {note}
      </p>
      {props.children}
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className="secondary" onClick={onDismiss}>
          Dismiss
        </button>
        <span aria-live="polite">{copied}</span>
      </div>
    </section>
  );
}
