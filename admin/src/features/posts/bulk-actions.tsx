import { useId, useRef, useState } from 'react';
import { useTagCounts } from '../../lib/tag-counts';
import type { BulkRequest } from './queries';

const plural = (n: number) => `${n} post${n === 1 ? '' : 's'}`;

interface Props {
  ids: string[];
  pending: boolean;
  onRun: (request: BulkRequest) => void;
}

/** What can be done to the selected posts at once; a delete asks first (focus on "Cancel", the safe choice). */
export function BulkActions({ ids, pending, onRun }: Props) {
  const [confirming, setConfirming] = useState(false);
  const [tag, setTag] = useState('');
  const deleteButton = useRef<HTMLButtonElement>(null);
  const tagId = useId();
  const listId = useId();
  const tags = useTagCounts();
  const none = ids.length === 0;
  const disabled = none || pending;
  const trimmed = tag.trim();
  // aria-disabled, not disabled: the button keeps the focus it had when the action ran (and the
  // selection emptied), so the keyboard stays where it was while the results are announced.
  const act = (when: boolean, action: () => void) => ({ 'aria-disabled': !when, onClick: () => when && action() });

  function cancel() {
    setConfirming(false);
    deleteButton.current?.focus();
  }
  function confirmDelete() {
    setConfirming(false);
    onRun({ ids, action: 'delete' });
  }

  return (
    <div role="group" aria-label="Bulk actions" className="bulk-actions">
      <p aria-live="polite" className="bulk-count">
        {none ? 'No post selected.' : `${plural(ids.length)} selected.`}
      </p>
      <div className="actions">
        <button type="button" {...act(!disabled, () => onRun({ ids, action: 'publish' }))}>
          Publish
        </button>
        <button type="button" {...act(!disabled, () => onRun({ ids, action: 'archive' }))}>
          Archive
        </button>
        <button type="button" ref={deleteButton} className="secondary" {...act(!disabled, () => setConfirming(true))}>
          Delete…
        </button>
      </div>
      <div className="actions">
        <label htmlFor={tagId}>Tag</label>
        <input
          id={tagId}
          list={listId}
          value={tag}
          maxLength={40}
          onChange={(event) => setTag(event.currentTarget.value)}
          className="bulk-tag"
        />
        <datalist id={listId}>
          {tags.data?.map((t) => (
            <option key={t.name} value={t.name} />
          ))}
        </datalist>
        <button type="button" {...act(!disabled && trimmed !== '', () => onRun({ ids, action: 'addTag', tag: trimmed }))}>
          Add tag
        </button>
        <button type="button" {...act(!disabled && trimmed !== '', () => onRun({ ids, action: 'removeTag', tag: trimmed }))}>
          Remove tag
        </button>
      </div>
      {confirming && !none && (
        <div role="alertdialog" aria-labelledby={`${tagId}-confirm`} className="alert">
          <p id={`${tagId}-confirm`} className="alert-title">
            Delete {plural(ids.length)}? This cannot be undone here.
          </p>
          <div className="actions">
            <button type="button" className="secondary" onClick={cancel} autoFocus>
              Cancel
            </button>
            <button type="button" onClick={confirmDelete}>
              Delete {plural(ids.length)}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
