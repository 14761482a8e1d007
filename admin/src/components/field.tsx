import type { ReactNode } from 'react';

/** What a field's control needs to be labelled, described and marked invalid. */
export interface FieldProps {
  id: string;
  describedBy: string | undefined;
  invalid: boolean;
}

/**
 * A labelled form field: the control `children` renders, an optional hint and the error the API
 * gave for it (a problem's `errors[].pointer`), both tied to the control by aria-describedby.
 */
export function Field(props: {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: (field: FieldProps) => ReactNode;
}) {
  const { id, label, hint, error } = props;
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      {/* Its id lets a control that is not a form element (the markdown editor) name it with aria-labelledby. */}
      <label htmlFor={id} id={`${id}-label`}>
        {label}
      </label>
      {props.children({ id, describedBy, invalid: Boolean(error) })}
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
