import { useState, type KeyboardEvent } from 'react';

/** A tag as the server stores it: trimmed and lowercased. */
const normalise = (tag: string) => tag.trim().toLowerCase();

/**
 * The tags as chips, each with its remove button, and a text field that adds what is typed on
 * Enter or a comma (a pasted "a, b" adds both); the tags in use complete it through a datalist.
 */
export function TagInput({
  id,
  tags,
  suggestions,
  onChange,
  describedBy,
  invalid,
}: {
  id: string;
  tags: string[];
  suggestions: string[];
  onChange: (tags: string[]) => void;
  describedBy: string | undefined;
  invalid: boolean;
}) {
  const [text, setText] = useState('');

  function add(value: string) {
    const added = value.split(',').map(normalise).filter(Boolean);
    const next = [...tags];
    for (const tag of added) if (!next.includes(tag)) next.push(tag);
    if (next.length !== tags.length) onChange(next);
    setText('');
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add(text);
    } else if (event.key === 'Backspace' && text === '' && tags.length > 0) {
      onChange(tags.slice(0, -1));
    }
  }

  return (
    <div className="tag-input">
      {tags.length > 0 && (
        <ul className="chips" aria-label="Tags of the post">
          {tags.map((tag) => (
            <li key={tag} className="chip">
              {tag}
              <button type="button" aria-label={`Remove tag ${tag}`} onClick={() => onChange(tags.filter((t) => t !== tag))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        id={id}
        type="text"
        list={`${id}-suggestions`}
        value={text}
        onChange={(event) => (event.target.value.includes(',') ? add(event.target.value) : setText(event.target.value))}
        onKeyDown={onKeyDown}
        onBlur={() => text.trim() && add(text)}
        aria-describedby={describedBy}
        aria-invalid={invalid || undefined}
        autoComplete="off"
      />
      <datalist id={`${id}-suggestions`}>
        {suggestions
          .filter((tag) => !tags.includes(tag))
          .map((tag) => (
            <option key={tag} value={tag} />
          ))}
      </datalist>
    </div>
  );
}
